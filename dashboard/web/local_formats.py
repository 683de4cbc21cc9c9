"""Numbers, dates, months and amounts as the active language writes them.

A page resolves the language's formats once (`active()`, cached per language
code for the process) and formats every value with plain string operations:
the records grid formats thousands of cells per page, where Django's
`number_format` and `date_format` (one settings lookup and a character walk
per value) would cost more than the cells themselves.

The separators and date formats are Django's for the language
(django.utils.formats.get_format). English keeps the console's own forms,
which tests and people already rely on: ISO dates ("2026-11-16"), "1,234.50",
and an amount after its code ("EUR 1,234.50"). German and French write an
amount after the number with the currency's sign ("1.234,50 €",
"1 234,50 €"). Machine forms (CSV, the API, HTML input values, keys) never
come through here: they stay ISO.
"""

from __future__ import annotations

import datetime as dt
import decimal
from dataclasses import dataclass, field
from functools import lru_cache

from django.utils import dates, formats, translation

# The console's English forms (see the module's docstring); other languages take Django's.
ENGLISH = {
    "SHORT_DATE_FORMAT": "Y-m-d",
    "SHORT_DATETIME_FORMAT": "Y-m-d H:i",
    # A day in words as the console's templates write it (|date:"j M Y").
    "DATE_FORMAT": "j M Y",
    "MONTH_DAY_FORMAT": "j M",
}
# Languages that write an amount before its code, as "EUR 1,234.50"; the others write "1.234,50 €".
CODE_FIRST = frozenset({"en"})
# The currencies whose sign is not their code (ISO 4217); any other code is written as itself.
SIGNS = {"EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥", "CNY": "¥", "INR": "₹", "KRW": "₩", "ILS": "₪"}
NBSP = "\xa0"
# The Django date-format letters compiled into str.format fields; any other letter falls back to dateformat.
_FIELDS = {
    "d": "{v.day:02d}",
    "j": "{v.day}",
    "m": "{v.month:02d}",
    "n": "{v.month}",
    "Y": "{v.year:04d}",
    "y": "{y:02d}",
    "H": "{v.hour:02d}",
    "G": "{v.hour}",
    "i": "{v.minute:02d}",
    "s": "{v.second:02d}",
    "F": "{F}",
    "M": "{M}",
}
_TIME_LETTERS = frozenset("HGis")


@dataclass(frozen=True)
class DatePattern:
    """A Django date format compiled once: str.format of the value's parts, or
    Django's dateformat where the format asks for a letter not compiled here."""

    django_format: str
    template: str | None
    months: tuple[str, ...]
    short_months: tuple[str, ...]

    @classmethod
    def compile(cls, django_format: str, *, months: tuple[str, ...], short_months: tuple[str, ...]) -> DatePattern:
        parts: list[str] = []
        escaped = False
        for char in django_format:
            if escaped:
                parts.append(char.replace("{", "{{").replace("}", "}}"))
                escaped = False
            elif char == "\\":
                escaped = True
            elif char in _FIELDS:
                parts.append(_FIELDS[char])
            elif char.isalpha():
                return cls(django_format, None, months, short_months)
            else:
                parts.append(char.replace("{", "{{").replace("}", "}}"))
        return cls(django_format, "".join(parts), months, short_months)

    def __call__(self, value: dt.date) -> str:
        if self.template is None:
            from django.utils import dateformat

            return dateformat.format(value, self.django_format)
        if not isinstance(value, dt.datetime) and any(c in _TIME_LETTERS for c in self.django_format):
            value = dt.datetime.combine(value, dt.time())
        return self.template.format(
            v=value, y=value.year % 100, F=self.months[value.month], M=self.short_months[value.month]
        )


