"""Typed cells of the records table and the record page.

`{% record_cell cell %}` renders one `objects.fields.Cell`: numbers, marks,
links (http/https only), chips in their option colour (`data-c`, short because
a 100-row grid carries it ~300 times; painted by static/js/objects.js), thumbnails (or, for a host the CSP refuses, the frame's
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

from dashboard.frame.images import WEB_SCHEMES, image_allowed, image_elsewhere, image_host
from objects.fields import Cell
from objects.filters import FilterControl
from objects.links import relation_label

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
            f'<span class="chip" data-c="{_escape(chip.color)}">{_escape(chip.label)}</span>'
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


# The one sentence a grid's refused images point to (aria-describedby), shown
# once under the table instead of in each cell (objects/table.py).
IMAGES_ELSEWHERE_NOTE_ID = "images-away"
# Yes and No in words (their colour marks them), which a screen reader reads as they are.
GRID_YES = mark_safe('<span class="cell-mark--yes">Yes</span>')
GRID_NO = mark_safe('<span class="cell-mark--no">No</span>')


def grid_cell(cell: Cell | None) -> SafeString:
    """One value as a records-grid cell shows it: `render_cell`'s markup
    without what a column or the table says once (a 100-row page of 15
    columns stays under 150 KB, bench/records_page.py): numbers bare (their
    column's cells are right-aligned), Yes and No in words, a long text's
    title only when it is cut, links without `target`/`rel` (the grid's
    script opens other sites in a new tab, by delegation: objects_grid.js),
    a lone chip without its group, a refused image as "Image on host"
    described by one note under the table."""
    if cell is None:
        return EMPTY_CELL
    kind = cell.kind
    if kind in ("number", "text"):
        return SafeString(_escape(cell.text))
    if kind == "mark":
        return GRID_YES if cell.value else GRID_NO
    if kind == "link":
        return SafeString(f'<a href="{_escape(cell.href)}">{_escape(cell.text)}</a>')
    if kind == "file":
        return SafeString(f'<a class="cell-file" href="{_escape(cell.href)}" download>{_escape(cell.text)}</a>')
    if kind == "chips" and len(cell.chips) == 1:
        chip = cell.chips[0]
        color = f' data-c="{_escape(chip.color)}"' if chip.color else ""
        return SafeString(f'<span class="chip"{color}>{_escape(chip.label)}</span>')
    if kind == "long_text" and len(cell.text) <= LONG_TEXT_SHOWN:
        return SafeString(f'<span class="cell-long">{_escape(cell.text)}</span>')
    if kind == "image":
        return grid_image(cell)[0]
    return render_cell(cell)


def grid_image(cell: Cell) -> tuple[SafeString, bool]:
    """An image cell of the grid, and whether it is one the CSP refuses (the
    table then shows the note they point to, once)."""
    if image_allowed(cell.href):
        return render_cell(cell), False
    host = image_host(cell.href)
    if not host or cell.href.partition(":")[0].lower() not in WEB_SCHEMES:
        return image_elsewhere(cell.href, compact=True), False
    markup = SafeString(
        f'<a class="image-away" href="{_escape(cell.href)}" aria-describedby="{IMAGES_ELSEWHERE_NOTE_ID}">'
        f"Image on {_escape(host)}</a>"
    )
    return markup, True


@register.simple_tag
def records_grid_cell(cell: Cell | None) -> SafeString:
    return grid_cell(cell)


@register.simple_tag
def record_cell(cell: Cell | None, full: bool = False) -> SafeString:
    return render_cell(cell, full=full)


register.filter("relation_label", relation_label)  # a relation key in words (objects/links.py)


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
    """A filtered table's total counted in the background, in words (objects/tallies.py)."""
    from objects.tallies import total_text

    return total_text(count)


@register.filter
def tally_version(count) -> str:
    """What a poll of a background count compares (objects/tallies.py)."""
    from objects.tallies import tally_version as version_of

    return version_of(count)


def _colour(colour: str | None) -> str:
    return f' data-c="{_escape(colour)}"' if colour else ""


@register.simple_tag
def filter_control(control: FilterControl) -> SafeString:
    """One field's conditions in the filter bar, built here as the grid's rows
    are: fifteen fields' operators and options through the template language
    were a sixth of the records page's time (bench/records_page.py). The
    markup is the template's as `{% spaceless %}` left it; every value escaped."""
    label = _escape(control.field.label)
    ops = "".join(
        f'<option value="{_escape(value)}"{" selected" if value == control.op else ""}>{_escape(words)}</option>'
        for value, words in control.operators
    )
    parts = [
        f'<fieldset class="filter"><legend>{label}</legend>'
        f'<select class="filter-op" name="{_escape(control.op_name)}" aria-label="{label}: condition">{ops}</select>'
    ]
    name = _escape(control.name)
    value = _escape(control.value)
    kind = control.control
    if kind in ("choice", "multi"):
        options = "".join(
            f'<label class="filter-option"><input type="checkbox" name="{name}" value="{_escape(option.id)}"'
            f"{' checked' if option.id in control.values else ''}>"
            f'<span class="chip"{_colour(option.color)}>{_escape(option.label)}</span></label>'
            for option in control.field.options
        )
        parts.append(
            f'<div class="filter-options filter-value" role="group" aria-label="{label}: options">{options}</div>'
        )
    elif kind == "boolean":
        chosen = {"true": "", "false": ""}
        if control.value in chosen:
            chosen[control.value] = " selected"
        parts.append(
            f'<select class="filter-value" name="{name}" aria-label="Filter {label}"><option value="">Any</option>'
            f'<option value="true"{chosen["true"]}>Yes</option><option value="false"{chosen["false"]}>No</option>'
            "</select>"
        )
    elif kind == "number":
        parts.append(
            f'<input class="filter-value" type="number" step="any" name="{name}" value="{value}"'
            f' aria-label="Filter {label}"><label class="filter-to">and <input type="number" step="any"'
            f' name="{_escape(control.upper_name)}" value="{_escape(control.upper)}" aria-label="{label}: up to">'
            "</label>"
        )
    elif kind in ("date", "datetime"):
        parts.append(
            f'<input class="filter-value" type="date" name="{name}" value="{value}" aria-label="Filter {label}">'
            f'<label class="filter-to">and <input type="date" name="{_escape(control.upper_name)}"'
            f' value="{_escape(control.upper)}" aria-label="{label}: up to"></label>'
            f'<label class="filter-days"><input type="number" min="0" max="36500" step="1" inputmode="numeric"'
            f' name="{_escape(control.days_name)}" value="{_escape(control.days)}"'
            f' aria-label="{label}: number of days"> days</label>'
        )
    elif kind == "text":
        parts.append(
            f'<input class="filter-value" type="text" name="{name}" value="{value}" aria-label="Filter {label}">'
        )
    parts.append("</fieldset>")
    return SafeString("".join(parts))
