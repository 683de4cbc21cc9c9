"""Django's `{# ... #}` comment is one line only: one that spans lines is not
a comment at all, and Django prints it on the page. Longer comments use
`{% comment %}`. This scan reads every template and fails on a `{#` whose
`#}` is not on the same line."""

from __future__ import annotations

from tests.helpers import PROJECT_DIR

TEMPLATE_DIRS = [
    PROJECT_DIR / "templates",
    *PROJECT_DIR.glob("*/templates"),
    *PROJECT_DIR.glob("dashboard/*/templates"),
]


def open_comments(text: str) -> list[int]:
    """Line numbers (from 1) of `{#` comments that do not close on their own line."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        rest = line
        while "{#" in rest:
            rest = rest[rest.index("{#") + 2 :]
            if "#}" not in rest:
                found.append(number)
                break
            rest = rest[rest.index("#}") + 2 :]
    return found


def test_the_scan_finds_a_comment_spanning_lines_and_passes_one_line_ones():
    assert open_comments("{# one line #}\n<p>{# and #} {# two #}</p>") == []
    assert open_comments("<p>\n{# starts here\n   ends here #}\n</p>") == [2]
    assert open_comments("{# fine #} {# but this one\n#}") == [1]


def test_no_template_has_a_one_line_comment_spanning_lines():
    templates = [path for folder in TEMPLATE_DIRS if folder.is_dir() for path in folder.rglob("*.html")]
    assert templates
    spanning = {
        f"{path.relative_to(PROJECT_DIR)}:{line}"
        for path in templates
        for line in open_comments(path.read_text(encoding="utf-8"))
    }
    assert spanning == set(), "use {% comment %} for a comment of more than one line"
