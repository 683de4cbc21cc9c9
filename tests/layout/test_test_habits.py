"""Tests assert on parsed HTML (tests/html.py), not on substrings of markup:
a check like `'aria-current="page"' in html` passes on a comment, an
attribute of the wrong element or a stray string, and breaks on a harmless
change of attribute order. This scan reads every test module's syntax tree
and fails on a markup literal (a tag, an `attribute="` or `>text<`) searched
for in a string: `in`/`not in`, `startswith`, `split`, `index`, `find`,
`count`, or a regular expression. Checks that a secret is absent from a
whole body (`API_KEY not in body`) hold no markup and are not touched."""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator

from tests.helpers import PROJECT_DIR

TESTS = PROJECT_DIR / "tests"
MARKUP = re.compile(r"<[a-zA-Z/!]|>[^<>\n]*<|[\w:-]+=[\"']")
STRING_SEARCHES = {
    "startswith",
    "endswith",
    "split",
    "rsplit",
    "partition",
    "index",
    "rindex",
    "find",
    "rfind",
    "count",
}
REGEX_SEARCHES = {"search", "match", "fullmatch", "findall", "finditer", "split", "sub"}
# Files other work is still rewriting, with the markup checks they hold today:
# the number may only go down (remove the entry when it reaches 0).
PENDING = {
    # Scans template SOURCE (what Django reads), not HTML a browser gets.
    "tests/layout/test_form_fields.py": 1,
}


def literal(node: ast.expr) -> str | None:
    """The text of a string or bytes literal (an f-string's fixed parts)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
        value = node.value
        return value.decode(errors="replace") if isinstance(value, bytes) else value
    if isinstance(node, ast.JoinedStr):
        return "x".join(part.value for part in node.values if isinstance(part, ast.Constant))
    return None


def is_markup(node: ast.expr) -> bool:
    text = literal(node)
    return text is not None and bool(MARKUP.search(text))


def markup_searches(tree: ast.AST) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(isinstance(op, ast.In | ast.NotIn) for op in node.ops) and is_markup(node.left):
                yield node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            method, receiver = node.func.attr, node.func.value
            searches = REGEX_SEARCHES if isinstance(receiver, ast.Name) and receiver.id == "re" else STRING_SEARCHES
            if method in searches and is_markup(node.args[0]):
                yield node


def markup_checks() -> Counter[str]:
    found: Counter[str] = Counter()
    for path in sorted(TESTS.rglob("*.py")):
        if path.name == "test_test_habits.py":
            continue
        for node in markup_searches(ast.parse(path.read_text(), filename=str(path))):
            found[f"{path.relative_to(PROJECT_DIR)}:{node.lineno}"] += 1
    return found


def test_no_test_searches_markup_as_a_substring():
    per_file: Counter[str] = Counter()
    for where, count in markup_checks().items():
        per_file[where.rsplit(":", 1)[0]] += count
    grown = {
        where: count
        for where, count in markup_checks().items()
        if per_file[where.rsplit(":", 1)[0]] > PENDING.get(where.rsplit(":", 1)[0], 0)
    }
    assert grown == {}, "assert on parsed HTML (tests/html.py: one, select, text_of, roots) instead"


def test_the_scan_finds_a_markup_search():
    # A scan that stops matching can't pass by finding nothing.
    tree = ast.parse(
        "assert 'aria-current=\"page\"' in html\nassert html.startswith('<form')\nre.search(r'<li>x', html)"
    )
    assert len(list(markup_searches(tree))) == 3
    assert list(markup_searches(ast.parse("assert API_KEY not in body\nassert 'Saved' in text"))) == []
