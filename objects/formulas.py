"""The formula language of computed columns: small, typed and safe.

Pure domain logic (no Django): a formula is checked once against the
object's fields (`compile_formula`) and then evaluated per record
(`Formula.evaluate`) by simpleeval over the parsed tree, never `eval`.

The language, in the words of the page that defines a column:

- a field by its key (`amount`) or by its name in braces (`{Close date}`);
- numbers, "text" in quotes, TRUE and FALSE;
- `+ - * / %` on numbers; a date minus a date is the days between; a date
  plus or minus a number is another date;
- `&` joins text (anything joined is shown as text);
- `= <> != < <= > >=` compare values of one type; AND, OR, NOT;
- functions: IF, ROUND, ABS, MIN, MAX, CONCAT, LEN, UPPER, LOWER, TRIM,
  TEXT, DAYS, TODAY, YEAR, MONTH, ISBLANK, AND, OR, NOT.

Types are checked before anything is saved: a number added to a text, an
unknown field, an unknown function are refused in words naming the field.
An empty field makes an empty result (not an error); so does a division by
zero.
"""

from __future__ import annotations

import ast
import datetime as dt
import decimal
import difflib
import keyword
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext, pgettext_lazy
from simpleeval import InvalidExpression, SimpleEval

NUMBER = "number"
TEXT = "text"
BOOLEAN = "boolean"
DATE = "date"
ANY = "any"  # an empty value (a blank literal): fits every type
# What a type is called inside an error ("… needs a number, but {Name} is text.").
TYPE_WORDS = {
    NUMBER: pgettext_lazy("formula type", "a number"),
    TEXT: pgettext_lazy("formula type", "text"),
    BOOLEAN: pgettext_lazy("formula type", "true or false"),
    DATE: pgettext_lazy("formula type", "a date"),
    ANY: pgettext_lazy("formula type", "empty"),
}

# Field types of the service (objects/schema.py FieldType) as formula types;
# anything else (choices, addresses, files) is read as text.
FIELD_TYPES = {
    "number": NUMBER,
    "currency": NUMBER,
    "boolean": BOOLEAN,
    "date": DATE,
    "datetime": DATE,
}
MAX_FORMULA_LENGTH = 1000
MAX_TEXT_RESULT = 10_000  # characters a joined text may grow to


class FormulaError(ValueError):
    """A formula refused, in words for the person who typed it."""


@dataclass(frozen=True)
class FormulaField:
    """A field a formula may name: its key, its name and its formula type."""

    key: str
    label: str
    type: str  # NUMBER, TEXT, BOOLEAN or DATE
    # A choice field's option labels by id: a formula reads the label, as people see it.
    choices: Mapping[str, str] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, key: str, label: str, field_type: str, choices: Mapping[str, str] | None = None) -> FormulaField:
        return cls(key=key, label=label, type=FIELD_TYPES.get(field_type, TEXT), choices=dict(choices or {}))


# --- reading the source ------------------------------------------------------

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_BRACED = re.compile(r"\{([^{}]*)\}")


def _rewrite(source: str, fields: Sequence[FormulaField]) -> tuple[str, dict[str, FormulaField]]:
    """The source as Python's expression grammar reads it: `{Name}` becomes a
    placeholder name, a lone `=` is `==`, `<>` is `!=`, TRUE/FALSE are
    Python's; text in quotes is left as typed. Returns the placeholders."""
    by_label = {f.label.casefold(): f for f in fields}
    by_key = {f.key: f for f in fields}
    refs: dict[str, FormulaField] = {}
    pieces: list[str] = []
    position = 0
    for match in _STRING.finditer(source):
        pieces.append(_rewrite_code(source[position : match.start()], by_label, by_key, refs))
        pieces.append(match.group(0))
        position = match.end()
    rest = source[position:]
    if rest.count('"') % 2 or rest.count("'") % 2:
        raise FormulaError(gettext("A text in quotes is not closed: add the closing quote."))
    pieces.append(_rewrite_code(rest, by_label, by_key, refs))
    return "".join(pieces), refs


