"""Personal access tokens and the console's API: made on the person's page
(shown once, kept as a hash, no scope beyond the role), refused in words when
missing, wrong, revoked, expired, from the wrong address or of a deactivated
person, narrowed at once by a demotion; the API's decision goes through the
console's decision flow against a real sandbox and is audited "via token"."""

from __future__ import annotations

import json
from datetime import timedelta

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone

from agents.audit_words import audit_words
from agents.models import ApprovalRule
from dashboard.audit.models import AuditEntry
from dashboard.audit.selectors import FEED_LIMIT_MOST
from dashboard.audit.testing import make_approver, make_auditor
from dashboard.inbox.services import workspace_refresh
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from dashboard.tokens.models import AccessToken
from dashboard.tokens.services import token_create
from tests.agents.support import store_demo_key
from tests.html import one, select, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def sandbox_key(tokens_sandbox, settings, user):
    settings.SERVICE_BASE_URL = tokens_sandbox.base_url
    return store_demo_key(user, tokens_sandbox)


def bearer(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def made(user, key, scopes=("read", "decide"), **more) -> str:
    return token_create(
        user=user,
        workspace_id=key.workspace_id,
        name=more.pop("name", "Release script"),
        scopes=list(scopes),
        days=more.pop("days", 30),
        allowed_from=more.pop("allowed_from", []),
    ).token


def error_of(response) -> dict:
    body = json.loads(response.content)
    assert set(body["error"]) == {"code", "message", "request_id"}
    return body["error"]


def test_a_token_is_made_on_the_page_shown_once_and_kept_only_as_its_hash(sandbox_key, user, logged_in_client):
    page = logged_in_client.get(reverse("tokens:list"))
    offered = [box["value"] for box in select(page.content, "input[name=scopes]")]
    # A Member: no "decide", no "audit" on offer.
    assert offered == ["read", "write:studio", "write:agents", "write:objects", "notifications"]

    answer = logged_in_client.post(
        reverse("tokens:new"),
        {"name": "Nightly export", "workspace_id": sandbox_key.workspace_id, "scopes": ["read"], "days": "30"},
    )

    token = one(answer.content, "#made-token")["value"]
    assert token.startswith("wsc_") and len(token) > 40
    assert "no-store" in answer["Cache-Control"]
    row = AccessToken.objects.get()
    assert row.secret_hash != token and token not in json.dumps(list(AccessToken.objects.values()), default=str)
    assert row.scopes == ["read"] and row.shown_prefix == token[: len(row.shown_prefix)]
    # Shown once: the page again has no token on it.
    assert select(logged_in_client.get(reverse("tokens:list")).content, "#made-token") == []


def test_a_scope_the_role_does_not_allow_or_a_bad_address_is_refused_in_place_keeping_what_was_typed(
    sandbox_key, logged_in_client
):
    answer = logged_in_client.post(
        reverse("tokens:new"),
        {
            "name": "My assistant",
            "workspace_id": sandbox_key.workspace_id,
            "scopes": ["read", "decide"],
            "days": "30",
            "allowed_from": "10.0.0.0/8\nnot-an-address",
        },
    )
    assert answer.status_code == 422
    errors = [text_of(node) for node in select(answer.content, ".field-error p")]
    assert "Your role does not allow the scope “decide”." in errors
    assert "“not-an-address” is not an address or a network" in " ".join(errors)
    assert one(answer.content, "input[name=name]")["value"] == "My assistant"
    assert AccessToken.objects.count() == 0


def test_the_api_refuses_in_words_without_a_working_token_and_never_makes_a_session(
    sandbox_key, user, client, django_user_model
):
    token = made(user, sandbox_key, scopes=("read", "write:objects"))
    missing = client.get("/api/v1/me")
    assert missing.status_code == 401 and missing["WWW-Authenticate"].startswith("Bearer")
    assert "personal access token" in error_of(missing)["message"]
    assert error_of(client.get("/api/v1/me", **bearer(token[:-3] + "xyz")))["code"] == "token_refused"

    fine = client.get("/api/v1/me", **bearer(token))
    assert fine.status_code == 200 and "sessionid" not in fine.cookies and "__Host-sessionid" not in fine.cookies
    assert fine.json()["token"]["scopes_in_force"] == ["read", "write:objects"]
    row = AccessToken.objects.get()
    assert row.last_used_at is not None and row.last_used_from == "127.0.0.1"

    AccessToken.objects.update(allowed_from=["10.0.0.0/8"])
    assert "not allowed from 127.0.0.1" in error_of(client.get("/api/v1/me", **bearer(token)))["message"]
    AccessToken.objects.update(allowed_from=[], expires_at=timezone.now() - timedelta(minutes=1))
    assert "expired" in error_of(client.get("/api/v1/me", **bearer(token)))["message"]
    AccessToken.objects.update(expires_at=timezone.now() + timedelta(days=1), revoked_at=timezone.now())
    assert "was revoked" in error_of(client.get("/api/v1/me", **bearer(token)))["message"]
    AccessToken.objects.update(revoked_at=None)
    django_user_model.objects.filter(pk=user.pk).update(is_active=False)
    assert "deactivated" in error_of(client.get("/api/v1/me", **bearer(token)))["message"]


def test_a_decision_through_the_api_goes_through_the_decision_flow_once_and_is_audited_via_the_token(
    sandbox_key, user, client, tokens_sandbox
):
    make_approver(user)
    token = made(user, sandbox_key)
    workspace_refresh(workspace_id=sandbox_key.workspace_id)
    waiting = client.get("/api/v1/approvals", **bearer(token)).json()["data"]
    chosen = next(item for item in waiting if not item["needs_confirmation"])
    decide = f"/api/v1/approvals/{chosen['id']}/decision"

    no_key = client.post(decide, {"decision": "approve"}, content_type="application/json", **bearer(token))
    assert error_of(no_key)["code"] == "idempotency_key_required"

    headers = {**bearer(token), "HTTP_IDEMPOTENCY_KEY": "release-42-approve"}
    first = client.post(decide, {"decision": "approve", "note": "From CI"}, content_type="application/json", **headers)
    again = client.post(decide, {"decision": "approve", "note": "From CI"}, content_type="application/json", **headers)

    assert first.status_code == 200 and first.json()["outcome"] == "decided"
    assert again.status_code in (200, 409)  # the same logical decision: replayed, never a second one
    listed = httpx.get(
        f"{tokens_sandbox.base_url}/v1/approvals",
        params={"status": "all", "limit": 100},
        headers={"Authorization": f"Bearer {tokens_sandbox.demo_key}"},
    ).json()["data"]
    assert next(item for item in listed if item["id"] == chosen["id"])["status"] == "approved"
    entries = AuditEntry.objects.filter(idempotency_key="release-42-approve", kind="approval_decision")
    assert entries.count() == 1
    words = audit_words(list(entries), sandbox_key.workspace_id)
    assert "via token Release script" in words[entries[0].pk]


def test_a_demotion_narrows_the_token_at_once_with_no_call_to_the_service(sandbox_key, user, client):
    make_approver(user)
    token = made(user, sandbox_key)
    person_role_set(user=user, role=Role.MEMBER)
    refused = client.post(
        "/api/v1/approvals/aaaaaaaa-0000-4000-8000-000000000001/decision",
        {"decision": "reject"},
        content_type="application/json",
        **bearer(token),
        HTTP_IDEMPOTENCY_KEY="k1",
    )
    assert refused.status_code == 403
    assert error_of(refused)["message"].startswith("Your role no longer allows “decide”")
    assert not AuditEntry.objects.filter(kind="write").exists()  # nothing reached the service


def test_the_openapi_document_is_served_openly_and_lists_the_decision():
    document = json.loads(__import__("django.test", fromlist=["Client"]).Client().get("/api/v1/openapi.json").content)
    assert document["openapi"].startswith("3.1")
    assert "/api/v1/approvals/{approval_id}/decision" in document["paths"]


def test_under_a_two_approvals_rule_a_tokens_vote_is_counted_and_nothing_is_sent_yet(sandbox_key, user, client):
    make_approver(user)
    token = made(user, sandbox_key, name="Assistant")
    workspace_refresh(workspace_id=sandbox_key.workspace_id)
    waiting = client.get("/api/v1/approvals", **bearer(token)).json()["data"]
    chosen = waiting[0]  # the module's sandbox: whichever is still waiting
    ApprovalRule.objects.create(workspace_id=sandbox_key.workspace_id, risk=chosen["risk"], approvals_needed=2)

    vote = client.post(
        f"/api/v1/approvals/{chosen['id']}/decision",
        {"decision": "approve", "confirmed": True},
        content_type="application/json",
        **bearer(token),
        HTTP_IDEMPOTENCY_KEY="assistant-vote-1",
    )

    assert vote.status_code == 200 and vote.json()["outcome"] == "waiting"
    assert "1 of 2 approved" in vote.json()["words"]
    assert not AuditEntry.objects.filter(kind="write", idempotency_key="assistant-vote-1").exists()


def test_an_auditors_token_pages_a_trail_of_10000_with_a_cursor_none_lost_or_repeated_while_entries_arrive(
    sandbox_key, user, client, settings
):
    settings.AUDIT_FEED_SETTLE_SECONDS = 0
    make_auditor(user)
    token = made(user, sandbox_key, scopes=("read", "audit"), name="SIEM")

    def arrive(count: int, label: str) -> None:
        AuditEntry.objects.bulk_create(
            AuditEntry(
                workspace_id=sandbox_key.workspace_id,
                method="POST",
                path="/v1/agents",
                status=201,
                summary=f"{label} {n}",
            )
            for n in range(count)
        )

    arrive(10_000, "before")  # a team's trail
    seen, cursor = [], ""
    for page in range(40):
        answer = client.get("/api/v1/audit", {"after": cursor, "limit": FEED_LIMIT_MOST}, **bearer(token))
        assert answer.status_code == 200, answer.content
        body = answer.json()
        seen += [entry["id"] for entry in body["entries"]]
        cursor = body["next"]
        if page < 3:
            arrive(20, f"during {page}")
        if not body["more"] and page >= 3:  # the end, once nothing arrives any more
            break
    assert not body["more"] and len(set(seen)) == len(seen)  # to the end, none repeated
    arrived = set(AuditEntry.objects.filter(workspace_id=sandbox_key.workspace_id).values_list("id", flat=True))
    assert len(arrived) == 10_060 and arrived <= set(seen)  # none lost, those that came meanwhile included
    in_order = AuditEntry.objects.filter(id__in=seen).order_by("created_at", "id").values_list("id", flat=True)
    assert seen == list(in_order)
    # A reader without the scope is refused in words; a made-up cursor too.
    reader = made(user, sandbox_key, scopes=("read",), name="Reader")
    assert error_of(client.get("/api/v1/audit", **bearer(reader)))["code"] == "scope_refused"
    assert error_of(client.get("/api/v1/audit", {"after": "nonsense"}, **bearer(token)))["code"] == "bad_cursor"


def test_a_runaway_script_is_refused_per_token_in_the_apis_body_and_another_token_goes_on(
    sandbox_key, user, client, settings
):
    settings.FAIR_USE_ENABLED = True
    settings.FAIR_USE_WINDOW_SECONDS = 60
    settings.PAGE_VIEWS_PER_SESSION = 3
    settings.PAGE_VIEWS_PER_ADDRESS = 100
    runaway, calm = made(user, sandbox_key, scopes=("read",), name="Loop"), made(user, sandbox_key, scopes=("read",))
    answers = [client.get("/api/v1/me", **bearer(runaway)).status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    refused = client.get("/api/v1/me", **bearer(runaway))
    assert error_of(refused)["code"] == "rate_limited" and int(refused["Retry-After"]) > 0
    assert "this access token asked for more than 3" in error_of(refused)["message"]
    assert client.get("/api/v1/me", **bearer(calm)).status_code == 200
    # A made-up token never spends the real one's allowance (its bucket is the whole token's hash).
    assert client.get("/api/v1/me", **bearer(calm[:-2] + "zz")).status_code == 401


def test_administrators_set_the_longest_token_life_and_lowering_it_shortens_tokens_in_force(
    sandbox_key, user, client, django_user_model, settings
):
    from dashboard.audit.models import AuditEntry as Entry
    from dashboard.people.models import Person
    from dashboard.tokens.policy import token_days_most

    settings.TOKEN_MAX_DAYS = 90
    made(user, sandbox_key, scopes=("read",), name="Long")
    long_one = AccessToken.objects.get(name="Long")
    AccessToken.objects.filter(pk=long_one.pk).update(expires_at=long_one.created_at + timedelta(days=90))
    gone = AccessToken.objects.get(pk=long_one.pk)
    gone.pk = None
    gone.token_id, gone.name, gone.revoked_at = "abcdef123456", "Revoked", timezone.now()
    gone.save()

    admin = django_user_model.objects.create_user(username="ada", password="x")
    Person.objects.create(user=admin, role=Role.ADMINISTRATOR)
    client.force_login(admin)
    # Over the operator's ceiling: refused in place, what was typed kept.
    refused = client.post(reverse("tokens:policy"), {"max_days": "400"})
    assert refused.status_code == 400
    assert "At most 90 days" in text_of(one(refused.content, "#id_max_days_error"))
    assert one(refused.content, "input[name=max_days]")["value"] == "400"

    done = client.post(reverse("tokens:policy"), {"max_days": "14"})
    assert done.status_code == 302 and token_days_most() == 14
    long_one.refresh_from_db()
    assert long_one.expires_at == long_one.created_at + timedelta(days=14)  # shortened to fit
    assert AccessToken.objects.get(name="Revoked").expires_at == long_one.created_at + timedelta(days=90)
    entry = Entry.objects.get(action="token_policy_set")
    assert "14 days; 1 token shortened to fit" in entry.summary
    # The form offers no longer life now, and a token asked for longer is made for 14 days.
    client.force_login(user)
    page = client.get(reverse("tokens:list")).content
    assert [option["value"] for option in select(page, "select[name=days] option")] == ["7", "14"]
    assert not select(page, "form[action='/account/tokens/policy']")  # a Member does not set it
    assert client.post(reverse("tokens:policy"), {"max_days": "365"}).status_code == 403
    token_create(
        user=user, workspace_id=sandbox_key.workspace_id, name="Asked long", scopes=["read"], days=90, allowed_from=[]
    )
    asked = AccessToken.objects.get(name="Asked long")
    assert abs((asked.expires_at - asked.created_at) - timedelta(days=14)) < timedelta(seconds=5)
