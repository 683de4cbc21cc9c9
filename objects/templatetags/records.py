"""Typed cells of the records table and the record page.

`{% record_cell cell %}` renders one `objects.fields.Cell`: numbers, marks,
links (http/https only), chips in their option colour, thumbnails, files.
"""

from __future__ import annotations

from django import template

from objects.fields import Cell

register = template.Library()


@register.inclusion_tag("objects/_cell.html")
def record_cell(cell: Cell | None) -> dict:
    return {"cell": cell or Cell(kind="empty")}


@register.filter
def cell_text(cell: Cell | None) -> str:
    """A cell as plain text (the title link, the page title)."""
    if cell is None or cell.kind == "empty":
        return ""
    if cell.kind == "chips":
        return ", ".join(chip.label for chip in cell.chips)
    return cell.text
