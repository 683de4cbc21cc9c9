"""Tolerant readers of what the Studio sends: outlines, progress events,
video pending requests, library items. Pure functions of JSON values: they
never raise on an odd shape (the contract leaves these shapes open, and a
second implementation of the service must work too)."""

from __future__ import annotations

import re
from typing import Any

from dashboard.web.converters import RemoteIdConverter
from dashboard.web.reading import as_dict, as_list, number, read_questions, text
from studio.words import action_words, key_label, prose, status_words

# Words an outline uses for its parts, in the order they are looked for.
HEADING_KEYS = ("heading", "title", "name", "label", "text", "summary")
CHILD_KEYS = ("sections", "items", "children", "points", "bullets", "slides", "pages", "parts", "outline", "steps")
MAX_OUTLINE_DEPTH = 6
MAX_OUTLINE_NODES = 400


def _heading(node: dict) -> str:
    for key in HEADING_KEYS:
        value = node.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and text(value).strip():
            return text(value).strip()
    return ""


def _children(node: dict) -> list:
    for key in CHILD_KEYS:
        value = node.get(key)
        if isinstance(value, list):
            return value
        if isinstance(value, dict):
            return [value]
    return []


def read_outline(raw: Any) -> dict[str, Any]:
    """An outline of any shape as `{title, kind, nodes: [{heading, nodes}]}`.

    Read shapes: `{title, sections: [{heading, points: [...]}]}` and its
    synonyms (items, children, bullets, slides...), a list of strings or of
    such nodes, a markdown-ish string (one line per node, `#`/`-` marks
    stripped), or a mapping of heading -> points. What carries no words is
    left out; nothing is ever shown as a dict's repr."""
    budget = [MAX_OUTLINE_NODES]

    def nodes_of(value: Any, depth: int) -> list[dict[str, Any]]:
        if depth > MAX_OUTLINE_DEPTH or budget[0] <= 0:
            return []
        if isinstance(value, str):
            return [node for line in value.splitlines() if (node := _line_node(line, budget))]
        if isinstance(value, dict):
            return [node] if (node := node_of(value, depth)) else []
        found: list[dict[str, Any]] = []
        for item in as_list(value):
            if isinstance(item, dict):
                node = node_of(item, depth)
                if node:
                    found.append(node)
            elif isinstance(item, list):
                found.extend(nodes_of(item, depth + 1))
            elif item not in (None, "") and not isinstance(item, bool):
                found.append({"heading": text(item).strip(), "nodes": []})
                budget[0] -= 1
            if budget[0] <= 0:
                break
        return found

    def node_of(value: dict, depth: int) -> dict[str, Any] | None:
        heading = _heading(value)
        children = _children(value)
        if not heading and not children:
            # A mapping of heading -> points ({"Intro": ["a", "b"]}).
            pairs = [(key, item) for key, item in value.items() if isinstance(key, str)]
            nodes = [
                {"heading": key, "nodes": nodes_of(item, depth + 1)}
                for key, item in pairs
                if isinstance(item, (list, str))
            ]
            if len(nodes) == 1:
                return nodes[0]
            return {"heading": "", "nodes": nodes} if nodes else None
        budget[0] -= 1
        return {"heading": heading, "nodes": nodes_of(children, depth + 1)}

    body = as_dict(raw)
    if body and (_children(body) or not _heading(body)):
        title = text(body.get("title") or body.get("name")).strip() if isinstance(body.get("title") or "", str) else ""
        kind = text(body.get("doc_type") or body.get("type") or body.get("kind")).strip()
        nodes = nodes_of(_children(body), 1) if _children(body) else nodes_of(body, 1)
    else:
        title, kind = "", ""
        nodes = nodes_of(raw, 1)
    # A lone wrapper without a heading adds nothing: show what it holds.
    while len(nodes) == 1 and not nodes[0]["heading"] and nodes[0]["nodes"]:
        nodes = nodes[0]["nodes"]
    return {"title": title, "kind": kind if isinstance(kind, str) else "", "nodes": nodes}


def _line_node(line: str, budget: list[int]) -> dict[str, Any] | None:
    stripped = line.strip().lstrip("#*-•0123456789.) ").strip()
    if not stripped:
        return None
    budget[0] -= 1
    return {"heading": stripped, "nodes": []}


