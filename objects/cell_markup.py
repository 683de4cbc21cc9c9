"""The markup of one typed cell (`objects.fields.Cell`) of the records table
and the record page: numbers, marks, links (http/https only), chips in their
option colour (`data-c`, short because a 100-row grid carries it ~300 times;
painted by static/js/objects.js), thumbnails (or, for a host the CSP refuses,
the frame's placeholder naming it: dashboard/frame/images.py), files. The
table (objects/table.py) and the template tags (objects/templatetags/records.py)
both read it from here.

The markup is built in Python rather than through an included template: a
100-row page has ~1,700 cells, and an inclusion template per cell cost most
of the page's time (see bench/records_page.py).
"""

from __future__ import annotations

import functools
from html import escape as _escape
from typing import NamedTuple

from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator
from django.utils.translation import get_language, gettext, override, pgettext

from dashboard.frame.images import WEB_SCHEMES, image_allowed, image_elsewhere, image_host
from objects.fields import Cell, yes_no

LONG_TEXT_SHOWN = 80  # characters of a long text shown in a table cell (all of it in its title)


class Marks(NamedTuple):
    """The fixed pieces of markup whose words are the reader's language."""

    empty: SafeString
    yes: SafeString
    no: SafeString
    grid_yes: SafeString
    grid_no: SafeString


@functools.cache
def _marks_in(language: str | None) -> Marks:
    with override(language):
        empty = _escape(pgettext("an empty cell, read aloud", "empty"))
        yes, no = _escape(yes_no(True)), _escape(yes_no(False))
    return Marks(
        empty=mark_safe(f'<span class="cell-empty" aria-label="{empty}">—</span>'),
        yes=mark_safe(f'<span class="cell-mark cell-mark--yes" role="img" aria-label="{yes}">✓</span>'),
        no=mark_safe(f'<span class="cell-mark cell-mark--no" role="img" aria-label="{no}">✗</span>'),
        # Yes and No in words (their colour marks them), which a screen reader reads as they are.
        grid_yes=mark_safe(f'<span class="cell-mark--yes">{yes}</span>'),
        grid_no=mark_safe(f'<span class="cell-mark--no">{no}</span>'),
    )


def marks() -> Marks:
    """The active language's marks: made once per language (a grid asks per cell)."""
    return _marks_in(get_language())


def render_cell(cell: Cell | None, *, full: bool = False) -> SafeString:
    """One value's markup. Plain f-strings over `html.escape` (every piece of
    data is escaped here, once): format_html per cell was the slowest part of
    a 100-row page, and SafeString() rather than mark_safe(), whose lazy-string
    check cost more than the markup."""
    if cell is None or cell.kind == "empty":
        return marks().empty
    kind = cell.kind
    if kind == "mark":
        return marks().yes if cell.value else marks().no
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
        return marks().empty
    kind = cell.kind
    if kind in ("number", "text"):
        return SafeString(_escape(cell.text))
    if kind == "mark":
        return marks().grid_yes if cell.value else marks().grid_no
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
        f"{_escape(gettext('Image on %(host)s') % {'host': host})}</a>"
    )
    return markup, True


def cell_text(cell: Cell | None) -> str:
    """A cell as plain text (the title link, the page title)."""
    if cell is None or cell.kind == "empty":
        return ""
    if cell.kind == "chips":
        return ", ".join(chip.label for chip in cell.chips)
    return cell.text


def linked_chips(records: list[tuple[str, str]]) -> SafeString:
    """Linked records as chips that open them (their title, or "Untitled")."""
    if not records:
        return marks().empty
    chips = "".join(
        f'<a class="chip chip--link" href="{_escape(url)}">{_escape(title or "Untitled")}</a>'
        if url
        else f'<span class="chip">{_escape(title or "Untitled")}</span>'  # a record the policy hides: no address
        for title, url in records
    )
    return SafeString(chips if len(records) == 1 else f'<span class="chips">{chips}</span>')
