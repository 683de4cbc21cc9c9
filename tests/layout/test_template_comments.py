"""Django's `{# ... #}` comment, `{% tag %}` and `{{ variable }}` are one line
only: one that spans lines is not template syntax at all, and Django prints
it on the page (a two-line comment once printed six lines under every Studio
conversation's title). Longer comments use `{% comment %}`. This scan reads
every template with Django's own lexer and fails on template syntax left in
the page's text, the way Django would print it."""

from __future__ import annotations

from django.template.base import Lexer, TokenType

from tests.helpers import PROJECT_DIR

TEMPLATE_DIRS = [
    PROJECT_DIR / "templates",
    *PROJECT_DIR.glob("*/templates"),
    *PROJECT_DIR.glob("dashboard/*/templates"),
]
OPENERS = ("{#", "{%", "{{")


def printed_syntax(text: str) -> list[int]:
    """Line numbers (from 1) where template syntax would be printed as text:
    an opener the lexer did not take as a tag, a variable or a comment
    (outside `{% verbatim %}`, which prints such text on purpose)."""
    found = []
    verbatim = False
    for token in Lexer(text).tokenize():
        if token.token_type is TokenType.BLOCK:
            word = token.contents.split()[0] if token.contents.split() else ""
            if word == "verbatim":
                verbatim = True
            elif word == "endverbatim":
                verbatim = False
            continue
        if token.token_type is not TokenType.TEXT or verbatim:
            continue
        for offset, line in enumerate(token.contents.split("\n")):
            if any(opener in line for opener in OPENERS):
                found.append(token.lineno + offset)
    return found


def test_the_scan_finds_syntax_spanning_lines_and_passes_one_line_ones():
    assert printed_syntax("{# one line #}\n<p>{# and #} {# two #} {{ x }} {% if y %}{% endif %}</p>") == []
    assert printed_syntax("<p>\n{# starts here\n   ends here #}\n</p>") == [2]
    assert printed_syntax("{# fine #} {# but this one\n#}") == [1]
    assert printed_syntax("<p>{% if a\n %}x{% endif %}</p>") == [1]
    assert printed_syntax("<p>\n\n{{ name\n}}</p>") == [3]
    assert printed_syntax("{% verbatim %}{{ shown as it is }}{% endverbatim %}") == []


def test_no_template_prints_its_own_syntax():
    templates = [path for folder in TEMPLATE_DIRS if folder.is_dir() for path in folder.rglob("*.html")]
    assert templates
    printed = {
        f"{path.relative_to(PROJECT_DIR)}:{line}"
        for path in templates
        for line in printed_syntax(path.read_text(encoding="utf-8"))
    }
    assert printed == set(), "a {# #}, {% %} or {{ }} must open and close on one line ({% comment %} for long comments)"
