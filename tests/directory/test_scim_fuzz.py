"""Whatever a directory (or someone holding its token) sends, SCIM answers in
its own error body, never a 500: hostile filters, bodies of every JSON shape,
PATCH operations with odd ops, paths and values."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.directory.support import new_user
from tests.fuzz.support import hostile_text

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# JSON without NUL... and with it: PostgreSQL stores no NUL, the answer must still be a 400.
values = st.recursive(
    st.none() | st.booleans() | st.integers() | hostile_text() | st.sampled_from(["True", "False", "members"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(hostile_text(), inner, max_size=3),
    max_leaves=8,
)
paths = (
    st.sampled_from(
        [
            "",
            "active",
            "userName",
            "name",
            "name.givenName",
            "emails",
            'emails[type eq "work"].value',
            "members",
            'members[value eq "1"]',
            "displayName",
            "externalId",
        ]
    )
    | hostile_text()
)
operation = st.fixed_dictionaries(
    {"op": st.sampled_from(["add", "Replace", "remove", "move", ""]) | hostile_text(), "path": paths, "value": values}
)


def _scim_answered(status: int, response) -> None:
    assert status < 500
    if status >= 400:
        assert response["Content-Type"] == "application/scim+json"
        assert json.loads(response.content)["status"] == str(status)


def test_filters_and_paging_never_fail(scim):
    @FUZZ
    @given(text=hostile_text(), start=hostile_text(), where=st.sampled_from(["Users", "Groups"]))
    def check(text, start, where):
        status, _, response = scim.call("GET", where, filter=f'userName eq "{text}"', startIndex=start)
        _scim_answered(status, response)
        status, _, response = scim.call("GET", where, filter=text)
        _scim_answered(status, response)

    check()


def test_bodies_of_every_shape_never_fail(scim):
    _, made, _ = scim.call("POST", "Users", new_user())
    _, group, _ = scim.call("POST", "Groups", {"displayName": "Sales"})

    @FUZZ
    @given(
        body=st.dictionaries(
            st.sampled_from(["userName", "name", "emails", "active", "displayName", "members"]), values
        )
        | values,
        operations=st.lists(operation, max_size=3),
        target=st.sampled_from(["Users", f"Users/{made['id']}", "Groups", f"Groups/{group['id']}"]),
    )
    def check(body, operations, target):
        method = "PUT" if "/" in target else "POST"
        status, _, response = scim.call(method, target, body)
        _scim_answered(status, response)
        if "/" in target:
            status, _, response = scim.call("PATCH", target, {"Operations": operations})
            _scim_answered(status, response)

    check()
