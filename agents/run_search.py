"""Runs searched by what they said (pure): the words the console keeps of a
run, the words of a query, and the excerpt a result shows.

The insights worker (`agents.services.insights_refresh`) already reads every
run body of the runs lists; it keeps these words on the run's fact
(`RunFact.search_text`) so a search is a query of the console's database and
never a remote call. What is kept: what woke the run (its message and
payload), its answer, every step's name, input, result and error, and the
run's own error. Values are flattened to "key value" text (keys are words a
person may search for too: "invoice_id 4411"), capped per run so one run
with a huge payload cannot grow the table without bound.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from dashboard.live.storable import storable_text
from dashboard.web.reading import as_dict, as_list, error_message, text

# What one run keeps at most (characters); past it the rest is not searchable.
MAX_RUN_TEXT = 20_000
# How deep a nested value is followed (deeper parts are not searched).
MAX_DEPTH = 12
# A query's words at most, and each word's length at most.
MAX_QUERY_WORDS = 8
MAX_WORD = 64
EXCERPT_AROUND = 60
# PostgreSQL's text search configuration: English stems ("refunds" finds
# "refund"); the stored vector and every query use the same one.
SEARCH_CONFIG = "english"

_WORD = re.compile(r"[\w@.\-']+", re.UNICODE)


def _flat(value: Any, depth: int = 0) -> Iterator[str]:
    """The words of any JSON value: strings and numbers as they are, an
    object's keys beside its values; booleans and nulls carry no words."""
    if depth > MAX_DEPTH or value is None or isinstance(value, bool):
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            yield text(key)
            yield from _flat(inner, depth + 1)
    elif isinstance(value, list):
        for inner in value:
            yield from _flat(inner, depth + 1)
    elif isinstance(value, str | int | float):
        yield text(value)


def run_words(body: Any) -> str:
    """The searchable text of one run body (`GET /v1/runs/{id}` or an item
    of a runs list), read tolerantly: any member may be missing or odd."""
    run = as_dict(body)
    event = run.get("event")
    event_data = as_dict(event)
    parts: list[str] = []
    if isinstance(event, str):
        parts.append(event)
    parts += [text(event_data.get("message")) if isinstance(event_data.get("message"), str) else ""]
    parts += list(_flat(event_data.get("payload")))
    parts.append(text(run.get("answer")) if isinstance(run.get("answer"), str) else "")
    for step in as_list(run.get("steps")):
        if not isinstance(step, dict):
            parts += list(_flat(step))
            continue
        parts += [text(step.get("label")), text(step.get("kind"))]
        parts += list(_flat(step.get("input")))
        parts += list(_flat(step.get("result")))
        if step.get("error"):
            parts.append(error_message(step.get("error")))
    if run.get("error"):
        parts.append(error_message(run.get("error")))
    joined = " ".join(part for part in parts if part)
    return storable_text(" ".join(joined.split()), limit=MAX_RUN_TEXT)


def query_words(query: Any) -> list[str]:
    """The words a search looks for (all of them must be in a run), at most
    MAX_QUERY_WORDS, each cut to MAX_WORD characters; [] for nothing to look for."""
    found = _WORD.findall(storable_text(text(query), limit=500))
    words = [word.strip(".-'")[:MAX_WORD] for word in found]
    return list(dict.fromkeys(word for word in words if word))[:MAX_QUERY_WORDS]


def excerpt(words_of_run: str, query: list[str]) -> str:
    """Where the first query word occurs in a run's text, with some text
    around it ("…sent the refund of 40 EUR to…"); the text's start when no
    word occurs as typed (the full-text search matched a stemmed form)."""
    if not words_of_run:
        return ""
    lowered = words_of_run.lower()
    places = [lowered.find(word.lower()) for word in query]
    found = [place for place in places if place >= 0]
    at = min(found) if found else 0
    start, end = max(0, at - EXCERPT_AROUND), min(len(words_of_run), at + EXCERPT_AROUND * 2)
    return ("…" if start else "") + words_of_run[start:end].strip() + ("…" if end < len(words_of_run) else "")
