"""Tolerant readers of remote bodies.

The contract leaves many inner shapes open ("not shown"), and a second,
independent implementation of the service must work too. These helpers take
what a page needs from any JSON value and never raise on an odd shape;
what they don't know is kept for the generic JSON view
(`{% load live_tags %}{% json_view value %}`), never shown as `str()` of a
dict or list.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def text(value: Any) -> str:
    """A value as text: "" for None; JSON for a dict or list (never its repr)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def when(value: Any) -> datetime | None:
    """An ISO 8601 timestamp as an aware datetime (templates localise it)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return parse_datetime(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def pretty_json(value: Any) -> str:
    """The exact value as indented JSON: shown as it is, not reformatted into prose."""
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError):
        return text(value)


def error_message(value: Any) -> str:
    """An `error` member: a string, `{message, type}`, or any other object
    (its fields are not shown by the contract: then the JSON of it)."""
    if isinstance(value, dict):
        said = value.get("message") or value.get("type")
        return text(said) if said else (text(value) if value else "")
    return text(value)


def number(value: Any) -> int | float | None:
    """A JSON number (a bool is not one)."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def read_questions(raw: Any) -> list[dict[str, Any]]:
    """Questions asked of a person (the agent builder, a studio's director)
    as [{text, options: [str]}]; plain strings are questions without options."""
    questions = []
    for item in as_list(raw):
        if isinstance(item, dict):
            options = [text(option) for option in as_list(item.get("options")) if option not in (None, "")]
            questions.append({"text": text(item.get("text") or item.get("question")), "options": options})
        elif item not in (None, ""):
            questions.append({"text": text(item), "options": []})
    return questions


def others(body: Any, known: frozenset[str] | set[str]) -> dict[str, Any]:
    """The members of `body` a page does not show in their own place."""
    return {key: value for key, value in as_dict(body).items() if key not in known}