def _rewrite_code(
    code: str, by_label: dict[str, FormulaField], by_key: dict[str, FormulaField], refs: dict[str, FormulaField]
) -> str:
    def braced(match: re.Match) -> str:
        name = match.group(1).strip()
        found = by_label.get(name.casefold()) or by_key.get(name)
        if found is None:
            raise FormulaError(_unknown_field(name, list(by_label_names(by_label))))
        placeholder = f"ref__{len(refs)}"
        refs[placeholder] = found
        return placeholder

    code = _BRACED.sub(braced, code)
    if "{" in code or "}" in code:
        raise FormulaError(gettext("A field name in braces is not closed: write it as {Field name}."))
    code = code.replace("<>", "!=")
    code = re.sub(r"(?<![<>!=])=(?!=)", "==", code)
    code = re.sub(r"\bTRUE\b", "True", code)
    return re.sub(r"\bFALSE\b", "False", code)


def by_label_names(by_label: dict[str, FormulaField]) -> list[str]:
    return [f.label for f in by_label.values()]


def _unknown_field(name: str, labels: list[str]) -> str:
    close = difflib.get_close_matches(name, labels, n=1, cutoff=0.6)
    if close:
        return gettext("No field is called “%(name)s”. Did you mean {%(close)s}?") % {"name": name, "close": close[0]}
    return gettext("No field is called “%(name)s”.") % {"name": name}


# --- types -------------------------------------------------------------------


@dataclass(frozen=True)
class Signature:
    args: tuple[str, ...]  # each argument's type (ANY: any type)
    result: str  # a type, or "same" (the type of the arguments after the first)
    optional: int = 0  # how many of the last arguments may be left out
    repeat: bool = False  # the last argument may repeat


SIGNATURES: dict[str, Signature] = {
    "IF": Signature((BOOLEAN, ANY, ANY), "same", optional=1),
    "ROUND": Signature((NUMBER, NUMBER), NUMBER, optional=1),
    "ABS": Signature((NUMBER,), NUMBER),
    "MIN": Signature((NUMBER,), NUMBER, repeat=True),
    "MAX": Signature((NUMBER,), NUMBER, repeat=True),
    "CONCAT": Signature((ANY,), TEXT, repeat=True),
    "LEN": Signature((TEXT,), NUMBER),
    "UPPER": Signature((TEXT,), TEXT),
    "LOWER": Signature((TEXT,), TEXT),
    "TRIM": Signature((TEXT,), TEXT),
    "TEXT": Signature((ANY,), TEXT),
    "DAYS": Signature((DATE, DATE), NUMBER),
    "TODAY": Signature((), DATE),
    "YEAR": Signature((DATE,), NUMBER),
    "MONTH": Signature((DATE,), NUMBER),
    "ISBLANK": Signature((ANY,), BOOLEAN),
    "AND": Signature((BOOLEAN,), BOOLEAN, repeat=True),
    "OR": Signature((BOOLEAN,), BOOLEAN, repeat=True),
    "NOT": Signature((BOOLEAN,), BOOLEAN),
}


def _what(node: ast.AST, refs: dict[str, FormulaField], fields: dict[str, FormulaField]) -> str:
    """How a part of the formula is named in an error: the field, or the text typed."""
    if isinstance(node, ast.Name):
        found = refs.get(node.id) or fields.get(node.id)
        if found is not None:
            return f"{{{found.label}}}"
    try:
        return ast.unparse(node)
    except Exception:
        return gettext("a part of the formula")


