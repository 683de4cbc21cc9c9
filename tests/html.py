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


def textarea_value(element: Tag) -> str:
    """A textarea's value as a browser reads it (the newline after the tag is not part of it)."""
    value = element.get_text()
    return value[1:] if value.startswith("\n") else value


def form_values(form: Tag) -> dict:
    """A form's fields as a browser would post them unchanged (checked boxes and radios as lists)."""
    data: dict = {}
    for element in form.select("input, select, textarea"):
        name = element.get("name")
        if not name:
            continue
        kind = element.get("type", "")
        if element.name == "select":
            chosen = [option.get("value") for option in element.select("option") if option.has_attr("selected")]
            if chosen:
                data[name] = chosen[0]
        elif element.name == "textarea":
            data[name] = textarea_value(element)
        elif kind in ("checkbox", "radio"):
            if element.has_attr("checked"):
                data.setdefault(name, []).append(element.get("value", "on"))
        else:
            data[name] = element.get("value", "")
    return data


def texts(html: str | bytes | Tag, selector: str) -> list[str]:
    return [text_of(element) for element in select(html, selector)]


def roots(html: str | bytes) -> list[Tag]:
    """The outermost elements of a response: `[html]` for a whole page, the swapped elements for a partial."""
    return [element for element in parse(html).children if isinstance(element, Tag)]


def root_ids(html: str | bytes) -> list[str]:
    """What a partial swaps in: the tag name, or `tag#id`, of each outermost element."""
    return [f"{element.name}#{element['id']}" if element.get("id") else element.name for element in roots(html)]
