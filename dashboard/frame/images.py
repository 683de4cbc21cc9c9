"""Remote images the page may show, and what stands in for the others.

The Content-Security-Policy's `img-src` lists where images may load from
(settings.CSP_IMG_SOURCES: the console, data:, the service's and app's
origins, CSP_IMG_HOSTS). An `<img>` pointing anywhere else is blocked by the
browser and shows as a broken picture: a record's image field typed by
anyone, an asset a deployment keeps on an unlisted CDN. Pages ask
`image_allowed(url)` first and, for an image the browser would refuse, show
`image_elsewhere(url)`: a few words naming the host and a link that opens the
image in a tab of its own (where the console's policy does not apply).

Templates use the `images` library (dashboard/frame/templatetags/images.py):
`{% if url|image_allowed %}<img ...>{% else %}{% image_elsewhere url %}{% endif %}`.
The records table builds its cells in Python and calls these directly.

Matching follows CSP Level 3's source matching, for the expressions an
img-src list can hold: scheme sources (`https:`), host sources with an
optional scheme, `*.` wildcard host, port or `:*` and path, the bare `*`,
`'self'` and `data:`. It errs towards "not allowed": a placeholder with a
working link costs little, a broken image is the bug this module exists for.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from html import escape
from urllib.parse import SplitResult, unquote, urlsplit

from django.conf import settings
from django.utils.safestring import SafeString
from django.utils.translation import gettext


def why_not_shown() -> str:
    """Why a refused image is not on the page, in the reader's language (the
    words issue #17's follow-up chose, after "Image on <host> — ")."""
    return gettext("not shown here (the console loads images only from the service's hosts)")


DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
# The bare `*` source matches network schemes only, never data:, blob: or filesystem:.
NETWORK_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})
WEB_SCHEMES = ("http", "https")


@dataclass(frozen=True)
class Source:
    """One host or scheme source of the img-src list, parsed once."""

    scheme: str  # "" when the source names none (then the page's own scheme)
    host: str  # "" for a scheme-only source (`https:`); "*" any; "*.example.com" subdomains
    port: str  # "" (the scheme's default), "*" or digits
    path: str  # "" for any path


@dataclass(frozen=True)
class Policy:
    sources: tuple[Source, ...]
    self_allowed: bool
    data_allowed: bool
    any_network_host: bool


def _img_sources() -> list[str]:
    """The img-src list the browser is actually sent. That is
    CSP_IMG_SOURCES plus, outside production, any port of 127.0.0.1 and
    localhost (the sandbox and tests' live servers): reading the directive
    itself keeps this helper and the header from ever disagreeing."""
    policy = settings.CONTENT_SECURITY_POLICY or {}
    directives = policy.get("DIRECTIVES") or {}
    # Without img-src a browser falls back to default-src.
    found = directives.get("img-src") or directives.get("default-src")
    return list(found or settings.CSP_IMG_SOURCES)


def _parse_source(expression: str) -> Source | None:
    value = expression.strip()
    if not value or value.startswith("'"):  # keywords, nonces, hashes: not hosts
        return None
    scheme = ""
    if "://" in value:
        scheme, _, value = value.partition("://")
    elif value.endswith(":") and "/" not in value:
        return Source(scheme=value[:-1].lower(), host="", port="", path="")
    host, slash, path = value.partition("/")
    port = ""
    if host.count(":") == 1:
        host, _, port = host.partition(":")
    return Source(scheme=scheme.lower(), host=host.lower(), port=port, path=unquote(slash + path))


@functools.lru_cache(maxsize=8)
def _policy(sources: tuple[str, ...]) -> Policy:
    parsed = [_parse_source(expression) for expression in sources]
    return Policy(
        sources=tuple(source for source in parsed if source is not None),
        self_allowed="'self'" in sources,
        data_allowed="data:" in sources,
        any_network_host="*" in sources,
    )


def _page_scheme() -> str:
    """The scheme the console's pages are served with: what a `//host/...`
    address and a source without a scheme take."""
    configured = urlsplit(settings.CONSOLE_BASE_URL or "").scheme
    return configured or ("https" if settings.PRODUCTION else "http")


def _scheme_matches(source_scheme: str, url_scheme: str) -> bool:
    # An http source also lets the https address in (CSP3's secure upgrade).
    return source_scheme == url_scheme or (source_scheme == "http" and url_scheme == "https")


def _port_matches(source: Source, url_scheme: str, url_port: int | None) -> bool:
    if source.port == "*":
        return True
    port = url_port if url_port is not None else DEFAULT_PORTS.get(url_scheme)
    if not source.port:
        return port == DEFAULT_PORTS.get(url_scheme)
    wanted = int(source.port) if source.port.isdigit() else None
    return port == wanted or (wanted == 80 and url_scheme == "https" and port == 443)


def _host_matches(source_host: str, url_host: str) -> bool:
    if source_host == "*":
        return True
    if source_host.startswith("*."):
        return url_host.endswith(source_host[1:])
    return url_host == source_host


def _path_matches(source_path: str, url_path: str) -> bool:
    if source_path in ("", "/"):
        return True
    path = unquote(url_path)
    return path.startswith(source_path) if source_path.endswith("/") else path == source_path


