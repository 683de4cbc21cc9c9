"""Mapping an uploaded file's columns to an object's fields (a CSV import,
objects/imports.py): by label or key, then loosely (synonyms, filler words,
the object's own name and words that only say a value's kind: "Account
Name" is the name of an Accounts object, "Seat count" its seats, "Plan
type" its plan; singular or plural), then the type a name says, then names
alike, offered first and never chosen for the person. A file whose header
row was mapped before in the workspace gets that mapping again
(`remembered_mapping`)."""

from __future__ import annotations

import re

from objects.fields import FieldDef, editable_fields, field_defs

# Words a column name often adds to a field's name ("E-mail address",
# "Phone number", "Company name"): dropped when something is left.
FILLER_WORDS = frozenset(
    {"address", "number", "no", "nr", "name", "full", "the", "your", "of", "billing", "shipping", "mailing", "primary"}
)
# Words saying what kind of value a column holds, not which field ("Seat
# count", "Plan type", "Deal value"): dropped when something is left.
KIND_WORDS = frozenset({"count", "type", "total", "num", "value", "amount", "code", "date", "status", "level"})
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
    "emails": "email",
    "phones": "phone",
    "mobilephone": "phone",
    "workphone": "phone",
    "businessphone": "phone",
    "givenname": "first_name",
    "forename": "first_name",
    "surname": "last_name",
    "familyname": "last_name",
    "companyname": "company",
    "accountname": "company",
    "headcount": "employees",
    "staff": "employees",
    "employee": "employees",
    "numberofemployees": "employees",
    "revenue": "amount",
    "dealvalue": "amount",
    "value": "amount",
    "price": "amount",
    "closingdate": "close_date",
    "expectedclosedate": "close_date",
    "expectedclose": "close_date",
    "closedon": "close_date",
    "pipelinestage": "stage",
    "dealstage": "stage",
    "lifecyclestage": "stage",
    "labels": "tags",
    "label": "tags",
    "tag": "tags",
    "domain": "url",
    "seat": "seats",
    "licenses": "seats",
    "licences": "seats",
    "users": "seats",
    "enabled": "active",
    "isactive": "active",
    "websiteurl": "url",
    "domainname": "url",
    "companydomain": "url",
    "countryregion": "country",
    "organizationname": "company",
    "organisationname": "company",
    "title": "job_title",
    "position": "job_title",
    "role": "job_title",
    "subscription": "plan",
    "tier": "plan",
    "package": "plan",
}
# The field type a canonical column name points to when no field is named so.
TYPE_WORDS = {"email": "email", "phone": "phone", "url": "url"}


def normalised(name: str) -> str:
    """A name as the comparisons read it: lower case, words joined by "_"."""
    return re.sub(r"[^0-9a-z]+", "_", name.strip().lower()).strip("_")


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us")):
        return word[:-1]
    return word


# Names one kind of object goes by in other tools: an Accounts object's
# columns say "Company name" (HubSpot) or "Organization - Name" (Pipedrive).
OBJECT_ALIASES = (
    frozenset({"account", "company", "organization", "organisation", "org", "customer"}),
    frozenset({"contact", "person", "people", "lead"}),
    frozenset({"deal", "opportunity"}),
)


def object_words(definition: dict) -> frozenset[str]:
    """The object's own name as words a column may repeat ("Account Name"
    in Accounts), singular, with the names other tools give that kind."""
    names = f"{definition.get('singular_name') or ''} {definition.get('plural_name') or ''}"
    words = {_singular(w) for w in normalised(names).split("_") if w and not w.isdigit()}
    for aliases in OBJECT_ALIASES:
        if words & aliases:
            words |= aliases
    return frozenset(words)


def canonical(name: str, context: frozenset[str] = frozenset()) -> str:
    """A column or field name without case, spaces, punctuation, filler
    words, the object's own name (`context`), words that only say a value's
    kind, plural or a common synonym: "E-mail address" -> "email", "Seat
    count" -> "seat", "Account Name" in Accounts -> "name"."""
    words = [w for w in normalised(name.replace("e-mail", "email").replace("E-mail", "email")).split("_") if w]
    return _reduced(words, context) if words else ""


