"""The request id in every task: sent in the task's headers (never its
arguments), current while the task runs, kept on an outbox message until it
is published (the sweeper's own id does not replace it); one log line per
task run."""

from __future__ import annotations

import pytest
from django.utils import timezone

from dashboard.celery import app
from dashboard.observability.context import REQUEST_ID_PATTERN, current_request_id, request_id_scope
from dashboard.observability.task_context import HEADER, on_before_task_publish
from dashboard.outbox.models import OutboxMessage
from dashboard.outbox.services import outbox_publish, outbox_send

ECHO = "tests.observability.echo"
seen: list[str | None] = []


@app.task(name=ECHO)
def echo(*args: object) -> None:
    """Records the request id current while it runs."""
    seen.append(current_request_id())


@pytest.fixture(autouse=True)
def nothing_seen():
    seen.clear()


def test_a_message_sent_during_a_request_carries_its_id_in_the_headers():
    headers: dict[str, object] = {"id": "task-1"}
    with request_id_scope("req_console_sender"):
        on_before_task_publish(headers=headers)
    assert headers[HEADER] == "req_console_sender"

    named = {"id": "task-2", HEADER: "req_console_stored"}
    with request_id_scope("req_console_sweeper"):
        on_before_task_publish(headers=named)
    assert named[HEADER] == "req_console_stored"  # a sender that named one keeps it

    outside: dict[str, object] = {"id": "task-3"}
    on_before_task_publish(headers=outside)
    assert HEADER not in outside


def test_a_task_runs_under_the_id_of_its_headers_and_logs_one_line(eager_celery, json_logs):
    result = echo.apply_async(args=[1], headers={HEADER: "req_console_from_header"})

    assert seen == ["req_console_from_header"]
    (line,) = json_logs.of("dashboard.task")
    assert line["task"] == ECHO and line["task_id"] == result.id
    assert line["request_id"] == "req_console_from_header"
    assert line["status"] == "success" and isinstance(line["duration_ms"], float)
    assert current_request_id() is None  # put back after the run


def test_a_task_sent_with_no_id_gets_one_per_run(eager_celery, json_logs):
    echo.apply_async()
    echo.apply_async()

    first, second = seen
    assert first != second and REQUEST_ID_PATTERN.fullmatch(first)
    assert [line["request_id"] for line in json_logs.of("dashboard.task")] == seen


def test_an_eager_task_inside_a_request_keeps_its_id(eager_celery):
    with request_id_scope("req_console_page"):
        echo.delay()
    assert seen == ["req_console_page"]


def test_a_header_of_an_unsafe_shape_is_not_taken(eager_celery):
    echo.apply_async(headers={HEADER: "two words\nand a line"})
    assert seen[0] != "two words\nand a line" and REQUEST_ID_PATTERN.fullmatch(seen[0])


def test_a_failed_task_logs_its_failure(eager_celery, json_logs):
    @app.task(name="tests.observability.fails")
    def fails() -> None:
        raise RuntimeError("broken on purpose")

    with pytest.raises(RuntimeError):
        fails.apply_async(headers={HEADER: "req_console_failing"}, throw=True)

    (line,) = json_logs.of("dashboard.task")
    assert line["status"] == "failure" and line["level"] == "WARNING"
    assert line["request_id"] == "req_console_failing"


def test_the_outbox_keeps_the_request_id_until_the_sweeper_publishes(db, eager_celery):
    with request_id_scope("req_console_start"):
        message = outbox_send(task=ECHO, args=[7])
    assert OutboxMessage.objects.get(pk=message.pk).request_id == "req_console_start"

    # Published later, by the sweeper running under an id of its own.
    with request_id_scope("req_console_sweep"):
        report = outbox_publish(now=timezone.now() + timezone.timedelta(seconds=60))

    assert report.sent == 1
    assert seen == ["req_console_start"]


def test_a_quiet_beat_task_logs_its_success_at_debug(db, eager_celery, json_logs):
    from dashboard.outbox.tasks import sweep

    sweep.apply_async()

    (line,) = json_logs.of("dashboard.task")
    assert line["task"] == "outbox.sweep" and line["level"] == "DEBUG"