def _matches(source: Source, parts: SplitResult, scheme: str, port: int | None) -> bool:
    if not source.host:  # a scheme source
        return _scheme_matches(source.scheme, scheme)
    if not _scheme_matches(source.scheme or _page_scheme(), scheme):
        return False
    return (
        _host_matches(source.host, (parts.hostname or "").lower())
        and _port_matches(source, scheme, port)
        and _path_matches(source.path, parts.path)
    )


def _console_origin() -> tuple[str, str, int | None] | None:
    base = settings.CONSOLE_BASE_URL or ""
    if not base:
        return None
    parts = urlsplit(base)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or DEFAULT_PORTS.get(scheme)


def image_allowed(url: object) -> bool:
    """Whether the console's img-src lets the browser load this address.
    'self' covers relative addresses (and CONSOLE_BASE_URL's origin when it
    is set: without a request the console does not know its own host
    otherwise); data: only an image (data:image/...)."""
    return _sources_allow(url, tuple(_img_sources()))


def _frame_sources() -> list[str]:
    """The frame-src list the browser is sent (settings.CSP_FRAME_SOURCES
    plus the local hosts outside production), falling back as a browser
    does: child-src, then default-src."""
    policy = settings.CONTENT_SECURITY_POLICY or {}
    directives = policy.get("DIRECTIVES") or {}
    found = directives.get("frame-src") or directives.get("child-src") or directives.get("default-src")
    return list(found or settings.CSP_FRAME_SOURCES)


def frame_allowed(url: object) -> bool:
    """Whether the console's frame-src lets an iframe load this address (the
    Studio's website and app previews, studio/preview.py): the same source
    matching as images, so a page never shows a frame the browser blocks."""
    return _sources_allow(url, tuple(_frame_sources()))


def _sources_allow(url: object, sources: tuple[str, ...]) -> bool:
    address = str(url or "").strip()
    if not address:
        return False
    policy = _policy(sources)
    try:
        parts = urlsplit(address)
        port = parts.port
    except ValueError:  # an unclosed [IPv6 bracket, a port that is not a number
        return False
    scheme = parts.scheme.lower()
    if not scheme and not parts.netloc:
        return policy.self_allowed
    if scheme == "data":
        return policy.data_allowed and parts.path.lower().startswith("image/")
    scheme = scheme or _page_scheme()  # a `//host/path` address takes the page's scheme
    origin = (scheme, (parts.hostname or "").lower(), port or DEFAULT_PORTS.get(scheme))
    if policy.self_allowed and origin == _console_origin():
        return True
    if policy.any_network_host and scheme in NETWORK_SCHEMES:
        return True
    return any(_matches(source, parts, scheme, port) for source in policy.sources)


def image_host(url: object) -> str:
    """The host a person reads in the placeholder: `cdn.example.org`, with
    its port when the address names one other than the scheme's default;
    never the user:password part."""
    try:
        parts = urlsplit(str(url or "").strip())
        port = parts.port
    except ValueError:
        return ""
    host = parts.hostname or ""
    # A default port is left out, as a browser's address bar does.
    shown = port is not None and port != DEFAULT_PORTS.get(parts.scheme.lower())
    return f"{host}:{port}" if host and shown else host


def image_elsewhere_text(url: object) -> str:
    """The words of the placeholder (also its title in the compact form)."""
    host = image_host(url)
    where = gettext("Image on %(host)s") % {"host": host} if host else gettext("Image at another address")
    return f"{where} — {why_not_shown()}"


def image_elsewhere(url: object, *, name: str = "", compact: bool = False) -> SafeString:
    """What stands where a refused image would be: its host in words and a
    link that opens it in a new tab. Text, not an `<img>` with alt text:
    nothing broken to see, and a screen reader reads the same sentence.
    `compact` (a table cell, a picker's thumbnail) shows "Image on host" as
    the link and keeps the reason for screen readers and the link's title.
    Only http and https addresses become links (never javascript:)."""
    address = str(url or "").strip()
    host = escape(image_host(address))
    sentence = escape(image_elsewhere_text(address))
    why = escape(why_not_shown())
    scheme = address.partition(":")[0].lower()
    href = escape(address) if scheme in WEB_SCHEMES and host else ""
    opens = ' rel="noopener noreferrer" target="_blank"'
    if compact:
        label = gettext("Image on %(host)s") % {"host": host} if host else gettext("Image elsewhere")
        if not href:
            return SafeString(
                f'<span class="image-elsewhere image-elsewhere--compact" title="{sentence}">{sentence}</span>'
            )
        return SafeString(
            f'<span class="image-elsewhere image-elsewhere--compact">'
            f'<a href="{href}"{opens} title="{sentence}">{label}</a>'
            f'<span class="visually-hidden"> — {why}</span></span>'
        )
    link = ""
    if href:
        what = gettext("Open %(name)s") % {"name": escape(name)} if name else gettext("Open the image")
        where = gettext("on %(host)s, in a new tab") % {"host": host}
        link = f' <a href="{href}"{opens}>{what}<span class="visually-hidden"> {where}</span></a>'
    return SafeString(f'<span class="image-elsewhere"><span>{sentence}</span>{link}</span>')
