"""One chunk of a job made of item rows (a bulk decision's approvals, a bulk
rerun's runs): the items still to do, a few at a time and in order, each
worked by its kind and keeping its own outcome. A remote error the kind
lets through concerns the whole job: the engine's one rule (a wait or a
stop, dashboard/jobs/engine.py `step_for_error`), or the kind's own words
for it; what was done before stays done."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from django.db.models import QuerySet

from dashboard.api import errors
from dashboard.jobs.engine import step_for_error
from dashboard.jobs.kinds import MORE, Step

DEACTIVATED = "Stopped: the person who started it was deactivated."


def items_step(
    *,
    owner_key: Any,
    to_do: QuerySet,
    size: int,
    work: Callable[[Any], None],
    stop_words: Callable[[errors.ApiError], str] | None = None,
) -> Step:
    """Work up to `size` rows of `to_do` (ordered), then say what comes next:
    more while rows are left, done when none are. `stop_words`: the kind's
    words for an error that stops the job ("" leaves it to the engine's rule)."""
    if not owner_key.user.is_active:
        return Step(stop_message=DEACTIVATED)
    progressed = False
    for item in list(to_do[:size]):
        try:
            work(item)
        except errors.ApiError as exc:
            words = stop_words(exc) if stop_words else ""
            if words:
                return Step(stop_message=words)
            return replace(step_for_error(exc), progressed=progressed)
        progressed = True
    return MORE if to_do.exists() else Step(done=True)
