"""The key gate says what it means (issue #29, item 3): a view that works
without a working key says so itself (`@works_without_key`, or
`@login_not_required` for a page anyone may open signed out); the gate
(dashboard/frame/key_gate.py) never decides by a URL's name or namespace, so
an area naming a view like another area's cannot slip past it. Then every
address of the console is opened by a person whose key the service refused:
each answer that is not the refusal comes from a marked view. Both scans are
tried on a bad example first, so that they cannot pass by finding nothing."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

import pytest
from django.test import Client
from django.utils import timezone
from django.views.decorators.http import require_GET

from dashboard.accounts.middleware import is_background
from dashboard.frame.key_gate import works_without_a_key, works_without_key
from dashboard.keys.models import ApiKey
from dashboard.keys.testing import stored_api_key
from dashboard.tokens.services import token_create
from tests.helpers import PROJECT_DIR
from tests.write_guard import Address, console_addresses

# The modules that hold the gate: what decides whether a view needs a key.
GATE_MODULES = ["dashboard/frame/key_gate.py", "dashboard/frame/workspace.py"]
# What a URL's names are read through (django.urls.ResolverMatch).
URL_NAME_ATTRIBUTES = {"url_name", "namespace", "namespaces", "app_name", "app_names", "view_name", "route"}
CANDIDATES = ["999999", "image", "images", "remove-background"]


def url_name_reads(tree: ast.AST) -> Iterator[ast.Attribute]:
    """Every read of a URL's name or namespace in `tree`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in URL_NAME_ATTRIBUTES:
            yield node


def test_no_url_name_decides_the_key_gate():
    found = [
        f"{module}:{node.lineno} .{node.attr}"
        for module in GATE_MODULES
        for node in url_name_reads(ast.parse((PROJECT_DIR / module).read_text()))
    ]
    assert found == [], "mark the view with @works_without_key instead of listing its URL's name"


def test_the_scan_finds_a_gate_that_lists_url_names():
    # Yesterday's gate, as it was written in dashboard/frame/workspace.py.
    bad = ast.parse(
        "def _works_without_a_key(request):\n"
        "    match = request.resolver_match\n"
        "    return bool(KEYLESS_NAMESPACES.intersection(match.namespaces)) or match.url_name in KEYLESS_URL_NAMES\n"
    )
    assert sorted(node.attr for node in url_name_reads(bad)) == ["namespaces", "url_name"]
    assert list(url_name_reads(ast.parse("works_without_a_key(match.func)"))) == []


def test_the_mark_holds_whatever_the_order_of_decorators():
    def view(request):
        return None

    assert not works_without_a_key(require_GET(view))
    assert works_without_a_key(require_GET(works_without_key(view)))
    assert works_without_a_key(works_without_key(require_GET(lambda request: None)))


def api_token(address: Address, token: str) -> dict[str, str]:
    """The bearer header for an address of the console's API ({} for a page)."""
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"} if address.url.startswith("/api/") else {}


def unmarked_answers(answers: Iterable[tuple[Address, object]]) -> list[str]:
    """The addresses whose answer to a person with a refused key is not the
    refusal although their view is not marked as working without a key. A
    poll (`@background_request`) is held to the rule only when it answers
    with content (200, 286): its 204 or 404 shows nothing."""
    found = []
    for address, response in answers:
        if getattr(response, "key_refused", False) or works_without_a_key(address.view):
            continue
        if is_background(address.view) and getattr(response, "status_code", 200) not in (200, 286):
            continue
        found.append(address.name or address.route)
    return found


def test_the_check_finds_an_unmarked_view_that_answered():
    class Answer:
        def __init__(self, status_code: int, key_refused: bool = False) -> None:
            self.status_code, self.key_refused = status_code, key_refused

    def unmarked(request):
        return None

    marked = works_without_key(lambda request: None)
    answers = [
        (Address("area:leaks", "leaks/", unmarked, "/leaks/", ("area",)), Answer(200)),
        (Address("area:held", "held/", unmarked, "/held/", ("area",)), Answer(401, key_refused=True)),
        (Address("keys:list", "keys/", marked, "/keys/", ("keys",)), Answer(200)),
    ]
    assert unmarked_answers(answers) == ["area:leaks"]


@pytest.mark.django_db
def test_every_view_a_refused_key_reaches_is_marked(user, remote, fake_service_settings):
    key = stored_api_key(user=user, secret="svc_sk_gate0123456789abcdefghijklmnopqrstuvwxyzAB")
    ApiKey.objects.filter(pk=key.pk).update(refused_at=timezone.now(), refused_request_id="req_gate")
    browser = Client(raise_request_exception=False)
    browser.force_login(user)
    addresses = console_addresses(CANDIDATES)
    # A marked view passes by its mark; every other one is opened (the gate
    # answers before the view, whatever the method).
    unmarked = [address for address in addresses if not works_without_a_key(address.view)]
    assert [address.name or address.route for address in unmarked if not address.url] == []
    # The console's API is opened as the same person with a token of the refused key's workspace.
    ApiKey.objects.filter(pk=key.pk).update(refused_at=None)
    token = token_create(
        user=user, workspace_id=key.workspace_id, name="Gate", scopes=["read"], days=1, allowed_from=[]
    ).token
    ApiKey.objects.filter(pk=key.pk).update(refused_at=timezone.now(), refused_request_id="req_gate")
    answers = [(address, browser.get(address.url, **api_token(address, token))) for address in unmarked]

    assert unmarked_answers(answers) == []
    # Proof the walk opened the console: pages of every area were refused...
    refused = {address.name for address, response in answers if getattr(response, "key_refused", False)}
    assert {"home", "inbox:index", "studio:index", "agents:approvals", "objects:index", "audit:index"} <= refused
    assert {"console_api:me", "console_api:inbox", "console_api:approvals_waiting"} <= refused
    # ... and the marks are where they are meant to be.
    marked = {address.name for address in addresses if works_without_a_key(address.view)}
    assert {"keys:list", "palette", "people:index", "system:status", "logout", "studio:shared", "login"} <= marked
    assert not {"home", "account", "inbox:index", "studio:index", "live:status"} & marked
    assert remote.calls.call_count == 0  # the refused key was asked nothing
