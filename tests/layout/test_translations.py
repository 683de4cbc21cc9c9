"""Translations (issue #37, item 6; docs/architecture.md "Translations").

Every string a person reads in a template is marked ({% translate %},
{% blocktranslate %}): tests/layout/support.py says how a template is read.
Templates not marked yet are listed in NOT_YET_MARKED, a ratchet: the list
may only shrink, and a listed template that has become fully marked fails
until it is taken off. Plurals go through {% blocktranslate count %} or
ngettext, never the English-only `pluralize` filter or an "s" added by hand.
Each committed .mo says what its .po says (`make messages` compiles them),
so a fresh machine without gettext serves the translations."""

from __future__ import annotations

import re
from pathlib import Path

import polib
import pytest
from django.conf import settings

from tests.layout.support import ROOT, TEMPLATES, name_of, template_paths, unmarked_strings

# Templates whose strings are not marked yet. Only ever remove a line.
NOT_YET_MARKED: set[str] = set()

# Python files that still add an English plural "s" by hand. Only ever remove a line.
PLURALS_BY_HAND: set[str] = set()

LOCALE = ROOT / "locale"
ENGLISH_PLURAL = re.compile(r"""["']s["']\s+if\s+[^\n]*?(!=|==|>)\s*1\b""")


def test_every_template_outside_the_list_is_marked():
    unmarked = {
        name_of(path): found
        for path in template_paths()
        if name_of(path) not in NOT_YET_MARKED and (found := unmarked_strings(path))
    }
    assert not unmarked, "\n".join(f"{name}: {found[:5]}" for name, found in unmarked.items())


def test_the_list_of_unmarked_templates_only_shrinks():
    names = {name_of(path) for path in template_paths()}
    gone = sorted(NOT_YET_MARKED - names)
    assert not gone, f"no longer a template, take it off NOT_YET_MARKED: {gone}"
    marked = sorted(name for name in NOT_YET_MARKED if not unmarked_strings(TEMPLATES / name))
    assert not marked, f"fully marked now, take it off NOT_YET_MARKED: {marked}"


def test_a_template_plural_goes_through_blocktranslate_count():
    by_filter = sorted(
        name_of(path)
        for path in template_paths()
        if name_of(path) not in NOT_YET_MARKED and "|pluralize" in path.read_text()
    )
    assert not by_filter, f"English-only |pluralize, use {{% blocktranslate count %}}: {by_filter}"


def python_files() -> list[Path]:
    return sorted(
        path
        for folder in ("dashboard", "agents", "objects", "studio")
        for path in (ROOT / folder).rglob("*.py")
        if "migrations" not in path.parts
    )


def test_a_python_plural_goes_through_ngettext():
    by_hand = sorted(
        name
        for path in python_files()
        if (name := path.relative_to(ROOT).as_posix()) not in PLURALS_BY_HAND
        and ENGLISH_PLURAL.search(path.read_text())
    )
    assert not by_hand, f"an English plural made by hand, use ngettext: {by_hand}"
    fixed = sorted(name for name in PLURALS_BY_HAND if not ENGLISH_PLURAL.search((ROOT / name).read_text()))
    assert not fixed, f"ngettext now, take it off PLURALS_BY_HAND: {fixed}"


def catalogs() -> list[Path]:
    return sorted(LOCALE.glob("*/LC_MESSAGES/*.po"))


def test_each_language_has_both_catalogs():
    languages = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
    expected = {f"{code}/LC_MESSAGES/{domain}.po" for code in languages for domain in ("django", "djangojs")}
    assert {path.relative_to(LOCALE).as_posix() for path in catalogs()} == expected


@pytest.mark.parametrize("po_path", catalogs(), ids=lambda path: path.relative_to(LOCALE).as_posix())
def test_each_mo_says_what_its_po_says(po_path):
    """Compared entry by entry (not byte by byte): msgfmt and polib write different bytes."""
    mo_path = po_path.with_suffix(".mo")
    assert mo_path.exists(), f"{mo_path.relative_to(ROOT)} is missing: run `make messages`"

    def entries(catalog) -> dict:
        said = {}
        for entry in catalog:
            text = entry.msgstr_plural or entry.msgstr
            skipped = getattr(entry, "obsolete", False) or "fuzzy" in getattr(entry, "flags", [])
            if entry.msgid and text and not skipped:
                said[(entry.msgctxt, entry.msgid)] = (
                    {str(k): v for k, v in text.items()} if isinstance(text, dict) else text
                )
        return said

    stale = entries(polib.pofile(str(po_path))) != entries(polib.mofile(str(mo_path)))
    assert not stale, f"{mo_path.relative_to(ROOT)} is older than its .po: run `make messages`"


@pytest.mark.parametrize("po_path", catalogs(), ids=lambda path: path.relative_to(LOCALE).as_posix())
def test_each_translation_keeps_its_placeholders(po_path):
    placeholder = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w*\}")

    def broken(entry) -> bool:
        wanted = sorted(placeholder.findall(entry.msgid))
        said = [entry.msgstr] if entry.msgstr else list(entry.msgstr_plural.values())
        # A plural's singular may say "one" instead of its count ("%(count)s" left out).
        return any(text and sorted(placeholder.findall(text)) != wanted for text in said[-1:])

    assert not [entry.msgid for entry in polib.pofile(str(po_path)) if broken(entry)]


@pytest.mark.parametrize("po_path", catalogs(), ids=lambda path: path.relative_to(LOCALE).as_posix())
def test_each_catalog_names_its_language(po_path):
    catalog = polib.pofile(str(po_path))
    assert catalog.metadata.get("Language") == po_path.parts[-3]
    assert not catalog.metadata_is_fuzzy
