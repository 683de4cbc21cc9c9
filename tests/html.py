"""Assertions on parsed HTML: tests select elements and read their text
instead of searching the markup for substrings."""

from __future__ import annotations

from bs4 import BeautifulSoup, Tag


def parse(html: str | bytes) -> BeautifulSoup:
    if isinstance(html, bytes):
        html = html.decode()
    return BeautifulSoup(html, "html.parser")


def select(html: str | bytes | Tag, selector: str) -> list[Tag]:
    """Elements matching a CSS selector, in a page or inside an element."""
    soup = html if isinstance(html, Tag) else parse(html)
    return soup.select(selector)


def one(html: str | bytes | Tag, selector: str) -> Tag:
    """The single element `selector` matches (fails when none or several do)."""
    found = select(html, selector)
    assert len(found) == 1, f"{selector!r} matched {len(found)} elements"
    return found[0]


def text_of(element: Tag) -> str:
    """An element's visible text with white space folded."""
    return " ".join(element.get_text(" ").split())


def texts(html: str | bytes | Tag, selector: str) -> list[str]:
    return [text_of(element) for element in select(html, selector)]
