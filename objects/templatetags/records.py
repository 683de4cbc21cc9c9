"""The Objects pages' tags: a typed cell of the records table and the record
page (`{% record_cell cell %}`, `{% records_grid_cell cell %}`, their markup
built below the table in objects/cell_markup.py), a table's background total
in words, and one field's conditions in the filter bar."""

from __future__ import annotations

from html import escape as _escape

from django import template
from django.utils.safestring import SafeString

from objects.cell_markup import cell_text, grid_cell, render_cell
from objects.condition_editor import FilterControl
from objects.fields import Cell
from objects.links import relation_label

register = template.Library()


@register.simple_tag
def records_grid_cell(cell: Cell | None) -> SafeString:
    return grid_cell(cell)


@register.simple_tag
def record_cell(cell: Cell | None, full: bool = False) -> SafeString:
    return render_cell(cell, full=full)


register.filter("relation_label", relation_label)  # a relation key in words (objects/links.py)


register.filter("cell_text", cell_text)  # a cell as plain text (objects/cell_markup.py)


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