@dataclass(frozen=True)
class Formats:
    """One language's ways of writing values, resolved once (`active()`)."""

    language: str
    decimal_separator: str
    thousand_separator: str
    grouping: int
    date: DatePattern
    datetime: DatePattern
    day: DatePattern
    day_short: DatePattern
    month: DatePattern
    month_short: DatePattern
    month_shorter: DatePattern
    _table: dict[int, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._table.update(str.maketrans({",": self.thousand_separator, ".": self.decimal_separator}))

    def _local(self, english: str) -> str:
        """Python's "1,234.5" in the language's separators."""
        if self.thousand_separator == "," and self.decimal_separator == ".":
            return english
        return english.translate(self._table)

    def integer(self, value: int) -> str:
        if self.grouping != 3:
            return formats.number_format(value, use_l10n=True, force_grouping=True)
        return self._local(f"{value:,}")

    def number(self, number: decimal.Decimal, *, places: int | None = None) -> str:
        """A number grouped by thousands; `places` decimals rounded half up, else as many as it has."""
        if places is not None:
            number = number.quantize(decimal.Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP)
        if self.grouping != 3:
            return formats.number_format(number, places, use_l10n=True, force_grouping=True)
        if places is not None:
            return self._local(f"{number:,.{places}f}")
        if number == number.to_integral_value():
            return self._local(f"{int(number):,}")
        return self._local(f"{number:,f}".rstrip("0").rstrip("."))

    def amount(self, shown: str, code: str) -> str:
        """A formatted number with its currency: "EUR 1,234.50" in English, "1.234,50 €" in German."""
        if not code:
            return shown
        if self.language.split("-")[0] in CODE_FIRST:
            return f"{code} {shown}"
        return f"{shown}{NBSP}{SIGNS.get(code.upper(), code)}"

    def dollars(self, value: float, *, places: int = 2) -> str:
        """An amount in US dollars (what agent runs cost): "$1,234.50", "1.234,50 $"."""
        shown = f"{value:,.{places}f}"
        if self.language.split("-")[0] in CODE_FIRST:
            return f"${shown}"
        if self.grouping != 3:
            shown = formats.number_format(value, places, use_l10n=True, force_grouping=True)
            return f"{shown}{NBSP}$"
        return f"{self._local(shown)}{NBSP}$"

    def date_time(self, local: dt.datetime) -> str:
        """A moment already in its zone, with the zone's short name: "16.11.2026 10:30 CET"."""
        return f"{self.datetime(local)} {local.tzname() or ''}".strip()


@lru_cache(maxsize=16)
def for_language(language: str) -> Formats:
    english = language.split("-")[0] == "en"
    with translation.override(language):
        months = ("", *(str(dates.MONTHS[n]) for n in range(1, 13)))
        # English keeps Django's "M" ("Nov"); German and French write their own short
        # names ("Dez.", "juil."), Django's MONTHS_AP: its "M" title-cases three letters ("Jul" in French).
        short = (str(dates.MONTHS_3[n]).title() if english else str(dates.MONTHS_AP[n]) for n in range(1, 13))
        short_months = ("", *short)

    def django(name: str) -> str:
        return ENGLISH[name] if english and name in ENGLISH else str(formats.get_format(name, language))

    def pattern(django_format: str) -> DatePattern:
        return DatePattern.compile(django_format, months=months, short_months=short_months)

    day_short = django("MONTH_DAY_FORMAT") if english else django("MONTH_DAY_FORMAT").replace("F", "M")
    return Formats(
        language=language,
        decimal_separator=str(formats.get_format("DECIMAL_SEPARATOR", language)),
        thousand_separator=str(formats.get_format("THOUSAND_SEPARATOR", language)),
        # A grouping other than threes (or a sequence of them) goes through Django's number_format.
        grouping=grouping if isinstance(grouping := formats.get_format("NUMBER_GROUPING", language), int) else 0,
        date=pattern(django("SHORT_DATE_FORMAT")),
        datetime=pattern(django("SHORT_DATETIME_FORMAT")),
        day=pattern(django("DATE_FORMAT")),
        day_short=pattern(day_short),
        month=pattern("F Y"),
        month_short=pattern("M Y"),
        month_shorter=pattern("M y"),
    )


def active() -> Formats:
    """The formats of the language active now (the request's, or an override's)."""
    return for_language(translation.get_language() or "en")


def dollars(value: float, *, places: int = 2) -> str:
    return active().dollars(value, places=places)


def integer(value: int) -> str:
    """A count in the active language: "10,023", "10.023", "10 023"."""
    return active().integer(value)
