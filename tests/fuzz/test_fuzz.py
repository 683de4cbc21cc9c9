"""Every form and query of every area, fuzzed: hostile values in path ids,
query parameters and form fields (NUL, CR, LF, lone surrogates, huge
numbers, NaN and Infinity, deep JSON, very long text), sent as plain
requests and as htmx ones, against the sandbox served in-process. The one
property: the console never answers a server error or shows a traceback.

Hypothesis runs with a fixed seed (derandomize) and a bounded number of
examples per URL (`FUZZ_EXAMPLES`, default 25: about 1,500 requests), so a
run is repeatable and takes a minute or two.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from tests.fuzz.conftest import restore_console
from tests.fuzz.support import FUZZ_TABLE, NOT_FUZZED_NAMESPACES, Route, console_routes, hostile_text, urlencoded

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))

HTMX_HEADERS = [
    {},
    {"HTTP_HX_REQUEST": "true"},
    {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "records-table", "HTTP_HX_CURRENT_URL": "http://testserver/"},
    {"HTTP_HX_REQUEST": "true", "HTTP_HX_BOOSTED": "true"},
    {"HTTP_HX_REQUEST": "true", "HTTP_HX_HISTORY_RESTORE_REQUEST": "true"},
]


def test_every_url_of_the_console_is_in_the_fuzz_table():
    names = {route.name for route in console_routes()}
    assert names, "no URL found"
    assert not names - set(FUZZ_TABLE), (
        f"add these URLs to FUZZ_TABLE in tests/fuzz/support.py: {names - set(FUZZ_TABLE)}"
    )
    assert not set(FUZZ_TABLE) - names, f"FUZZ_TABLE names URLs that no longer exist: {set(FUZZ_TABLE) - names}"
    assert not any(name.split(":")[0] in NOT_FUZZED_NAMESPACES for name in FUZZ_TABLE)


def _value(real: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(real), hostile_text()) if real else hostile_text()


@st.composite
def fuzzed_request(draw, route: Route, ids, method: str):
    target = FUZZ_TABLE[route.name]
    path_values = {name: draw(_value(getattr(ids, name, []))) for name in route.parameters}
    names = list(target.form if method == "POST" else target.query)
    if target.record_fields and (target.record_fields == "form") == (method == "POST"):
        prefix = "f." if target.record_fields == "query" else ""
        names += [prefix + key for key in ids.field_key]
    chosen = draw(st.lists(st.sampled_from(names), max_size=8)) if names else []
    chosen += draw(st.lists(hostile_text(), max_size=1))  # a name no view reads
    pairs = []
    for name in chosen:
        real = (
            ids.field_key
            if name in ("sort", "shown", "empty", "title_field")
            else ids.thread
            if "thread" in name
            else []
        )
        pairs += [(name, value) for value in draw(st.lists(_value(real), min_size=1, max_size=2))]
    headers = draw(st.sampled_from(HTMX_HEADERS))
    return route.path(path_values), pairs, headers


def _fuzz_cases():
    for route in console_routes():
        target = FUZZ_TABLE.get(route.name)
        for method in target.methods if target else ("GET",):
            yield pytest.param(route, method, id=f"{method} {route.name}")


@pytest.mark.parametrize(("route", "method"), list(_fuzz_cases()))
def test_no_server_error_whatever_is_sent(route, method, seeded_ids, client, user, inprocess_sandbox):
    target = FUZZ_TABLE[route.name]
    _app, secret = inprocess_sandbox

    @settings(
        max_examples=target.examples or EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(request=fuzzed_request(route, seeded_ids, method))
    def check(request):
        path, pairs, headers = request
        restore_console(client, user, secret)
        encoded = urlencoded(pairs)
        note(f"{method} {path} {pairs!r:.1000} {headers}")
        if method == "GET":
            response = client.get(f"{path}?{encoded}" if encoded else path, **headers)
        else:
            response = client.generic(
                "POST", path, encoded, content_type="application/x-www-form-urlencoded", **headers
            )
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert response.status_code < 500, f"{method} {path} {pairs!r:.500} answered {response.status_code}"
        assert b"Traceback" not in body

    check()