class _Checker:
    def __init__(self, refs: dict[str, FormulaField], fields: dict[str, FormulaField]):
        self.refs = refs
        self.fields = fields
        self.used: dict[str, FormulaField] = {}
        self.names: dict[str, str] = {}  # a name in the tree -> the field key it reads

    def words(self, node: ast.AST) -> str:
        return _what(node, self.refs, self.fields)

    def expect(self, node: ast.AST, wanted: str, why: str) -> str:
        found = self.type_of(node)
        if found not in (wanted, ANY):
            raise FormulaError(
                gettext("%(what)s needs %(wanted)s, but %(part)s is %(found)s.")
                % {"what": why, "wanted": TYPE_WORDS[wanted], "part": self.words(node), "found": TYPE_WORDS[found]}
            )
        return found

    def type_of(self, node: ast.AST) -> str:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool):
                return BOOLEAN
            if isinstance(value, int | float):
                return NUMBER
            if isinstance(value, str):
                return TEXT
            if value is None:
                return ANY
            raise FormulaError(gettext("%(part)s is not a value a formula knows.") % {"part": self.words(node)})
        if isinstance(node, ast.Name):
            if node.id in ("True", "False"):
                return BOOLEAN
            found = self.refs.get(node.id) or self.fields.get(node.id)
            if found is None:
                if node.id.upper() in SIGNATURES:
                    raise FormulaError(
                        gettext("%(function)s is a function: write it with brackets, %(function)s(…).")
                        % {"function": node.id.upper()}
                    )
                raise FormulaError(_unknown_field(node.id, [f.label for f in self.fields.values()]))
            self.used[found.key] = found
            self.names[node.id] = found.key
            return found.type
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                self.expect(node.operand, BOOLEAN, "NOT")
                return BOOLEAN
            if isinstance(node.op, ast.USub | ast.UAdd):
                self.expect(node.operand, NUMBER, gettext("A minus sign"))
                return NUMBER
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.BoolOp):
            word = "AND" if isinstance(node.op, ast.And) else "OR"
            for part in node.values:
                self.expect(part, BOOLEAN, word)
            return BOOLEAN
        if isinstance(node, ast.Compare):
            types = [self.type_of(node.left), *(self.type_of(c) for c in node.comparators)]
            parts = [node.left, *node.comparators]
            known = [(t, p) for t, p in zip(types, parts, strict=True) if t != ANY]
            for (first, first_node), (other, other_node) in zip(known, known[1:], strict=False):
                if first != other:
                    raise FormulaError(
                        gettext("%(one)s (%(one_type)s) cannot be compared with %(other)s (%(other_type)s).")
                        % {
                            "one": self.words(first_node),
                            "one_type": TYPE_WORDS[first],
                            "other": self.words(other_node),
                            "other_type": TYPE_WORDS[other],
                        }
                    )
            ordering = any(not isinstance(op, ast.Eq | ast.NotEq) for op in node.ops)
            if ordering and any(t == BOOLEAN for t, _ in known):
                raise FormulaError(gettext("True or false values can only be compared with = or <>."))
            return BOOLEAN
        if isinstance(node, ast.Call):
            return self.call(node)
        raise FormulaError(gettext("%(part)s is not part of the formula language.") % {"part": self.words(node)})

    def binop(self, node: ast.BinOp) -> str:
        op = node.op
        if isinstance(op, ast.BitAnd):  # & joins anything as text
            self.type_of(node.left)
            self.type_of(node.right)
            return TEXT
        left, right = self.type_of(node.left), self.type_of(node.right)
        symbol = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Mod: "%"}.get(type(op))
        if symbol is None:
            raise FormulaError(
                gettext("The operator in %(part)s is not part of the formula language.") % {"part": self.words(node)}
            )
        if ANY in (left, right):
            return ANY if left == right else (left if right == ANY else right)
        if symbol in "+-" and left == DATE and right == NUMBER:
            return DATE
        if symbol == "-" and left == DATE and right == DATE:
            return NUMBER
        if symbol == "+" and TEXT in (left, right):
            side = node.left if left == TEXT else node.right
            raise FormulaError(gettext("%(part)s is text: text is joined with &, not +.") % {"part": self.words(side)})
        for side, found in ((node.left, left), (node.right, right)):
            if found != NUMBER:
                raise FormulaError(
                    gettext("“%(operator)s” needs numbers, but %(part)s is %(found)s.")
                    % {"operator": symbol, "part": self.words(side), "found": TYPE_WORDS[found]}
                )
        return NUMBER

    def call(self, node: ast.Call) -> str:
        if not isinstance(node.func, ast.Name):
            raise FormulaError(gettext("%(part)s is not part of the formula language.") % {"part": self.words(node)})
        name = node.func.id.upper()
        signature = SIGNATURES.get(name)
        if signature is None:
            known = difflib.get_close_matches(name, list(SIGNATURES), n=1)
            if known:
                raise FormulaError(
                    gettext("There is no function %(function)s. Did you mean %(close)s?")
                    % {"function": node.func.id, "close": known[0]}
                )
            raise FormulaError(gettext("There is no function %(function)s.") % {"function": node.func.id})
        if node.keywords:
            raise FormulaError(gettext("%(function)s takes its values in order, without names.") % {"function": name})
        count = len(node.args)
        fewest = len(signature.args) - signature.optional
        most = None if signature.repeat else len(signature.args)
        if count < fewest or (most is not None and count > most):
            raise FormulaError(
                gettext("%(function)s takes %(how_many)s; it was given %(count)s.")
                % {"function": name, "how_many": _how_many(fewest, most), "count": count}
            )
        types = []
        for index, arg in enumerate(node.args):
            wanted = signature.args[min(index, len(signature.args) - 1)]
            types.append(self.type_of(arg) if wanted == ANY else self.expect(arg, wanted, name))
        if signature.result != "same":
            return signature.result
        branches = [t for t in types[1:] if t != ANY]
        if len(set(branches)) > 1:
            raise FormulaError(
                gettext(
                    "IF gives %(one)s one way and %(other)s the other: give both the same type (TEXT() makes a text)."
                )
                % {"one": TYPE_WORDS[branches[0]], "other": TYPE_WORDS[branches[1]]}
            )
        return branches[0] if branches else ANY


