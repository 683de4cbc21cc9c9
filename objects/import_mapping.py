"""Mapping an uploaded file's columns to an object's fields (a CSV import,
objects/imports.py): by label or key, then loosely (synonyms, filler words,
the type a name says), then names alike, offered first and never chosen for
the person."""

from __future__ import annotations

import re

from objects.fields import FieldDef, editable_fields, field_defs

# Words a column name often adds to a field's name ("E-mail address",
# "Phone number", "Company name"): dropped when something is left.
FILLER_WORDS = frozenset({"address", "number", "no", "nr", "name", "full", "the", "your", "of"})
# Common other names of a field, by its normalised name.
SYNONYMS = {
    "mail": "email",
    "emailaddress": "email",
    "tel": "phone",
    "telephone": "phone",
    "mobile": "phone",
    "cell": "phone",
    "cellphone": "phone",
    "organisation": "company",
    "organization": "company",
    "org": "company",
    "business": "company",
    "employer": "company",
    "website": "url",
    "web": "url",
    "site": "url",
    "homepage": "url",
    "link": "url",
    "zip": "postcode",
    "zipcode": "postcode",
    "postalcode": "postcode",
    "note": "notes",
    "comment": "notes",
    "comments": "notes",
    "description": "notes",
    "qty": "quantity",
    "amt": "amount",
}
# The field type a canonical column name points to when no field is named so.
TYPE_WORDS = {"email": "email", "phone": "phone", "url": "url"}


def normalised(name: str) -> str:
    """A name as the comparisons read it: lower case, words joined by "_"."""
    return re.sub(r"[^0-9a-z]+", "_", name.strip().lower()).strip("_")


def canonical(name: str) -> str:
    """A column or field name without case, spaces, punctuation, filler
    words or a common synonym: "E-mail address" -> "email"."""
    words = [w for w in normalised(name.replace("e-mail", "email").replace("E-mail", "email")).split("_") if w]
    kept = [w for w in words if w not in FILLER_WORDS] or words[-1:]
    joined = "".join(kept)
    return SYNONYMS.get(joined, joined)


def _is_named(name: str, f: FieldDef) -> bool:
    return normalised(name) in {normalised(f.key), normalised(f.label)}


def strong_candidates(name: str, fields: list[FieldDef]) -> list[str]:
    """The fields a column surely fills, best first: its label or key
    exactly (any case, spaces or underscores), then the same words loosely
    (synonyms and filler words), then a field of the type its name says (an
    "E-mail" column and the one email field)."""
    wanted = canonical(name)
    exact = [f.key for f in fields if _is_named(name, f)]
    loose = [f.key for f in fields if wanted and wanted in {canonical(f.key), canonical(f.label)}]
    typed = [f.key for f in fields if TYPE_WORDS.get(wanted) == f.type]
    return list(dict.fromkeys([*exact, *loose, *typed]))


def column_candidates(name: str, fields: list[FieldDef]) -> list[str]:
    """The strong candidates, then fields named alike (difflib): offered
    first in the column's list, never chosen for the person."""
    import difflib

    wanted = canonical(name)
    names = {canonical(f.key): f.key for f in fields} | {canonical(f.label): f.key for f in fields}
    alike = [names[n] for n in difflib.get_close_matches(wanted, list(names), n=3, cutoff=0.8)] if wanted else []
    return list(dict.fromkeys([*strong_candidates(name, fields), *alike]))


def suggested_mapping(header: list[str], fields: list[FieldDef]) -> dict[str, str]:
    """{column index: field key}: each column its best strong candidate
    that no better-matched column took; each field once. Columns naming a
    field exactly choose first, then the others, left to right."""
    mapping: dict[str, str] = {}
    used: set[str] = set()
    exact = {i for i, name in enumerate(header) if any(_is_named(name, f) for f in fields)}
    for index in sorted(range(len(header)), key=lambda i: (i not in exact, i)):
        for key in strong_candidates(header[index], fields):
            if key not in used:
                mapping[str(index)] = key
                used.add(key)
                break
    return mapping


def unmapped_required(fields: list[FieldDef], mapping: dict[str, str]) -> list[FieldDef]:
    """Required fields no column fills: every new record would be refused."""
    filled = set(mapping.values())
    return [f for f in fields if f.required and f.key not in filled]


def importable_fields(definition: dict) -> list[FieldDef]:
    return editable_fields(field_defs(definition))
