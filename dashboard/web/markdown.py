"""Markdown and HTML made inert: what people or the service wrote, shown as
HTML with only text-structure tags (nh3, Ammonia): no script, no style, no
event handler, no `javascript:` address, no form. Links open without an
opener. Raw HTML inside markdown is not passed through (markdown's own
syntax only). Studio documents and record comments read through here; the
page's strict CSP is a second wall behind this one."""

from __future__ import annotations

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

ALLOWED_TAGS = {
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote", "pre", "code",
    "ul", "ol", "li", "strong", "em", "b", "i", "u", "s", "del", "ins", "sub", "sup",
    "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "a", "dl", "dt", "dd", "span", "div",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"colspan", "rowspan"}, "td": {"colspan", "rowspan"}}

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def sanitise(html: str) -> SafeString:
    cleaned = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    return mark_safe(cleaned)


def markdown_html(body: str) -> SafeString:
    """Markdown as safe HTML."""
    return sanitise(_markdown.render(body))