def _how_many(fewest: int, most: int | None) -> str:
    if most is None:
        return ngettext("at least %(count)s value", "at least %(count)s values", fewest) % {"count": fewest}
    if fewest == most:
        return ngettext("%(count)s value", "%(count)s values", fewest) % {"count": fewest}
    return gettext("%(fewest)s to %(most)s values") % {"fewest": fewest, "most": most}


# --- values ------------------------------------------------------------------


def formula_value(kind: str, raw: Any, choices: Mapping[str, str] | None = None) -> Any:
    """A stored value as the formula sees it: numbers as Decimal, dates as
    dates, booleans, text (a choice's label); None when empty or unreadable
    for its type."""
    if raw is None or raw == "" or raw == []:
        return None
    if choices and kind == TEXT:
        if isinstance(raw, list):
            return ", ".join(choices.get(str(item), str(item)) for item in raw)
        return choices.get(str(raw), str(raw))
    if kind == NUMBER:
        if isinstance(raw, bool):
            return None
        try:
            number = decimal.Decimal(str(raw).strip())
        except (decimal.InvalidOperation, ValueError):
            return None
        return number if number.is_finite() else None
    if kind == DATE:
        if isinstance(raw, dt.datetime):
            return raw.date()
        if isinstance(raw, dt.date):
            return raw
        try:
            return dt.date.fromisoformat(str(raw)[:10])
        except ValueError:
            return None
    if kind == BOOLEAN:
        if isinstance(raw, bool):
            return raw
        return str(raw).strip().lower() in ("true", "1", "yes")
    if isinstance(raw, list):
        return ", ".join(str(item) for item in raw)
    if isinstance(raw, dict):
        return str(raw.get("label") or raw.get("name") or raw.get("id") or "")
    return str(raw)


