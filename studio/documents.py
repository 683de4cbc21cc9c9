"""A document's content, rendered readably and inert.

`GET /v1/documents/{id}` returns the full content (the sandbox sends
markdown with `format: markdown`; another implementation may send HTML or
plain text). Whatever arrives is turned into HTML and then sanitised with
nh3 (Ammonia, dashboard/web/markdown.py): only text-structure tags survive, no script, no style, no
event handler, no `javascript:` address, no form. Links open in a new tab
without an opener. The page's strict CSP is a second wall behind this one.
"""

from __future__ import annotations

from typing import Any

from django.utils.html import escape, linebreaks
from django.utils.safestring import SafeString, mark_safe

from dashboard.web.markdown import markdown_html, sanitise
from dashboard.web.reading import as_dict, text

MAX_CONTENT = 1_000_000  # characters rendered; a longer document is cut (and says so)


def render_content(content: Any, content_format: Any = "") -> SafeString:
    """The document's content as safe HTML, whatever its format."""
    body = text(content)[:MAX_CONTENT]
    kind = text(content_format).lower()
    if not body.strip():
        return mark_safe("")
    if kind == "html":
        return sanitise(body)
    if kind in ("text", "plain", "plaintext", "txt"):
        return sanitise(linebreaks(escape(body)))
    return markdown_html(body)


def document_source(body: Any) -> tuple[str, str]:
    """A document's content as sent (text, format), whatever its shape: a
    string beside `format`, or {format, body|text|markdown|html}. Versions
    keep this source (studio/versions.py), not the rendered HTML."""
    doc = as_dict(body)
    content = doc.get("content")
    if isinstance(content, dict):  # {format, body|text|markdown|html}
        inner = content
        content = inner.get("markdown") or inner.get("body") or inner.get("text") or inner.get("html") or ""
        content_format = "html" if inner.get("html") and not inner.get("markdown") else inner.get("format", "")
    else:
        content_format = doc.get("format") or ""
    return text(content), text(content_format)


def read_document(body: Any) -> dict[str, Any]:
    """What a document page shows from `GET /v1/documents/{id}`."""
    doc = as_dict(body)
    content, content_format = document_source(doc)
    return {
        "name": text(doc.get("name") or doc.get("title")),
        "doc_type": text(doc.get("doc_type") or doc.get("type")),
        "revision": text(doc.get("revision")),
        "word_count": text(doc.get("word_count")),
        "html": render_content(content, content_format),
        "truncated": len(text(content)) > MAX_CONTENT,
        "outline": doc.get("outline"),
    }
