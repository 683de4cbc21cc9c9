"""What a template shows a person that is not marked for translation.

A template is read as Django's lexer reads it: text, variables and tags. The
words inside {% translate %} and {% blocktranslate %} are marked; a variable
({{ ... }}) is a value (the service's, the data's, or a string marked where
it is made); {% comment %} and {# #} are nobody's. What is left is parsed as
HTML: the text between tags (not in <script>, <style>, <code> or an element marked
translate="no", the HTML attribute for "leave this as it is") and the
attributes people read (title, aria-label, placeholder, alt, aria-description,
the value of a button) are unmarked when they hold a letter. A .txt template
(an email) is all text."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from django.template.base import Lexer, TokenType

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
# Stands for a value or a marked string: no letter in it.
MARK = "\x01"
LETTER = re.compile(r"[^\W\d_]")
# data-label: a stacked table's cell heading on a phone (CSS content: attr(data-label)).
READ_ATTRIBUTES = {
    "title",
    "aria-label",
    "placeholder",
    "alt",
    "aria-description",
    "aria-roledescription",
    "data-label",
}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def template_paths() -> list[Path]:
    return sorted(path for path in TEMPLATES.rglob("*") if path.suffix in {".html", ".txt"})


def name_of(path: Path) -> str:
    return path.relative_to(TEMPLATES).as_posix()


def flattened(source: str) -> str:
    """The template with every marked string and value as MARK, tags and comments gone."""
    out: list[str] = []
    skip_until: str | None = None
    for token in Lexer(source).tokenize():
        if token.token_type is TokenType.BLOCK:
            word = token.contents.split(" ", 1)[0]
            if skip_until is not None:
                if word == skip_until:
                    skip_until = None
                continue
            if word in {"translate", "trans"}:
                out.append(MARK)
            elif word in {"blocktranslate", "blocktrans"}:
                out.append(MARK)
                skip_until = "end" + word
            elif word == "comment":
                skip_until = "endcomment"
            # Any other tag: its words are code (an address, a condition), not text.
        elif skip_until is not None:
            continue
        elif token.token_type is TokenType.VAR:
            out.append(MARK)
        elif token.token_type is TokenType.TEXT:
            out.append(token.contents)
    return "".join(out)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, words left as they are)

    def _quiet(self) -> bool:
        return any(quiet for _, quiet in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        # <code>: what a person types or sees in a terminal (a header, a path), the same in every language.
        quiet = self._quiet() or tag in {"script", "style", "code"} or values.get("translate") == "no"
        if not quiet:
            for name, value in attrs:
                if value is None:
                    continue
                read = name in READ_ATTRIBUTES or (
                    name == "value" and tag == "input" and values.get("type") in {"submit", "button", "reset"}
                )
                if read and LETTER.search(value):
                    self.found.append(f'{tag} {name}="{value.strip()}"')
        if tag not in VOID:
            self.stack.append((tag, quiet))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                del self.stack[index:]
                break

    def handle_data(self, data: str) -> None:
        if not self._quiet() and LETTER.search(data):
            self.found.append(" ".join(data.split()))


def unmarked_strings(path: Path) -> list[str]:
    text = flattened(path.read_text())
    if path.suffix == ".txt":
        return [" ".join(line.split()) for line in text.splitlines() if LETTER.search(line)]
    reader = _Reader()
    reader.feed(text)
    reader.close()
    return reader.found
