"""Typed cells of the records table and the record page.

`{% record_cell cell %}` renders one `objects.fields.Cell`: numbers, marks,
links (http/https only), chips in their option colour (data-option-color, painted by
static/js/objects.js), thumbnails (or, for a host the CSP refuses, the frame's
placeholder naming it: dashboard/frame/images.py), files. It builds the markup in Python
rather than through an included template: a 100-row page has ~1,700 cells,
and an inclusion template per cell cost most of the page's time (see
bench/records_page.py).
"""

from __future__ import annotations

from html import escape as _escape

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator

from dashboard.frame.images import image_allowed, image_elsewhere
from objects.fields import Cell

register = template.Library()

LONG_TEXT_SHOWN = 80  # characters of a long text shown in a table cell (all of it in its title)
EMPTY_CELL = mark_safe('<span class="cell-empty" aria-label="empty">—</span>')
YES_MARK = mark_safe('<span class="cell-mark cell-mark--yes" role="img" aria-label="Yes">✓</span>')
NO_MARK = mark_safe('<span class="cell-mark cell-mark--no" role="img" aria-label="No">✗</span>')


def render_cell(cell: Cell | None, *, full: bool = False) -> SafeString:
    """One value's markup. Plain f-strings over `html.escape` (every piece of
    data is escaped here, once): format_html per cell was the slowest part of
    a 100-row page, and SafeString() rather than mark_safe(), whose lazy-string
    check cost more than the markup."""
    if cell is None or cell.kind == "empty":
        return EMPTY_CELL
    kind = cell.kind
    if kind == "mark":
        return YES_MARK if cell.value else NO_MARK
    text = _escape(cell.text)
    if kind == "number":
        return SafeString(f'<span class="cell-number">{text}</span>')
    if kind == "link":
        href = _escape(cell.href)
        if cell.href.startswith("http"):
            return SafeString(f'<a href="{href}" rel="noopener noreferrer" target="_blank">{text}</a>')
        return SafeString(f'<a href="{href}">{text}</a>')
    if kind == "chips":
        chips = "".join(
            f'<span class="chip" data-option-color="{_escape(chip.color)}">{_escape(chip.label)}</span>'
            if chip.color
            else f'<span class="chip">{_escape(chip.label)}</span>'
            for chip in cell.chips
        )
        return SafeString(f'<span class="chips">{chips}</span>')
    if kind == "image":
        # An image on a host the CSP's img-src does not list would be a broken
        # picture: the frame's placeholder names the host and links to it instead.
        if not image_allowed(cell.href):
            return image_elsewhere(cell.href, name=cell.text, compact=not full)
        href = _escape(cell.href)
        return SafeString(
            f'<a class="cell-image" href="{href}" rel="noopener noreferrer" target="_blank">'
            f'<img src="{href}" alt="{text}" loading="lazy" width="40" height="40"></a>'
        )
    if kind == "file":
        href = _escape(cell.href)
        return SafeString(
            f'<a class="cell-file" href="{href}" rel="noopener noreferrer" target="_blank" download>{text}</a>'
        )
    if kind == "long_text":
        if full:  # the record page shows every line
            return SafeString(f'<span class="cell-long cell-long--full">{text}</span>')
        # Truncator only when there is something to cut: it is slow, and most
        # notes in a table are short (it cost a third of a 100-row page's cells).
        short = _escape(Truncator(cell.text).chars(LONG_TEXT_SHOWN)) if len(cell.text) > LONG_TEXT_SHOWN else text
        return SafeString(f'<span class="cell-long" title="{text}">{short}</span>')
    return SafeString(text)


@register.simple_tag
def record_cell(cell: Cell | None, full: bool = False) -> SafeString:
    return render_cell(cell, full=full)


@register.filter
def cell_text(cell: Cell | None) -> str:
    """A cell as plain text (the title link, the page title)."""
    if cell is None or cell.kind == "empty":
        return ""
    if cell.kind == "chips":
        return ", ".join(chip.label for chip in cell.chips)
    return cell.text


@register.filter
def count_words(count) -> str:
    """A background count of a filtered table in words (objects/counts.py)."""
    from objects.counts import count_text

    return count_text(count)
