"""JSON typed by a person (an event payload, a link's metadata), parsed strictly.

Python's `json.loads` accepts things no other JSON reader does, and some of
them break the console later instead of at the form: `NaN` and `Infinity`
(and `1e999`, which becomes infinity), `"\\ud800"` escapes that decode to a
lone surrogate (httpx then cannot encode the body), nesting deep enough to
exhaust the recursion limit, numbers too long for `int()`. `parse_json_input`
refuses each of them with a message that names the line and column, checked
in one pass over the text before `json.loads` ever sees it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from dashboard.web.local_formats import integer

MAX_JSON_CHARS = 64 * 1024
MAX_JSON_DEPTH = 32
MAX_NUMBER_CHARS = 100

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WORD = re.compile(r"-?[A-Za-z]+")
_HIGH = range(0xD800, 0xDC00)
_LOW = range(0xDC00, 0xE000)


class JsonInputError(ValueError):
    """A refusal with the person's words: `str(error)` is the message."""

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None) -> None:
        self.message = message
        self.line = line
        self.column = column
        where = f"Line {line}, column {column}: " if line is not None else ""
        super().__init__(where + message)


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


def _refuse(text: str, index: int, message: str) -> JsonInputError:
    line, column = _position(text, index)
    return JsonInputError(message, line=line, column=column)


def _escaped_code(text: str, index: int) -> int | None:
    """The code of the `\\uXXXX` escape at `index`, None when there is none."""
    digits = text[index + 2 : index + 6]
    if text[index : index + 2] != "\\u" or not re.fullmatch(r"[0-9A-Fa-f]{4}", digits):
        return None
    return int(digits, 16)


def _check_string(text: str, start: int) -> int:
    """Walk the string literal opening at `start`; refuse lone surrogates,
    raw or escaped. Returns the index just past its closing quote (or the
    end of the text: json.loads then names the unterminated string)."""
    index = start + 1
    end = len(text)
    while index < end:
        char = text[index]
        if char == '"':
            return index + 1
        if ord(char) in _HIGH or ord(char) in _LOW:
            raise _refuse(text, index, "This text holds a broken character (a lone UTF-16 surrogate).")
        if char != "\\":
            index += 1
            continue
        code = _escaped_code(text, index)
        if code is None:
            index += 2  # any other escape; json.loads judges it
            continue
        if code in _HIGH and (_escaped_code(text, index + 6) or 0) in _LOW:
            index += 12  # a surrogate pair: one character
            continue
        if code in _HIGH or code in _LOW:
            raise _refuse(
                text,
                index,
                "This \\u escape is half of a character (a lone UTF-16 surrogate); write the whole character.",
            )
        index += 6
    return end


def _scan(text: str, max_depth: int) -> None:
    """Everything `json.loads` would accept but the console must not, found
    with its position. Leaves syntax errors to `json.loads`."""
    depth = 0
    index = 0
    end = len(text)
    while index < end:
        char = text[index]
        if char == '"':
            index = _check_string(text, index)
            continue
        if char in "[{":
            depth += 1
            if depth > max_depth:
                raise _refuse(text, index, f"The JSON is nested too deeply: at most {max_depth} levels.")
        elif char in "]}":
            depth -= 1
        elif char == "-" or char.isdigit():
            number = _NUMBER.match(text, index)
            word = _WORD.match(text, index) if char == "-" else None
            if word is not None and word.group() in ("-Infinity", "-NaN"):
                raise _refuse(text, index, f"{word.group()} is not a JSON number; write a number or null.")
            if number is not None:
                literal = number.group()
                if len(literal) > MAX_NUMBER_CHARS:
                    raise _refuse(text, index, f"This number is too long: at most {MAX_NUMBER_CHARS} characters.")
                if not math.isfinite(float(literal)):
                    raise _refuse(text, index, "This number is too large for JSON; write a smaller number.")
                index = number.end()
                continue
        elif char.isalpha():
            word = _WORD.match(text, index)
            if word is not None:
                if word.group() in ("NaN", "Infinity"):
                    raise _refuse(text, index, f"{word.group()} is not a JSON number; write a number or null.")
                index = word.end()
                continue
        else:
            code = ord(char)
            if code in _HIGH or code in _LOW:
                raise _refuse(text, index, "This text holds a broken character (a lone UTF-16 surrogate).")
        index += 1


def _no_constants(name: str) -> Any:
    # Backstop: the scan already refused these with a position.
    raise JsonInputError(f"{name} is not a JSON number; write a number or null.")


def parse_json_input(text: str, *, max_chars: int = MAX_JSON_CHARS, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value `text` holds, or JsonInputError naming what is wrong and where."""
    if len(text) > max_chars:
        raise JsonInputError(
            f"The JSON is too long: at most {integer(max_chars)} characters (this is {integer(len(text))})."
        )
    _scan(text, max_depth)
    try:
        return json.loads(text, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise JsonInputError(f"This is not valid JSON: {exc.msg}.", line=exc.lineno, column=exc.colno) from None
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, JsonInputError):
            raise
        raise JsonInputError("This is not valid JSON.") from None


def parse_json_object(text: str, *, what: str, example: str, **limits: Any) -> dict:
    """`parse_json_input` for a JSON object, the only shape a payload or
    metadata may have; `what` and `example` word the refusal of another value."""
    value = parse_json_input(text, **limits)
    if not isinstance(value, dict):
        raise JsonInputError(f"{what} must be a JSON object, for example {example}.")
    return value
