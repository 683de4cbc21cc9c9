"""The insights charts' geometry (dashboard/web/charts.py): pure, no database."""

from __future__ import annotations

import pytest

from dashboard.web import charts

FRAME = charts.FRAME


@pytest.mark.parametrize(
    ("span", "count", "step"),
    [(37, 4, 10), (4, 4, 1), (9, 4, 5), (0.37, 4, 0.1), (1200, 4, 500), (3.5, 4, 1)],
)
def test_nice_step_is_one_two_or_five_times_a_power_of_ten(span, count, step):
    assert charts.nice_step(span, count) == pytest.approx(step)


def test_ticks_start_at_zero_and_end_at_or_above_the_maximum():
    assert charts.ticks(37) == [0, 10, 20, 30, 40]
    assert charts.ticks(40) == [0, 10, 20, 30, 40]
    assert charts.ticks(0) == [0, 1]  # an empty chart still has an axis
    assert charts.ticks(0.03) == pytest.approx([0, 0.01, 0.02, 0.03])


def test_counts_tick_in_whole_numbers():
    assert charts.ticks(3, whole=True) == [0, 1, 2, 3]
    assert all(value == int(value) for value in charts.ticks(2, whole=True))


def test_time_ticks_are_round_minutes_and_hours():
    assert charts.ticks(8000, steps=charts.SECOND_STEPS) == [0, 3600, 7200, 10800]
    assert charts.ticks(100, steps=charts.SECOND_STEPS) == [0, 30, 60, 90, 120]
    assert charts.ticks(1000, steps=charts.SECOND_STEPS) == [0, 300, 600, 900, 1200]
    # Past the longest step, round numbers of days' seconds.
    assert charts.ticks(10 * 86400, steps=charts.SECOND_STEPS)[-1] >= 10 * 86400


def test_the_scale_puts_zero_on_the_baseline_and_the_top_at_the_plots_top():
    scale = charts.Scale(top=40)
    assert scale.y(0) == FRAME.baseline
    assert scale.y(40) == FRAME.top
    assert scale.y(20) == pytest.approx(FRAME.top + FRAME.plot_height / 2)
    assert scale.y(80) == FRAME.top  # never above the plot
    assert charts.Scale(top=0).y(5) == FRAME.baseline


def test_axis_labels_each_tick_at_its_height():
    axis = charts.axis(37, lambda value: f"{value:g} runs", whole=True)
    assert [tick.label for tick in axis.ticks] == ["0 runs", "10 runs", "20 runs", "30 runs", "40 runs"]
    assert axis.ticks[0].y == FRAME.baseline
    assert axis.ticks[-1].y == FRAME.top


def test_slots_are_equal_and_thirty_days_keep_at_most_eight_labels_ending_today():
    labels = [f"d{index}" for index in range(30)]
    slots = charts.slots(labels)
    width = FRAME.plot_width / 30
    assert slots[0].centre == pytest.approx(FRAME.left + width / 2, abs=0.1)
    assert slots[1].centre - slots[0].centre == pytest.approx(width, abs=0.2)
    assert all(slot.bar_width == pytest.approx(width * charts.BAR_FILL, abs=0.1) for slot in slots)
    shown = [slot.label for slot in slots if slot.label]
    assert len(shown) <= charts.MAX_DAY_LABELS
    assert shown[-1] == "d29"
    assert [slot.label for slot in charts.slots(["a", "b", "c"])] == ["a", "b", "c"]
    assert charts.slots([]) == []


def test_stacked_columns_stack_segments_in_order_from_the_baseline():
    scale = charts.Scale(top=10)
    slots = charts.slots(["Mon", "Tue"])
    columns = charts.stacked_columns(
        [{"ok": 4, "bad": 2}, {"ok": 0, "bad": 0}],
        ("ok", "bad"),
        scale=scale,
        slots_=slots,
        describe=lambda index, key, value: f"{index}:{key}:{value:g}",
    )
    first, empty = columns
    assert first.total == 6
    ok, bad = first.segments
    assert ok.y + ok.height == pytest.approx(FRAME.baseline, abs=0.1)  # on the baseline
    assert bad.y + bad.height == pytest.approx(ok.y, abs=0.1)  # on top of the first
    assert ok.height == pytest.approx(FRAME.plot_height * 0.4, abs=0.1)
    assert bad.y == pytest.approx(scale.y(6), abs=0.1)
    assert (ok.title, bad.title) == ("0:ok:4", "0:bad:2")
    assert ok.x == slots[0].bar_x and ok.width == slots[0].bar_width
    assert empty.segments == [] and empty.total == 0


def test_a_line_breaks_where_a_day_has_no_value():
    scale = charts.Scale(top=100)
    slots = charts.slots(["a", "b", "c", "d", "e"])
    line = charts.line("p50", [10, 20, None, 30, None], scale=scale, slots_=slots)
    assert [point.value for point in line.points] == [10, 20, 30]
    assert [point.index for point in line.points] == [0, 1, 3]
    assert len(line.paths) == 1  # "a-b"; "d" alone is a point, not a line
    assert line.paths[0] == f"{slots[0].centre:g},{scale.y(10):g} {slots[1].centre:g},{scale.y(20):g}"
    assert charts.line("p95", [None, None, None, None, None], scale=scale, slots_=slots).points == []


def test_values_below_zero_tick_down_to_a_round_bottom_with_zero_among_the_ticks():
    assert charts.signed_ticks(-37, 12) == [-40, -20, 0, 20]
    assert charts.signed_ticks(-3, 0, whole=True) == [-3, -2, -1, 0]
    assert charts.signed_ticks(0, 37) == charts.ticks(37)  # nothing below zero: as before
    axis = charts.axis(12, lambda value: f"{value:g}", minimum=-37)
    assert [tick.label for tick in axis.ticks] == ["-40", "-20", "0", "20"]
    assert axis.ticks[0].y == FRAME.baseline and axis.ticks[-1].y == FRAME.top
    zero = axis.scale.zero
    assert zero == pytest.approx(FRAME.top + FRAME.plot_height / 3)  # 20 of the 60 above zero
    assert axis.scale.y(-40) == FRAME.baseline and axis.scale.y(-400) == FRAME.baseline  # never below the plot
    assert charts.Scale(top=40).zero == FRAME.baseline  # an axis from zero: zero is the baseline