def _reduced(words: list[str], context: frozenset[str], *, synonyms: bool = True) -> str:
    own = [w for w in words if _singular(w) not in context]
    if not own:  # only the object's own name ("Account" in Accounts): its name
        return "name"
    if synonyms and (target := SYNONYMS.get("".join(own))):  # a usual name as a whole ("Company name")
        return _reduced(target.split("_"), frozenset(), synonyms=False)
    kept = [w for w in own if w not in FILLER_WORDS and w not in KIND_WORDS] or own[-1:]
    joined = "".join(kept)
    if synonyms and (target := SYNONYMS.get(joined) or SYNONYMS.get(_singular(joined))):
        return _reduced(target.split("_"), frozenset(), synonyms=False)
    return _singular(joined)


def _is_named(name: str, f: FieldDef) -> bool:
    return normalised(name) in {normalised(f.key), normalised(f.label)}


def strong_candidates(name: str, fields: list[FieldDef], context: frozenset[str] = frozenset()) -> list[str]:
    """The fields a column surely fills, best first: its label or key
    exactly (any case, spaces or underscores), then the same words loosely
    (synonyms, filler and kind words, the object's own name), then a field
    of the type its name says (an "E-mail" column and the one email field)."""
    wanted = canonical(name, context)
    exact = [f.key for f in fields if _is_named(name, f)]
    loose = [f.key for f in fields if wanted and wanted in {canonical(f.key, context), canonical(f.label, context)}]
    typed = [f.key for f in fields if TYPE_WORDS.get(wanted) == f.type]
    return list(dict.fromkeys([*exact, *loose, *typed]))


def column_candidates(name: str, fields: list[FieldDef], context: frozenset[str] = frozenset()) -> list[str]:
    """The strong candidates, then fields named alike (difflib): offered
    first in the column's list (the likeliest first), never chosen for the
    person."""
    import difflib

    wanted = canonical(name, context)
    names = {canonical(f.key, context): f.key for f in fields} | {canonical(f.label, context): f.key for f in fields}
    alike = [names[n] for n in difflib.get_close_matches(wanted, list(names), n=3, cutoff=0.8)] if wanted else []
    return list(dict.fromkeys([*strong_candidates(name, fields, context), *alike]))


def suggested_mapping(
    header: list[str], fields: list[FieldDef], context: frozenset[str] = frozenset()
) -> dict[str, str]:
    """{column index: field key}: each column its best strong candidate
    that no better-matched column took; each field once. Columns naming a
    field exactly choose first, then the others, left to right."""
    mapping: dict[str, str] = {}
    used: set[str] = set()
    exact = {i for i, name in enumerate(header) if any(_is_named(name, f) for f in fields)}
    for index in sorted(range(len(header)), key=lambda i: (i not in exact, i)):
        for key in strong_candidates(header[index], fields, context):
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


def remembered_mapping(*, workspace_id: str, object_key: str, header: list[str], fields: list[FieldDef]) -> dict | None:
    """The columns as mapped for the last upload of a file with this very
    header row into this object of the workspace (an import past its
    mapping step), kept to the fields still importable; None if none was."""
    from objects.models import ObjectJob

    earlier = (
        ObjectJob.objects.filter(
            workspace_id=workspace_id, object_key=object_key, kind=ObjectJob.KIND_IMPORT, params__header=header
        )
        .exclude(status=ObjectJob.MAPPING)
        .order_by("-pk")
        .first()
    )
    if earlier is None:
        return None
    known = {f.key for f in fields}
    params = earlier.params
    mapping = {
        str(index): key
        for index, key in (params.get("mapping") or {}).items()
        if key in known and str(index).isdigit() and int(index) < len(header)
    }
    if not mapping:
        return None
    match_key = str(params.get("match_key") or "")
    remembered = {"mapping": mapping, "mapping_from": earlier.pk}
    if match_key in mapping.values():
        remembered |= {"match_key": match_key, "match_mode": str(params.get("match_mode") or "")}
    return remembered
