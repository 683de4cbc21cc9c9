"""Every request a page makes by itself is background: it keeps no session
alive (dashboard/accounts/middleware.py). The test reads every template,
finds each element that polls or fires on its own (an htmx trigger `every`,
`load` or `sse:`, an SSE or WebSocket connection, the health address
console.js retries while the console is unreachable), resolves the URL it
calls through Django's URL resolver, and asserts the view is marked
`@background_request`, so a new poll can't be forgotten."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator

from django.urls import URLResolver, get_resolver

from dashboard.accounts.middleware import is_background
from tests.helpers import PROJECT_DIR
from tests.html import parse

TEMPLATES = PROJECT_DIR / "templates"
# First word of an hx-trigger that fires without the person: a timer, the
# element's own load (also when a poll swaps it in), a server-sent event.
SELF_TRIGGERS = ("every", "load", "sse:")
# Attributes whose URL the page calls by itself whatever its trigger.
SELF_CALLED = ("sse-connect", "ws-connect", "data-health-url")
REQUEST_ATTRIBUTES = ("hx-get", "hx-post", "hx-put", "hx-patch", "hx-delete")
# The polls known today: the scan must find at least these (a scan that
# stops parsing can't pass by finding nothing).
KNOWN_POLLS = {
    "live:status",
    "inbox:header",
    "agents:run_row",
    "objects:job_status",
    "studio:conversation_live",
    "studio:artifact_pane",
    "healthz",
}

COMMENT_BLOCK = re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}|{#.*?#}", re.S)
URL_AS = re.compile(r"""{%\s*url\s+['"]([\w:-]+)['"][^%]*?\bas\s+(\w+)\s*%}""")
URL_TAG = re.compile(r"""{%\s*url\s+['"]([\w:-]+)['"][^%]*%}""")
VARIABLE = re.compile(r"{{\s*([\w.]+)[^}]*}}")
OTHER_TAG = re.compile(r"{%.*?%}", re.S)
MARKED_URL = re.compile(r"@url:([\w:-]+)@")


def views_by_name(resolver: URLResolver | None = None, prefix: str = "") -> Iterator[tuple[str, Callable]]:
    """(namespaced URL name, view) for every named URL pattern."""
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            yield from views_by_name(pattern, f"{prefix}{pattern.namespace}:" if pattern.namespace else prefix)
        elif pattern.name:
            yield f"{prefix}{pattern.name}", pattern.callback


def plain_html(source: str) -> str:
    """A template as HTML an HTML parser reads: each `{% url %}` (also one
    stored `as` a variable and used as `{{ variable }}`) becomes
    `@url:<name>@`, other variables `0` (so `every {{ s }}s` reads `every 0s`),
    other tags nothing (both branches of an `{% if %}` stay: the stricter)."""
    source = COMMENT_BLOCK.sub("", source)
    stored = {variable: name for name, variable in URL_AS.findall(source)}
    source = URL_AS.sub("", source)
    source = URL_TAG.sub(lambda match: f"@url:{match[1]}@", source)
    source = VARIABLE.sub(lambda match: f"@url:{stored[match[1]]}@" if match[1] in stored else "0", source)
    return OTHER_TAG.sub(" ", source)


def fires_by_itself(trigger: str) -> bool:
    return any(part.strip().startswith(SELF_TRIGGERS) for part in trigger.split(","))


def polled_urls() -> dict[str, list[str]]:
    """URL name -> where in the templates it is called by the page itself."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(TEMPLATES.rglob("*.html")):
        where = str(path.relative_to(TEMPLATES))
        for element in parse(plain_html(path.read_text())).find_all(True):
            called = [element.get(name, "") for name in SELF_CALLED if element.has_attr(name)]
            if fires_by_itself(element.get("hx-trigger", "")):
                called += [element.get(name, "") for name in REQUEST_ATTRIBUTES if element.has_attr(name)]
            for url in called:
                names = MARKED_URL.findall(url)
                assert names, (
                    f"{where}: <{element.name}> calls {url!r} by itself, and the test can't tell which view "
                    "answers: write its address with {% url %} in the template"
                )
                for name in names:
                    found[name].append(where)
    return found


def test_the_scan_reads_a_trigger_and_an_address_the_way_the_templates_write_them():
    html = plain_html(
        '{% url "a:list" as list_url %}<div {% if x %}hx-get="{% url \'a:poll\' op.pk %}?v={{ v }}" '
        'hx-trigger="every {{ s }}s"{% endif %}></div><form hx-get="{{ list_url }}" hx-trigger="change"></form>'
    )
    poll, form = parse(html).find_all(["div", "form"])
    assert (poll["hx-get"], poll["hx-trigger"]) == ("@url:a:poll@?v=0", "every 0s")
    assert fires_by_itself(poll["hx-trigger"]) and form["hx-get"] == "@url:a:list@"
    assert not fires_by_itself(form["hx-trigger"]) and not fires_by_itself("input changed delay:300ms, search")
    assert fires_by_itself("load") and fires_by_itself("change, every 5s") and fires_by_itself("sse:message")


def test_every_url_a_page_polls_is_answered_by_a_background_view():
    views = defaultdict(list)
    for name, view in views_by_name():
        views[name].append(view)
    found = polled_urls()

    assert KNOWN_POLLS <= set(found), f"the scan missed {sorted(KNOWN_POLLS - set(found))}"
    unresolved = sorted(name for name in found if name not in views)
    assert not unresolved, f"polled URL names the resolver doesn't know: {unresolved}"
    kept_alive = {
        name: found[name]
        for name, answering in views.items()
        if name in found and not all(map(is_background, answering))
    }
    assert not kept_alive, f"these polled views would keep a session alive; mark them @background_request: {kept_alive}"