def as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, decimal.Decimal):
        return format(value.normalize(), "f") if value == value.to_integral_value() else format(value, "f")
    if isinstance(value, float):
        return as_text(decimal.Decimal(str(value)))
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def _number(value: Any) -> decimal.Decimal:
    return value if isinstance(value, decimal.Decimal) else decimal.Decimal(str(value))


def _null_safe(fn: Callable[..., Any]) -> Callable[..., Any]:
    def safe(*args: Any) -> Any:
        if any(a is None for a in args):
            return None
        try:
            return fn(*args)
        except (ZeroDivisionError, decimal.DivisionByZero, decimal.InvalidOperation, OverflowError, ValueError):
            return None

    return safe


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, dt.date):
        return a + dt.timedelta(days=int(b))
    return _number(a) + _number(b)


def _sub(a: Any, b: Any) -> Any:
    if isinstance(a, dt.date) and isinstance(b, dt.date):
        return decimal.Decimal((a - b).days)
    if isinstance(a, dt.date):
        return a - dt.timedelta(days=int(b))
    return _number(a) - _number(b)


def _join(a: Any, b: Any) -> str:
    joined = as_text(a) + as_text(b)
    return joined[:MAX_TEXT_RESULT]


def _compare(fn: Callable[[Any, Any], bool], *, equality: bool = False) -> Callable[[Any, Any], bool]:
    def compare(a: Any, b: Any) -> bool:
        if a is None or b is None:
            return fn(a, b) if equality else False
        if isinstance(a, bool) or isinstance(b, bool):
            return fn(a, b)
        if isinstance(a, str) and isinstance(b, str):
            return fn(a.casefold(), b.casefold())
        if isinstance(a, decimal.Decimal | int | float) and isinstance(b, decimal.Decimal | int | float):
            return fn(_number(a), _number(b))
        return fn(a, b)

    return compare


def _round(value: Any, digits: Any = 0) -> Any:
    if value is None:
        return None
    places = int(digits or 0)
    quantum = decimal.Decimal(1).scaleb(-places)
    return _number(value).quantize(quantum, rounding=decimal.ROUND_HALF_UP)


def _if(test: Any, then: Any, otherwise: Any = None) -> Any:
    return then if test else otherwise


def _numbers(values: tuple[Any, ...]) -> list[decimal.Decimal]:
    return [_number(v) for v in values if v is not None]


def _functions(today: dt.date) -> dict[str, Callable[..., Any]]:
    return {
        "IF": _if,
        "ROUND": _round,
        "ABS": _null_safe(lambda v: abs(_number(v))),
        "MIN": lambda *v: min(_numbers(v), default=None),
        "MAX": lambda *v: max(_numbers(v), default=None),
        "CONCAT": lambda *v: "".join(as_text(x) for x in v)[:MAX_TEXT_RESULT],
        "LEN": lambda v: decimal.Decimal(len(as_text(v))),
        "UPPER": _null_safe(lambda v: str(v).upper()),
        "LOWER": _null_safe(lambda v: str(v).lower()),
        "TRIM": _null_safe(lambda v: str(v).strip()),
        "TEXT": as_text,
        "DAYS": _null_safe(lambda end, start: decimal.Decimal((end - start).days)),
        "TODAY": lambda: today,
        "YEAR": _null_safe(lambda d: decimal.Decimal(d.year)),
        "MONTH": _null_safe(lambda d: decimal.Decimal(d.month)),
        "ISBLANK": lambda v: v is None or v == "",
        "AND": lambda *v: all(bool(x) for x in v),
        "OR": lambda *v: any(bool(x) for x in v),
        "NOT": lambda v: not v,
    }


