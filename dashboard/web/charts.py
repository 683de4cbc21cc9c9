"""The geometry of charts drawn by the server as SVG (agents insights, objects charts).

Pure (no Django, no database, no remote call): a chart
is numbers in, shapes out (rectangles, polylines, ticks), every coordinate
in the SVG's own viewBox units, rounded to 0.1 so pages stay small. The
template draws them and says what they mean; colours are CSS classes
(static/css/agents.css), never written here, so either theme can paint them.

Every chart shares one frame: a plot area inside margins for the y axis's
labels (left) and the days (below). Days are equal slots left to right.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

WIDTH = 640
HEIGHT = 220
LEFT = 56  # room for the y labels ("$12.50", "3 min")
RIGHT = 8
TOP = 10
BOTTOM = 26  # room for the day labels
# Of a day's slot, the part its bar fills (the rest is the gap between days).
BAR_FILL = 0.7
# At most this many day labels under a chart: 30 labels would overlap.
MAX_DAY_LABELS = 8


def _r(value: float) -> float:
    return round(value, 1)


@dataclass(frozen=True)
class Frame:
    """The plot area in viewBox units."""

    width: float = WIDTH
    height: float = HEIGHT
    left: float = LEFT
    right: float = RIGHT
    top: float = TOP
    bottom: float = BOTTOM

    @property
    def plot_width(self) -> float:
        return self.width - self.left - self.right

    @property
    def plot_height(self) -> float:
        return self.height - self.top - self.bottom

    @property
    def baseline(self) -> float:
        return self.top + self.plot_height

    @property
    def plot_right(self) -> float:
        return self.width - self.right

    @property
    def label_x(self) -> float:
        """Where the y labels end (right-aligned just left of the plot)."""
        return self.left - 6

    @property
    def label_y(self) -> float:
        """The day labels' baseline, under the plot."""
        return self.height - 8

    @property
    def view_box(self) -> str:
        return f"0 0 {self.width:g} {self.height:g}"


FRAME = Frame()


def nice_step(span: float, count: int) -> float:
    """A round step (1, 2 or 5 times a power of ten) that cuts `span` into
    about `count` parts: 0-37 in 4 parts is steps of 10."""
    if span <= 0 or count < 1:
        return 1.0
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 5, 10):
        if raw <= multiple * power * (1 + 1e-9):
            return multiple * power
    return 10 * power  # pragma: no cover (the loop always returns)


# Round steps of a time axis, in seconds: a minute is not cut in tenths
# ("33 min 20 s" is no tick anyone reads), an hour not in 2000 s.
SECOND_STEPS = (
    1, 2, 5, 10, 15, 30,
    60, 120, 300, 600, 900, 1800,
    3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600,
    2 * 86400, 5 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 60 * 86400, 90 * 86400,
)  # fmt: skip
# The units of a time axis, largest first: an axis names every tick in the
# one unit its step is a whole number of ("15 min, 30 min, 45 min", never "0.75 h").
TIME_UNITS = ((86400, "d"), (3600, "h"), (60, "min"), (1, "s"))


def time_labeller(step: float) -> Callable[[float], str]:
    """Labels of a time axis with steps of `step` seconds, in one unit."""
    size, unit = next(((size, unit) for size, unit in TIME_UNITS if step >= size and step % size < 1e-9), (1, "s"))

    def label(value: float) -> str:
        return f"{value / size:g} {unit}" if value else "0"

    return label


def decimals_for(step: float, *, least: int = 0) -> int:
    """The decimals that show every multiple of `step` exactly and alike
    (0.005 needs 3: "0.000, 0.005, 0.010"), at least `least`."""
    if step <= 0 or step >= 1:
        return least
    return max(least, -math.floor(math.log10(step) + 1e-9))


def tick_step(maximum: float, count: int = 4, *, whole: bool = False, steps: Sequence[float] | None = None) -> float:
    """The step of `ticks(maximum, ...)`: what one precision of its labels is chosen from."""
    values = ticks(maximum, count, whole=whole, steps=steps)
    return values[1] - values[0]


def ticks(maximum: float, count: int = 4, *, whole: bool = False, steps: Sequence[float] | None = None) -> list[float]:
    """Tick values from 0 to a round top at or above `maximum` (0 alone
    becomes 0..1, so an empty chart still has an axis). `whole` keeps steps
    at whole numbers (counts of runs: no "2.5 runs"); `steps` are the round
    steps to choose from (SECOND_STEPS for durations), the first that cuts
    `maximum` into at most `count` parts."""
    maximum = max(float(maximum), 0.0)
    if maximum == 0:
        return [0.0, 1.0]
    step = nice_step(maximum, count)
    if steps:
        step = next((float(size) for size in steps if maximum / size <= count), nice_step(maximum, count))
    if whole:
        step = max(1.0, math.ceil(step))
    top = math.ceil(maximum / step - 1e-9) * step
    values = []
    index = 0
    while index * step <= top + step * 1e-9:
        values.append(round(index * step, 10))
        index += 1
    return values


