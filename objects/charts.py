"""A chart of records: a tally (objects/tallies.py) read as rows (each
group's label and number, in the field's own order) and drawn as bars with
the core's chart geometry (dashboard/web/charts.py). The page shows the
same rows as a table beside the drawing, so the numbers are there for a
screen reader and to copy."""

from __future__ import annotations

import datetime as dt
import decimal
from dataclasses import dataclass

from django.http import QueryDict

from dashboard.web import charts, local_formats
from dashboard.web.pager import choice
from objects import computed
from objects.buckets import BUCKETS, DATE_TYPES, EMPTY, MONTH, WEEK, groupable, summable
from objects.fields import FieldDef, format_number, yes_no
from objects.models import RecordTally
from objects.schema import FieldType
from objects.tallies import tally_groups

COUNT, SUM, AVERAGE = "count", "sum", "average"
MEASURES = [(COUNT, "Number of records"), (SUM, "Sum"), (AVERAGE, "Average")]
# At most this many bars: past it the chart says how many more the table lists.
MAX_BARS = 60
SHORT_LABEL = 12
FRAME = charts.Frame(width=640, height=240, left=64, bottom=30)


def chart_fields(*, workspace_id: str, object_key: str, fields: list[FieldDef]) -> list[FieldDef]:
    """The fields a chart may group by or measure: the object's, then its
    formula columns (computed on every record the chart's count reads; a
    lookup or rollup would need each record's links)."""
    formulas = computed.counted_specs(workspace_id=workspace_id, object_key=object_key, fields=fields)
    return [*fields, *computed.counted_fields(formulas)]


@dataclass(frozen=True)
class ChartQuestion:
    """What the chart shows: grouped by which field (and date bucket), which
    measure of which number field."""

    group: FieldDef | None
    bucket: str
    measure: str
    value: FieldDef | None

    @classmethod
    def from_query(cls, query: QueryDict | dict, fields: list[FieldDef]) -> ChartQuestion:
        groups = {f.key: f for f in groupable(fields)}
        numbers = {f.key: f for f in summable(fields)}
        group = groups.get(query.get("group") or "") or next(iter(groups.values()), None)
        value = numbers.get(query.get("value") or "") or next(iter(numbers.values()), None)
        measure = choice(query.get("measure"), MEASURES, default=COUNT)
        if value is None:
            measure = COUNT
        bucket = choice(query.get("bucket"), BUCKETS, default=MONTH)
        # The number field is kept for a count too: one tally answers all three measures.
        return cls(group=group, bucket=bucket, measure=measure, value=value)

    @property
    def settings(self) -> dict[str, str]:
        """As a saved view keeps it (and as the page's address carries it)."""
        out = {"group": self.group.key if self.group else "", "measure": self.measure}
        if self.group is not None and self.group.type in DATE_TYPES:
            out["bucket"] = self.bucket
        if self.value is not None and self.measure != COUNT:
            out["value"] = self.value.key
        return out

    @property
    def title(self) -> str:
        if self.group is None:
            return ""
        what = "Records" if self.measure == COUNT else f"{dict(MEASURES)[self.measure]} of {self.value.label.lower()}"  # type: ignore[union-attr]
        by = self.group.label.lower()
        if self.group.type in DATE_TYPES:
            by = f"{by} ({dict(BUCKETS)[self.bucket].lower()})"
        return f"{what} by {by}"


@dataclass(frozen=True)
class ChartRow:
    label: str
    number: float
    shown: str  # the number as the table shows it
    records: int
    short: str = ""  # under its bar: a few characters


def group_label(field: FieldDef, key: str, bucket: str, *, short: bool = False) -> str:
    """A group as the table names it, or `short` as its bar is labelled."""
    if short and field.type not in DATE_TYPES:
        full = group_label(field, key, bucket)
        return full if len(full) <= SHORT_LABEL else full[: SHORT_LABEL - 1] + "…"
    if key == EMPTY:
        return "No value"
    if field.is_choice:
        option = field.option_for(key)
        return option.label if option else key
    if field.type == FieldType.BOOLEAN:
        return yes_no(key == "true")
    if field.type in DATE_TYPES:
        formats = local_formats.active()  # month names and day order as the language writes them
        try:
            if bucket == MONTH:
                month = dt.date.fromisoformat(f"{key}-01")
                return formats.month_shorter(month) if short else formats.month_short(month)
            day = dt.date.fromisoformat(key)
        except ValueError:
            return key
        if short:
            return formats.day_short(day)
        return f"Week of {formats.day(day)}" if bucket == WEEK else formats.day(day)
    return key


