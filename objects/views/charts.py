"""The chart of an object's records (or of a saved view): count, sum or
average grouped by a choice or a date's day, week or month. The numbers come
from a tally (objects/tallies.py) a background job counts over every page;
the page polls it (204 unchanged, 286 once counted) and shows the bars with
the same numbers as a table beside them."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from dashboard.accounts.middleware import background_request
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import poll_row, stop_polling
from objects import looks
from objects.buckets import DATE_TYPES, groupable, summable
from objects.charts import BUCKETS, MEASURES, ChartQuestion, chart_drawing, chart_fields, chart_rows
from objects.fields import field_defs
from objects.models import RecordTally
from objects.records import look_context, object_definition
from objects.tallies import tally_params, tally_rows, tally_start, tally_version


def _tally_params(question: ChartQuestion, context: dict, zone_name: str) -> dict:
    assert question.group is not None
    return tally_params(
        record_filter=context["record_filter"],
        group=question.group,
        bucket=question.bucket,
        value=question.value,
        zone_name=zone_name,
    )


def _region(tally: RecordTally, question: ChartQuestion, object_key: str, question_query: str) -> dict[str, Any]:
    rows = chart_rows(tally, question) if tally.status == RecordTally.DONE else []
    return {
        "tally": tally,
        "question": question,
        "question_query": question_query,
        "version": tally_version(tally),
        "rows": rows,
        "drawing": chart_drawing(rows, question) if rows else None,
        "object_key": object_key,
    }


@require_GET
def chart(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    workspace = request.workspace
    context = look_context(
        workspace=workspace, user=request.user, object_key=object_key, query=request.GET, kind=looks.CHART
    )
    fields = chart_fields(workspace_id=workspace.id, object_key=object_key, fields=context["fields"])
    question = ChartQuestion.from_query(request.GET, fields)
    question_query = urlencode([*context["filter_pairs"], *question.settings.items()])
    context.update(
        question=question,
        question_query=question_query,
        group_fields=groupable(fields),
        number_fields=summable(fields),
        measures=MEASURES,
        buckets=BUCKETS,
        date_group=question.group is not None and question.group.type in DATE_TYPES,
        # What "Save this chart" keeps: the filter and the question as chosen.
        save_query=question_query,
    )
    if question.group is not None:
        again = request.GET.get("recount") == "1"
        tally = tally_start(
            key=workspace.require_key(),
            object_key=object_key,
            params=_tally_params(question, context, workspace.timezone_name),
            again=again,
        )
        if again:
            # Counting again once: a reload of the address then shows that count.
            kept = [(name, value) for name, values in request.GET.lists() if name != "recount" for value in values]
            return redirect(f"{request.path}?{urlencode(kept)}")
        context.update(_region(tally, question, object_key, question_query))
    return render(request, "objects/chart.html", context)


@background_request
@never_cache
@require_GET
def chart_status(request: ConsoleRequest, object_key: str, pk: int) -> HttpResponse:
    """The chart's region while its count runs: 204 unchanged (one query),
    286 with the chart once counted or stopped."""
    workspace = request.workspace
    rows = tally_rows(workspace_id=workspace.id, object_key=object_key, pk=pk)
    tally = poll_row(request, rows, tally_version, missing="No such count.")
    if not isinstance(tally, RecordTally):
        return tally
    fields = chart_fields(
        workspace_id=workspace.id,
        object_key=object_key,
        fields=field_defs(object_definition(workspace=workspace, object_key=object_key)),
    )
    question = ChartQuestion.from_query(request.GET, fields)
    query = urlencode([(k, v) for k, v in request.GET.items() if k != "v"])
    response = render(request, "objects/chart.html#chart-region", _region(tally, question, object_key, query))
    return stop_polling(response, final=tally.is_final)