def read_event(name: str, data: Any) -> dict[str, str]:
    """One streamed progress event (`turn`, `plan`, `status`) as a line a
    person reads. The events' data is "not shown" by the contract."""
    body = as_dict(data)
    if name == "plan":
        steps = [
            text(step.get("text") or step.get("title")) if isinstance(step, dict) else text(step)
            for step in as_list(body.get("steps") or body.get("plan") or data)
        ]
        steps = [step for step in steps if step]
        said = "Plan: " + "; ".join(steps) if steps else text(body.get("message")) or "The director made a plan."
    elif name == "status":
        # Statuses and stages are the service's keys ("needs_input"): a person reads "Needs input".
        status = key_label(status_words(text(body.get("status"))))
        stage = status_words(text(body.get("stage")))
        parts = [status, stage and f"stage {stage}"]
        said = " · ".join(part for part in parts if part)
        message = prose(text(body.get("message")))
        said = f"{said}: {message}" if said and message else (said or message or "Working…")
    elif name == "turn":
        status = status_words(text(body.get("status")))
        said = "The director took the turn" + (f" ({status})" if status else ".")
    else:
        said = prose(text(body.get("message"))) or key_label(status_words(name))
    return {"event": name, "text": said[:500]}


# The Content App that makes each kind of video pending request, when the
# request does not name one itself (the sandbox names `app`; another
# implementation may only give a kind or a path).
PENDING_APPS = {"generate": "generate", "film": "generate", "shot": "generate", "motion": "motion"}


def read_pending_request(raw: Any) -> dict[str, Any]:
    """A video turn's pending request: what it is and which app makes it."""
    item = as_dict(raw)
    app = text(item.get("app")).strip()
    if not app:
        path = text(item.get("path"))
        if "/apps/" in path:
            app = path.rsplit("/apps/", 1)[1].strip("/")
    if not app:
        app = PENDING_APPS.get(text(item.get("kind")).strip().lower(), "")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,63}", app):
        app = ""  # not an app id the console can open
    label = text(item.get("label") or item.get("title")) or key_label(
        status_words(text(item.get("kind") or item.get("type")))
    )
    label = label or "A request"
    return {
        "label": label,
        # The button's words: "Run film an AI shot" (the label as written, only its first letter lowered).
        "action": "Run " + action_words(label),
        "app": app,
        "prompt": text(item.get("prompt") or item.get("message") or item.get("description")),
        "raw": raw if not isinstance(raw, (dict, str)) or not item else None,
    }


def read_skipped(raw: Any) -> dict[str, str]:
    item = as_dict(raw)
    if not item:
        return {"operation": key_label(status_words(text(raw))) or "An edit", "reason": ""}
    return {
        "operation": key_label(status_words(text(item.get("operation") or item.get("name") or item.get("kind"))))
        or "An edit",
        "reason": prose(text(item.get("reason") or item.get("message"))),
    }


def read_image(raw: Any) -> dict[str, Any] | None:
    """An image asset with a usable http(s) address, else None."""
    item = as_dict(raw)
    url = text(item.get("url"))
    if not url.startswith(("http://", "https://")):
        return None
    return {
        "id": usable_id(item.get("id")),
        "url": url,
        "width": number(item.get("width")),
        "height": number(item.get("height")),
        "prompt": text(item.get("prompt")),
        "media_type": text(item.get("media_type")),
        "board_id": usable_id(item.get("board_id")),
    }


def safe_link(value: Any) -> str:
    """An address fit for an `href`: http(s) only (never `javascript:`)."""
    url = text(value).strip()
    return url if url.startswith(("http://", "https://")) else ""


_REMOTE_ID = re.compile(RemoteIdConverter.regex)


def usable_id(value: Any) -> str:
    """An id that can go into one of the console's own paths ("" otherwise:
    the page then shows the item without a link, never a server error)."""
    candidate = text(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    return candidate if _REMOTE_ID.fullmatch(candidate) else ""


def read_result(raw: Any) -> dict[str, Any]:
    """A Content App's answer: image apps' `assets`, a video shot's `status`,
    `job` and (when done) `asset`, the motion app's `motion` (with
    `questions` when the brief was too vague). Inner shapes are "not shown"."""
    body = as_dict(raw)
    job = as_dict(body.get("job"))
    motion = as_dict(body.get("motion"))
    asset = read_image(body.get("asset")) or read_image(motion.get("asset"))
    status = text(body.get("status")) or text(job.get("status")) or text(motion.get("status"))
    return {
        "status": status,
        "images": [image for item in as_list(body.get("assets")) if (image := read_image(item))],
        "asset": asset,
        "asset_seconds": number(as_dict(body.get("asset") or motion.get("asset")).get("duration_seconds")),
        "job_status": text(job.get("status")),
        "job_error": job.get("error"),
        "motion": bool(motion),
        "questions": read_questions(motion.get("questions") or body.get("questions")),
        "hint": text(motion.get("hint")),
        "charged": number(body.get("credits_charged")),
        "error": body.get("error"),
    }
