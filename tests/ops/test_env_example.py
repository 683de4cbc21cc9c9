""".env.example documents every setting read from the environment, in a form
that both django-environ and docker-compose read the same way."""

from __future__ import annotations

import re

from tests.helpers import PROJECT_DIR

SETTING_READ = re.compile(r"""env\.(?:str|bool|int|float|list|db|cache|url|json|path)\(\s*["']([A-Z][A-Z0-9_]+)["']""")


def example_lines() -> list[str]:
    return (PROJECT_DIR / ".env.example").read_text().splitlines()


def test_every_setting_read_from_the_environment_is_in_env_example():
    read = set(SETTING_READ.findall((PROJECT_DIR / "dashboard" / "settings.py").read_text()))
    documented = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", "\n".join(example_lines()), flags=re.MULTILINE))

    assert read, "no env reads found: the pattern no longer matches settings.py"
    assert sorted(read - documented) == []


def test_env_example_values_carry_no_inline_comment():
    # django-environ keeps "value   # note" whole, so a note after a value breaks it.
    assignments = [line for line in example_lines() if re.match(r"^[A-Z][A-Z0-9_]+=", line)]

    assert assignments
    assert [line for line in assignments if "#" in line] == []