def _order(field: FieldDef, keys: list[str]) -> list[str]:
    """The field's own order: options as listed, yes before no, dates in time; "No value" last."""
    if field.is_choice:
        known = [o.id for o in field.options if o.id in keys]
        rest = sorted(k for k in keys if k not in known and k != EMPTY)
        ordered = known + rest
    elif field.type == FieldType.BOOLEAN:
        ordered = [k for k in ("true", "false") if k in keys]
    else:
        ordered = sorted(k for k in keys if k != EMPTY)
    return ordered + ([EMPTY] if EMPTY in keys else [])


def _shown(question: ChartQuestion, number: decimal.Decimal | int | None) -> str:
    if number is None:
        return "–"
    formats = local_formats.active()
    if question.measure == COUNT:
        return formats.integer(int(number))
    places = 2 if question.value is not None and question.value.type == FieldType.CURRENCY else None
    if question.measure == AVERAGE:
        places = 2
    text = format_number(number, places=places, formats=formats)
    code = question.value.raw.get("currency") if question.value is not None else ""
    return formats.amount(text, code or "")


def chart_rows(tally: RecordTally, question: ChartQuestion) -> list[ChartRow]:
    if question.group is None:
        return []
    groups = tally_groups(tally)
    rows = []
    for key in _order(question.group, list(groups)):
        group = groups[key]
        if question.measure == SUM:
            number: decimal.Decimal | int | None = group.total
        elif question.measure == AVERAGE:
            number = group.average
        else:
            number = group.count
        rows.append(
            ChartRow(
                label=group_label(question.group, key, question.bucket),
                number=float(number or 0),
                shown=_shown(question, number),
                records=group.count,
                short=group_label(question.group, key, question.bucket, short=True),
            )
        )
    return rows


@dataclass(frozen=True)
class Bar:
    centre: float
    x: float
    y: float
    width: float
    height: float
    label: str  # under the bar ("" when too many to label)
    title: str  # its tooltip: label and number
    below: bool = False  # a number below zero: the bar hangs from the zero line


@dataclass(frozen=True)
class ChartDrawing:
    frame: charts.Frame
    axis: charts.Axis
    bars: list[Bar]
    left_out: int  # rows past MAX_BARS (listed in the table only)
    zero: float | None = None  # the zero line's height when some bar falls below it


def chart_drawing(rows: list[ChartRow], question: ChartQuestion) -> ChartDrawing:
    """Bars from the zero line: up for a number above zero, down for one
    below (a sum or an average of a field that holds losses); the axis
    reaches from the lowest to the highest, zero among its ticks."""
    drawn = rows[:MAX_BARS]
    top = max([r.number for r in drawn if r.number > 0], default=0)
    bottom = min([r.number for r in drawn if r.number < 0], default=0)
    axis = charts.axis(
        top,
        lambda v: _shown(question, int(v) if question.measure == COUNT else decimal.Decimal(str(v))),
        whole=question.measure == COUNT,
        frame=FRAME,
        minimum=bottom,
    )
    zero = axis.scale.zero
    slots = charts.slots([r.short for r in drawn], frame=FRAME)
    bars = []
    for slot, row in zip(slots, drawn, strict=True):
        y = axis.scale.y(row.number)
        bars.append(
            Bar(
                centre=slot.centre,
                x=slot.bar_x,
                y=round(min(y, zero), 1),
                width=slot.bar_width,
                height=round(abs(zero - y), 1),
                label=slot.label,
                title=f"{row.label}: {row.shown}",
                below=row.number < 0,
            )
        )
    return ChartDrawing(
        frame=FRAME,
        axis=axis,
        bars=bars,
        left_out=max(0, len(rows) - MAX_BARS),
        zero=round(zero, 1) if bottom < 0 else None,
    )