OPERATORS: dict[type, Callable[..., Any]] = {
    ast.Add: _null_safe(_add),
    ast.Sub: _null_safe(_sub),
    ast.Mult: _null_safe(lambda a, b: _number(a) * _number(b)),
    ast.Div: _null_safe(lambda a, b: _number(a) / _number(b)),
    ast.Mod: _null_safe(lambda a, b: _number(a) % _number(b)),
    ast.BitAnd: _join,
    ast.USub: _null_safe(lambda a: -_number(a)),
    ast.UAdd: _null_safe(lambda a: +_number(a)),
    ast.Not: lambda a: not a,
    ast.Eq: _compare(operator.eq, equality=True),
    ast.NotEq: _compare(operator.ne, equality=True),
    ast.Lt: _compare(operator.lt),
    ast.LtE: _compare(operator.le),
    ast.Gt: _compare(operator.gt),
    ast.GtE: _compare(operator.ge),
}


@dataclass
class Formula:
    """A checked formula: what it reads, its result's type, ready to evaluate."""

    source: str
    result_type: str
    fields: dict[str, FormulaField]  # the fields it reads, by key
    tree: ast.AST
    names: dict[str, str] = field(default_factory=dict)  # a name in the tree -> the field key it reads

    def evaluate(self, values: Mapping[str, Any], *, today: dt.date | None = None) -> Any:
        """The formula over one record's stored values (None: empty)."""
        return self.evaluate_with(self.evaluator(today=today), values)

    def evaluator(self, *, today: dt.date | None = None) -> SimpleEval:
        """One evaluator for many records (`evaluate_with`)."""
        return SimpleEval(operators=OPERATORS, functions=_functions(today or dt.date.today()), names={})

    def evaluate_with(self, evaluator: SimpleEval, values: Mapping[str, Any]) -> Any:
        evaluator.names = {
            name: formula_value(self.fields[key].type, values.get(key), self.fields[key].choices)
            for name, key in self.names.items()
        }
        evaluator.names.update({"True": True, "False": False, "None": None})
        try:
            result = evaluator.eval(self.source, previously_parsed=self.tree)
        except (InvalidExpression, ArithmeticError, TypeError, ValueError, AttributeError):
            return None
        if isinstance(result, float):
            result = decimal.Decimal(str(result))
        elif isinstance(result, int) and not isinstance(result, bool):
            result = decimal.Decimal(result)
        return result


def compile_formula(source: str, fields: Sequence[FormulaField]) -> Formula:
    """Check a formula against the object's fields; FormulaError says what is wrong."""
    source = (source or "").strip()
    if not source:
        raise FormulaError(gettext("Write a formula, for example {Amount} * 2."))
    if len(source) > MAX_FORMULA_LENGTH:
        raise FormulaError(
            gettext("A formula is at most %(count)s characters.")
            % {"count": number_format(MAX_FORMULA_LENGTH, force_grouping=True)}
        )
    if "\x00" in source:
        raise FormulaError(gettext("A formula cannot hold a NUL character."))
    rewritten, refs = _rewrite(source, fields)
    try:
        parsed = ast.parse(rewritten, mode="eval")
    except SyntaxError as exc:
        raise FormulaError(
            gettext("The formula cannot be read near “%(near)s”: check brackets and quotes.")
            % {"near": _near(rewritten, exc)}
        ) from None
    except (ValueError, RecursionError, MemoryError):
        raise FormulaError(gettext("The formula cannot be read: check brackets and quotes.")) from None
    by_key = {f.key: f for f in fields if f.key.isidentifier() and not keyword.iskeyword(f.key)}
    checker = _Checker(refs, by_key)
    try:
        result_type = checker.type_of(parsed.body)
    except RecursionError:
        raise FormulaError(gettext("The formula is nested too deeply.")) from None
    return Formula(
        source=rewritten, result_type=result_type, fields=dict(checker.used), tree=parsed.body, names=checker.names
    )


def _near(source: str, exc: SyntaxError) -> str:
    offset = max((exc.offset or 1) - 1, 0)
    return source[max(offset - 10, 0) : offset + 10].strip() or source[:20]
