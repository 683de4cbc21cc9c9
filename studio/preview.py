"""Seeing what the Studio made: a website's or app's preview in the pane, and
its progress while it is being made (issue #21, item 3).

The preview is the item's address (`public_url`, the published site, else
`url`, the item in the product) in a sandboxed iframe, but only when the
console's Content-Security-Policy `frame-src` lists it
(settings.CSP_FRAME_SOURCES: the product's origin and STUDIO_PREVIEW_HOSTS).
Any other address would show the browser's blocked-frame page, so it gets a
clear link out and the latest screenshot the service gave, if any.

The iframe's sandbox is `allow-scripts` only. Without `allow-same-origin` the
framed page runs in an opaque origin: it cannot read or use the product's
cookies (the maker is signed in there: a framed product page could act as
them), storage or the console, cannot submit forms, open pop-ups or navigate
the console. A site that needs its own storage may look less alive than in a
tab; the link to open it in a tab of its own is always beside the preview.

Progress is elapsed time against the contract's typical duration, said in
whole minutes ("about 2 of ~5 minutes"): the console knows when it sent the
turn, not how far the build is, so the bar is a rough measure of time and
turns indeterminate once the typical time has passed.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from dashboard.frame.images import frame_allowed
from dashboard.web.reading import as_dict, text
from studio.reading import safe_link
from studio.words import status_words

# The two widths a maker checks: a phone (375 px, the narrowest the console
# supports) and a desktop. `?width=` picks one; desktop is the default.
WIDTHS = {"desktop": "Desktop", "phone": "Phone"}
DEFAULT_WIDTH = "desktop"
# A desktop is drawn at a laptop's viewport and scaled down to the pane
# (static/js/studio_preview.js): at the pane's own width (about 400 px beside
# the chat) a site would show its phone layout under the name "Desktop".
DESKTOP_VIEWPORT = (1280, 800)

# Typical durations from the contract (api-spec.md "Typical durations"), the
# upper end of each range, in seconds: the bar measures against the time a
# maker should expect at most, so it rarely runs past its end.
TYPICAL_SECONDS = {
    ("website", "new"): 5 * 60,  # 2-5 min background build
    ("website", "edit"): 90 + 3 * 60,  # edit 20-90 s plus a 1-3 min rebuild
    ("app", "new"): 120,  # 45-120 s
    ("app", "edit"): 120,
}
PREVIEWED_STUDIOS = ("website", "app")

# Build statuses after which nothing more happens (the contract names
# `succeeded`; the others are read tolerantly, as a failed build reports).
BUILD_FINAL = frozenset({"succeeded", "failed", "error", "cancelled", "canceled", "complete", "completed"})

# Stages in a maker's words; a stage the contract does not name is shown as
# the service says it, with its underscores as spaces.
STAGE_WORDS = {
    "queued": "waiting to start",
    "generate": "writing the pages",
    "running": "building",
    "building": "building",
    "complete": "finished",
}


def chosen_width(value: object) -> str:
    width = str(value or "")
    return width if width in WIDTHS else DEFAULT_WIDTH


def stage_words(stage: str, status: str = "") -> str:
    said = stage or status
    return STAGE_WORDS.get(said, status_words(said))


def minutes_words(seconds: float) -> str:
    """Whole minutes, never more precise than the console knows."""
    if seconds < 60:
        return "under a minute"
    minutes = round(seconds / 60)
    return "about 1 minute" if minutes == 1 else f"about {minutes} minutes"


def progress(
    *, studio: str, editing: bool, started: datetime | None, now: datetime, stage: str = "", status: str = ""
) -> dict[str, Any] | None:
    """The pane's progress line while a website or app is being made, or
    None when the console has no start time or no typical duration for it."""
    typical = TYPICAL_SECONDS.get((studio, "edit" if editing else "new"))
    if typical is None or started is None:
        return None
    elapsed = max(0.0, (now - started).total_seconds())
    typical_minutes = math.ceil(typical / 60)
    overdue = elapsed > typical
    if overdue:
        said = f"{minutes_words(elapsed).capitalize()} so far; it usually takes up to ~{typical_minutes} minutes"
    else:
        elapsed_minutes = round(elapsed / 60)
        shown = "Under a minute" if elapsed < 60 else f"About {elapsed_minutes}"
        said = f"{shown} of ~{typical_minutes} minutes"
    return {
        "words": said,
        "stage": stage_words(stage, status),
        # The bar's value in whole minutes too (a `<progress>` announces a
        # percentage): none once overdue, which makes it indeterminate.
        "value": None if overdue else min(round(elapsed / 60), typical_minutes),
        "max": typical_minutes,
    }


def screenshot(raw: Any) -> str:
    """The latest screenshot the service gives of a site or app. The contract
    does not show the read's shape, so the likely names are tried in turn."""
    item = as_dict(raw)
    for key in ("screenshot_url", "preview_image_url", "thumbnail_url", "cover_url"):
        if link := safe_link(item.get(key)):
            return link
    for key in ("screenshot", "preview", "thumbnail"):
        if link := safe_link(as_dict(item.get(key)).get("url")):
            return link
    return ""


def preview(*, pane: dict[str, Any], width: str) -> dict[str, Any] | None:
    """What the pane shows of a website or app itself: the address, whether it
    is framed, the screenshot to fall back on and the width toggle."""
    if pane.get("studio") not in PREVIEWED_STUDIOS:
        return None
    address = text(pane.get("public")) or text(pane.get("open_url"))
    detail = as_dict(pane.get("detail"))
    shot = text(detail.get("screenshot"))
    if not address and not shot:
        return None
    if text(pane.get("public")):
        # The toolbar's names for these links (templates/studio/_pane.html).
        link_name = "The published site" if pane.get("studio") == "website" else "Public address"
    else:
        link_name = "Open in the product"
    return {
        "address": address,
        "link_name": link_name,
        "framed": bool(address) and frame_allowed(address),
        "screenshot": shot,
        "width": chosen_width(width),
        "widths": WIDTHS,
        "desktop_viewport": DESKTOP_VIEWPORT,
    }


def see_it(pane: dict[str, Any], *, width: str, source: Any = None, now: datetime) -> dict[str, Any]:
    """Add the preview and, while the item is being made, the progress to a
    finished pane (studio.library.finish_pane). `source` is the turn that
    named the artifact (a TrackedOperation), None on a library item's page,
    which shows no progress (it knows no turn to time)."""
    pane["preview"] = preview(pane=pane, width=width)
    pane["progress"] = None
    studio = text(pane.get("studio"))
    if source is None or studio not in PREVIEWED_STUDIOS:
        return pane
    build = as_dict(as_dict(pane.get("detail")).get("build"))
    build_status = text(build.get("status"))
    # A website turn is final once the service answered; its build goes on in
    # the background, so the build's own status says whether it is still running.
    building = bool(build_status) and build_status not in BUILD_FINAL
    if source.is_final and not building:
        return pane
    snapshot = as_dict(source.snapshot)
    job = as_dict(snapshot.get("job"))
    pane["progress"] = progress(
        studio=studio,
        editing=bool(as_dict(source.context).get("artifact_id")),
        started=source.created_at,
        now=now,
        stage=text(build.get("stage")) or text(job.get("stage")),
        status=build_status or text(job.get("status")) or text(snapshot.get("status")),
    )
    return pane
