"""What an object definition is made of, in the service's terms (api-spec.md,
"Object" and "Field"): the field types, which of them carry options, the key
rule, and the icon names the console offers.
"""

from __future__ import annotations

import re
import unicodedata
from enum import StrEnum


class FieldType(StrEnum):
    """A field's `type` as the service names it (api-spec.md, "Field"). A
    member is the plain string too: it compares equal to what the service
    sends and is sent as it is."""

    TEXT = "text"
    LONG_TEXT = "long_text"
    NUMBER = "number"
    CURRENCY = "currency"
    DATE = "date"  # YYYY-MM-DD
    DATETIME = "datetime"  # ISO 8601
    BOOLEAN = "boolean"
    EMAIL = "email"
    PHONE = "phone"
    URL = "url"
    SELECT = "select"
    MULTI_SELECT = "multi_select"
    STAGE = "stage"
    IMAGE = "image"
    FILE = "file"


# The 15 field types, in the order the spec lists them, with the words people see.
FIELD_TYPES: list[tuple[str, str]] = [
    (FieldType.TEXT, "Text"),
    (FieldType.LONG_TEXT, "Long text"),
    (FieldType.NUMBER, "Number"),
    (FieldType.CURRENCY, "Currency"),
    (FieldType.DATE, "Date"),
    (FieldType.DATETIME, "Date and time"),
    (FieldType.BOOLEAN, "Yes / no"),
    (FieldType.EMAIL, "Email"),
    (FieldType.PHONE, "Phone"),
    (FieldType.URL, "Link (URL)"),
    (FieldType.SELECT, "Single select"),
    (FieldType.MULTI_SELECT, "Multi select"),
    (FieldType.STAGE, "Stage"),
    (FieldType.IMAGE, "Image"),
    (FieldType.FILE, "File"),
]
FIELD_TYPE_LABELS: dict[str, str] = dict(FIELD_TYPES)

# Types whose values are picked from the field's options (options are required).
CHOICE_TYPES: frozenset[str] = frozenset({FieldType.SELECT, FieldType.MULTI_SELECT, FieldType.STAGE})
# Choice types that hold one option (a multi select holds a list of them).
SINGLE_CHOICE_TYPES: frozenset[str] = frozenset({FieldType.SELECT, FieldType.STAGE})
NUMBER_TYPES: frozenset[str] = frozenset({FieldType.NUMBER, FieldType.CURRENCY})
# Types whose value is a web address of a stored thing (shown as a preview).
ADDRESS_TYPES: frozenset[str] = frozenset({FieldType.IMAGE, FieldType.FILE})

DEFAULT_ICON = "Box"
DEFAULT_COLOR = "#64748b"

# Limits from the spec's Limits table, mirrored so the form refuses them first.
NAME_MAX_LENGTH = 80
DESCRIPTION_MAX_LENGTH = 2000
ICON_MAX_LENGTH = 64
COLOR_MAX_LENGTH = 32
FIELD_LABEL_MAX_LENGTH = 120


def snake_case(text: str) -> str:
    """The service's key rule: `Sales leads` -> `sales_leads`.

    Accents are folded to ASCII, the text is lower-cased, and every run of
    other characters becomes one underscore.
    """
    folded = unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "_", folded.lower()).strip("_")


# Common names from the Lucide icon set (what the spec's default `Box` names).
# The SVGs are vendored under static/vendor/lucide/ as kebab-case files.
ICONS: list[str] = [
    "Box",
    "Archive",
    "Award",
    "Banknote",
    "BarChart3",
    "Bell",
    "Book",
    "Bookmark",
    "Briefcase",
    "Building",
    "Building2",
    "Calendar",
    "Camera",
    "Car",
    "ChartPie",
    "CircleCheck",
    "Clipboard",
    "ClipboardList",
    "Clock",
    "Cloud",
    "Code",
    "Coffee",
    "Compass",
    "Contact",
    "CreditCard",
    "Database",
    "DollarSign",
    "Factory",
    "File",
    "FileText",
    "Film",
    "Flag",
    "Folder",
    "Gift",
    "Globe",
    "GraduationCap",
    "Handshake",
    "Hash",
    "Headphones",
    "Heart",
    "House",
    "Image",
    "Inbox",
    "Key",
    "Landmark",
    "Layers",
    "Layout",
    "Lightbulb",
    "Link",
    "List",
    "Lock",
    "Mail",
    "Map",
    "MapPin",
    "Megaphone",
    "MessageSquare",
    "Mic",
    "Monitor",
    "Music",
    "Package",
    "Palette",
    "Phone",
    "PiggyBank",
    "Plane",
    "Receipt",
    "Rocket",
    "Settings",
    "Shield",
    "ShoppingBag",
    "ShoppingCart",
    "Star",
    "Store",
    "Tag",
    "Target",
    "Ticket",
    "Trophy",
    "Truck",
    "User",
    "Users",
    "Wallet",
    "Wrench",
    "Zap",
]
_ICON_SET = frozenset(ICONS)


def icon_file(name: str | None) -> str:
    """The vendored SVG file name for a PascalCase icon name (`BarChart3` ->
    `bar-chart-3.svg`); unknown names fall back to `box`."""
    if not name or name not in _ICON_SET:
        name = DEFAULT_ICON
    kebab = re.sub(r"([a-z])([A-Z0-9])", r"\1-\2", name)
    kebab = re.sub(r"([0-9])([A-Z])", r"\1-\2", kebab)
    return f"{kebab.lower()}.svg"


def is_choice_type(field_type: str | None) -> bool:
    return field_type in CHOICE_TYPES
