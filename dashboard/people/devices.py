"""A device in words from its User-Agent header (a session, a push subscription: "Firefox on
Windows", "Safari on iPhone"): enough for a person to tell their sessions
apart, no library (names change; an unknown browser is said as such)."""

from __future__ import annotations

from django.utils.translation import gettext

# First match wins: Edge and Opera say "Chrome" too, Chrome says "Safari", so the specific ones come first.
BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("FxiOS/", "Firefox"),
    ("CriOS/", "Chrome"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
    ("curl/", "curl"),
)
SYSTEMS = (
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Android", "Android"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("Macintosh", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def device_of(user_agent: str) -> str:
    """The browser and the system a User-Agent names, in words."""
    browser = next((name for marker, name in BROWSERS if marker in user_agent), "")
    system = next((name for marker, name in SYSTEMS if marker in user_agent), "")
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or gettext("An unknown browser")