def signed_ticks(minimum: float, maximum: float, count: int = 4, *, whole: bool = False) -> list[float]:
    """Tick values from a round bottom at or below `minimum` to a round top
    at or above `maximum`, one step apart and 0 among them (values below
    zero: a chart of losses and gains). With nothing below zero, `ticks`."""
    minimum, maximum = min(float(minimum), 0.0), max(float(maximum), 0.0)
    if minimum == 0:
        return ticks(maximum, count, whole=whole)
    step = nice_step(maximum - minimum, count)
    if whole:
        step = max(1.0, math.ceil(step))
    low = math.floor(minimum / step + 1e-9)
    high = math.ceil(maximum / step - 1e-9)
    return [round(index * step, 10) for index in range(low, high + 1)]


@dataclass(frozen=True)
class Scale:
    """Values bottom..top onto the plot's height (`bottom`, 0 unless some
    value is below zero, at the baseline)."""

    top: float
    frame: Frame = FRAME
    bottom: float = 0.0

    def y(self, value: float) -> float:
        span = self.top - self.bottom
        if span <= 0:
            return self.frame.baseline
        share = min(max((value - self.bottom) / span, 0.0), 1.0)
        return self.frame.baseline - share * self.frame.plot_height

    @property
    def zero(self) -> float:
        """Where zero is: the line bars rise above and fall below."""
        return self.y(0.0)


@dataclass(frozen=True)
class Tick:
    value: float
    y: float
    label: str


@dataclass(frozen=True)
class Axis:
    scale: Scale
    ticks: list[Tick]


def axis(
    maximum: float,
    label: Callable[[float], str],
    *,
    whole: bool = False,
    steps: Sequence[float] | None = None,
    frame: Frame = FRAME,
    minimum: float = 0.0,
) -> Axis:
    """The y axis of values up to `maximum` (and down to `minimum` when it
    is below zero): its scale and labelled ticks."""
    values = signed_ticks(minimum, maximum, whole=whole) if minimum < 0 else ticks(maximum, whole=whole, steps=steps)
    scale = Scale(top=values[-1], frame=frame, bottom=min(values[0], 0.0))
    return Axis(scale=scale, ticks=[Tick(value, _r(scale.y(value)), label(value)) for value in values])


@dataclass(frozen=True)
class Slot:
    """A day's place on the x axis: its centre and its bar's left edge and width."""

    index: int
    centre: float
    bar_x: float
    bar_width: float
    label: str  # "" where the day is not labelled (too many days)


def slots(labels: Sequence[str], *, frame: Frame = FRAME) -> list[Slot]:
    """Equal slots for `labels` (days, oldest first). Past MAX_DAY_LABELS
    days, every n-th is labelled, counting back from the last (today)."""
    count = len(labels)
    if count == 0:
        return []
    width = frame.plot_width / count
    every = max(1, math.ceil(count / MAX_DAY_LABELS))
    bar = width * BAR_FILL
    result = []
    for index, label in enumerate(labels):
        centre = frame.left + width * (index + 0.5)
        shown = label if (count - 1 - index) % every == 0 else ""
        result.append(Slot(index, _r(centre), _r(centre - bar / 2), _r(bar), shown))
    return result


@dataclass(frozen=True)
class Segment:
    """One outcome's part of a day's bar; `title` is its tooltip."""

    key: str
    value: float
    x: float
    y: float
    width: float
    height: float
    title: str = ""


@dataclass(frozen=True)
class Column:
    slot: Slot
    total: float
    segments: list[Segment] = field(default_factory=list)


def stacked_columns(
    values: Sequence[dict[str, float]],
    keys: Sequence[str],
    *,
    scale: Scale,
    slots_: Sequence[Slot],
    describe: Callable[[int, str, float], str] | None = None,
) -> list[Column]:
    """A column per day, its segments stacked from the baseline in `keys`
    order; a zero value has no segment (nothing to draw, nothing to hover).
    `describe(day index, key, value)` words a segment's tooltip."""
    columns = []
    for slot, day in zip(slots_, values, strict=True):
        bottom = 0.0
        segments = []
        for key in keys:
            value = float(day.get(key) or 0)
            if value <= 0:
                continue
            y_top, y_bottom = scale.y(bottom + value), scale.y(bottom)
            title = describe(slot.index, key, value) if describe else ""
            segments.append(Segment(key, value, slot.bar_x, _r(y_top), slot.bar_width, _r(y_bottom - y_top), title))
            bottom += value
        columns.append(Column(slot, bottom, segments))
    return columns


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    value: float
    label: str
    index: int = 0  # the day's slot


@dataclass(frozen=True)
class Line:
    """A series as polylines: a day without a value breaks the line (no
    made-up value is drawn between two known ones), and every known day is a
    point (a lone day between two gaps is a dot, not an invisible line)."""

    key: str
    points: list[Point]
    paths: list[str]


def line(
    key: str,
    values: Sequence[float | None],
    *,
    scale: Scale,
    slots_: Sequence[Slot],
    describe: Callable[[int, float], str] | None = None,
) -> Line:
    """`describe(day index, value)` words a point's tooltip."""
    points: list[Point] = []
    paths: list[str] = []
    run: list[str] = []
    for slot, value in zip(slots_, values, strict=True):
        if value is None:
            if len(run) > 1:
                paths.append(" ".join(run))
            run = []
            continue
        y = _r(scale.y(value))
        points.append(
            Point(slot.centre, y, value, describe(slot.index, value) if describe else f"{value:g}", slot.index)
        )
        run.append(f"{slot.centre:g},{y:g}")
    if len(run) > 1:
        paths.append(" ".join(run))
    return Line(key, points, paths)
