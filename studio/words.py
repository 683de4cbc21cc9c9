"""The Studio in a maker's words: schema keys, service words and counts as a
person reads them (issue #21, item 6). Pure functions of strings and numbers:
the forms (studio/content_apps.py), the progress lines (studio/reading.py),
the library's facts and the templates all go through these, so no
`start_frame_asset_id`, `needs_input` or "1 images" reaches a page.
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Callable

from dashboard.web import local_formats

# Words of a schema key that mean something else to a maker: an "asset" is a
# picture (or a clip) they made, an id is how the service finds it and never
# theirs to read.
_KEY_ENDINGS = (
    (re.compile(r"_asset_ids$"), " images"),
    (re.compile(r"_asset_id$"), " image"),
    (re.compile(r"^asset_ids$"), "images"),
    (re.compile(r"^asset_id$"), "image"),
    (re.compile(r"_ids$"), "s"),
    (re.compile(r"_id$"), ""),
)
# A schema key inside prose: lower-case words joined by underscores.
_KEY_IN_TEXT = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
# The service's "image asset ids" / "asset id" in prose.
_ASSET_IDS_IN_TEXT = re.compile(r"\b(?:image |video )?asset ids\b", re.IGNORECASE)
_ASSET_ID_IN_TEXT = re.compile(r"\b(?:image |video )?asset id\b", re.IGNORECASE)

# What a Content App answers (the catalogue's `returns`), in words.
_RETURNS = {
    "assets": "images",
    "asset": "an image",
    "images": "images",
    "image": "an image",
    "job": "a video shot, made in the background",
    "motion": "an animated clip",
    "video": "a video clip",
}


def key_words(name: str) -> str:
    """A schema key as lower-case words: `start_frame_asset_id` -> "start
    frame image", `board_id` -> "board", `reference_asset_ids` -> "reference images"."""
    words = str(name).strip()
    for pattern, replacement in _KEY_ENDINGS:
        if pattern.search(words):
            words = pattern.sub(replacement, words)
            break
    return re.sub(r"\s+", " ", words.replace("_", " ").replace("-", " ")).strip().lower()


def key_label(name: str) -> str:
    """A schema key as a field label: `start_frame_asset_id` -> "Start frame image"."""
    words = key_words(name)
    return words[:1].upper() + words[1:]


def prose(value: str) -> str:
    """A schema description or a service message with its keys in words:
    "Up to 4 image asset ids on board_id" -> "Up to 4 images on board",
    "needs start_frame_asset_id" -> "needs start frame image"."""
    said = _ASSET_IDS_IN_TEXT.sub("images", str(value))
    said = _ASSET_ID_IN_TEXT.sub("image", said)
    return _KEY_IN_TEXT.sub(lambda match: key_words(match.group(0)), said)


def returns_words(value: str) -> str:
    """The catalogue's `returns` ("assets / job / motion") as what a maker gets
    ("images, a video shot, made in the background or an animated clip")."""
    parts = [part.strip() for part in re.split(r"[/,|]| or ", str(value)) if part.strip()]
    said = [_RETURNS.get(part.lower(), key_words(part)) for part in parts]
    if len(said) <= 1:
        return "".join(said)
    return ", ".join(said[:-1]) + " or " + said[-1]


def counted(count: int | float | None, phrase: Callable[[int], str]) -> str:
    """`1 image`, `2 images`, `1.200 Wörter`: a number with its noun agreeing,
    in the reader's language. `phrase(n)` is the caller's ngettext of the
    whole phrase ("%(count)s image", "%(count)s images", n); the number is
    written as the language writes it."""
    if count is None:
        return ""
    number = int(count) if float(count).is_integer() else count
    # A fraction (never a count the service sends today) takes the plural form.
    if isinstance(number, int):
        return phrase(number) % {"count": local_formats.integer(number)}
    return phrase(2) % {"count": local_formats.active().number(decimal.Decimal(str(number)))}


def action_words(label: str) -> str:
    """An app's or a request's label after a verb ("Run " + it): the first
    letter lowered unless the first word is an acronym, the rest as written
    ("Film an AI shot" -> "film an AI shot", "AI upscale" -> "AI upscale")."""
    label = str(label).strip()
    first = label.split(" ", 1)[0]
    if len(first) > 1 and first.isupper():
        return label
    return label[:1].lower() + label[1:]


def status_words(value: str) -> str:
    """A service status in words: `needs_input` -> "needs input"."""
    return re.sub(r"\s+", " ", str(value).replace("_", " ").replace("-", " ")).strip()
