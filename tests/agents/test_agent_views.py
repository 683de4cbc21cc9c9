"""Agents list, new agent, the agent page (activate, pause, rename, change
with a message), chat in the background and the run page, with the service
mocked (respx)."""

from __future__ import annotations

import json

import httpx
import pytest
from django.urls import reverse

from agents.models import BuilderAnswer
from dashboard.keys.testing import stored_api_key
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_poll
from dashboard.web.counted import over_limit_words
from tests.agents.support import AGENT_ID, HTMX, RUN_ID, SECRET, THREAD_ID, error, form_keys, full_agent
from tests.html import one, parse, root_ids, roots, select, text_of, texts


@pytest.fixture(autouse=True)
def plain_polling(settings):
    """These chat tests follow the background path (sent now, then polled);
    the streamed path has its own tests (tests/agents/test_chat.py)."""
    settings.AGENTS_STREAM_ANSWERS = False


# --- list and create ---------------------------------------------------------------


def test_the_agents_list_shows_status_tabs_rows_and_the_total(remote, api_key, logged_in_client):
    listing = remote.get("/v1/agents").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    {
                        "id": AGENT_ID,
                        "name": "Lead qualifier",
                        "status": "active",
                        "active_version_id": "ver_1234567890",
                        "created_at": "2026-11-21T08:00:00.000Z",
                        "updated_at": "2026-11-21T08:00:00.000Z",
                    },
                    {"id": "33333333-3333-4333-8333-333333333333", "name": "Drafty", "status": "draft"},
                ],
                "next_cursor": None,
            },
        )
    )
    body = logged_in_client.get(reverse("agents:index"), {"status": "active"}).content.decode()
    # One read of every agent (the tabs filter what was read: no call per tab).
    assert dict(listing.calls.last.request.url.params) == {"limit": "100"}
    assert [link["href"] for link in select(body, "a") if text_of(link) == "Lead qualifier"] == [f"/agents/{AGENT_ID}/"]
    assert [text_of(link) for link in select(body, ".agent-table tbody a")] == ["Lead qualifier"]
    assert text_of(one(body, "[data-agent-count]")) == "1 active agent · showing 1–1."
    assert select(body, ".agent-status--active") and "21 Nov 2026, 09:00" in texts(body, ".agent-table time")
    assert "Active" in texts(body, "[aria-current=page]")
    assert len(form_keys(body)) == 1


def test_a_new_agent_form_that_is_invalid_keeps_what_was_typed_and_calls_nothing(remote, api_key, logged_in_client):
    remote.get("/v1/agents").mock(return_value=httpx.Response(200, json={"data": [], "next_cursor": None}))
    key = form_keys(logged_in_client.get(reverse("agents:index")).content.decode())[0]
    create = remote.post("/v1/agents")
    response = logged_in_client.post(
        reverse("agents:create"), {"name": "n" * 121, "message": "", "idempotency_key": key}
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert over_limit_words("The name", 120, 121) in body and "Write a message." in body
    assert "n" * 121 in body and form_keys(body) == [key]
    assert create.call_count == 0


def test_creating_an_agent_sends_the_brief_with_the_forms_key_and_lands_on_its_page(
    agent_routes, remote, logged_in_client
):
    remote.get("/v1/agents").mock(return_value=httpx.Response(200, json={"data": [], "next_cursor": None}))
    key = form_keys(logged_in_client.get(reverse("agents:index")).content.decode())[0]
    create = remote.post("/v1/agents").mock(
        return_value=httpx.Response(
            200,
            json={
                "status": "needs_input",
                "message": "Before I draft the plan, a few questions.",
                "questions": [{"text": "Who should get the email?", "options": ["The new contact", "Sales"]}],
                "agent": full_agent(),
            },
        )
    )

    response = logged_in_client.post(
        reverse("agents:create"), {"name": "Welcome emails", "message": "Welcome people", "idempotency_key": key}
    )

    assert response.status_code == 302 and response.url == reverse("agents:detail", args=[AGENT_ID])
    sent = create.calls.last.request
    assert sent.headers["Idempotency-Key"] == key
    assert json.loads(sent.content) == {"name": "Welcome emails", "message": "Welcome people", "auto": False}
    page = logged_in_client.get(response.url).content.decode()
    assert "The builder needs your answers" in page and "Who should get the email?" in page
    assert "The new contact" in [button.get("value") for button in select(page, "[data-builder-options] button")]


def test_a_remote_refusal_of_the_brief_lands_on_the_field_with_a_new_key(remote, api_key, logged_in_client):
    remote.get("/v1/agents").mock(return_value=httpx.Response(200, json={"data": [], "next_cursor": None}))
    key = form_keys(logged_in_client.get(reverse("agents:index")).content.decode())[0]
    remote.post("/v1/agents").mock(return_value=error(400, "invalid_request", "Invalid body", message=["is too vague"]))
    body = logged_in_client.post(
        reverse("agents:create"), {"message": "Do things", "idempotency_key": key}
    ).content.decode()
    page = parse(body)
    assert texts(page, ".field-error p") == ["This is too vague. (request id req_400)"]
    assert one(page, "textarea[name=message]").get_text().strip() == "Do things" and form_keys(body) != [key]


def test_a_server_failure_on_create_is_shown_above_the_form_keeping_the_key(remote, api_key, logged_in_client):
    remote.get("/v1/agents").mock(return_value=httpx.Response(200, json={"data": [], "next_cursor": None}))
    key = form_keys(logged_in_client.get(reverse("agents:index")).content.decode())[0]
    remote.post("/v1/agents").mock(return_value=error(500, "server_error"))
    body = logged_in_client.post(
        reverse("agents:create"), {"message": "Welcome people", "idempotency_key": key}
    ).content.decode()
    assert "The service had a problem" in body and "req_500" in body
    assert form_keys(body) == [key], "a retry of a failed write is the same write"


# --- the agent page ------------------------------------------------------------------


def test_the_agent_page_shows_profile_plan_wakeups_schedule_validation_and_runs(agent_routes, logged_in_client):
    body = logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content.decode()
    assert "Welcome new contacts" in body and "Asks first before risky actions" in body
    assert "Send the welcome email" in body and "New contact → Send the welcome email" in body
    assert "webhook configured" in body and "SECRET-TOKEN" not in body
    assert "Every day at 08:00" in body and "Sun 22 Nov 2026, 08:00 CET" in body
    assert "The email step has no recipient." in body
    assert text_of(one(body, f'a[href="/approvals/?agent={AGENT_ID}"]')) == "2 pending approvals"
    assert select(body, f'a[href="/runs/{RUN_ID}/"]')


def test_runs_filter_swaps_the_runs_region_with_one_call(agent_routes, remote, logged_in_client):
    remote.calls.reset()
    body = logged_in_client.get(
        reverse("agents:detail", args=[AGENT_ID]), {"status": "waiting", "region": "runs"}, **HTMX
    ).content.decode()
    assert root_ids(body)[0] == "section#agent-runs"
    assert remote.calls.call_count == 1
    assert dict(agent_routes.calls.last.request.url.params) == {"status": "waiting", "limit": "25"}


def test_activation_issues_are_shown_in_place_as_a_list(agent_routes, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content.decode()
    key = one(page, "#agent-activation form input[name=idempotency_key]")["value"]
    activate = remote.post(f"/v1/agents/{AGENT_ID}/activate").mock(
        return_value=error(
            422,
            "validation_error",
            "The plan is not ready.",
            issues=[
                {
                    "code": "missing_recipient",
                    "node_id": "n2",
                    "field": "to",
                    "message": "The email step has no recipient.",
                },
                {"code": "no_plan", "message": "There is no plan yet."},
            ],
        )
    )

    response = logged_in_client.post(reverse("agents:activate", args=[AGENT_ID]), {"idempotency_key": key}, **HTMX)
    body = response.content.decode()

    assert response.status_code == 200
    assert activate.calls.last.request.headers["Idempotency-Key"] == key
    assert root_ids(body)[0] == "section#agent-activation"
    issues = one(body, "[data-activation-issues]")
    items = [text_of(item) for item in issues.select("li")]
    for issue in ("The email step has no recipient.", "There is no plan yet."):
        assert [item for item in items if item.startswith(issue)], issue
    assert "req_422" in text_of(issues)


def test_activating_without_javascript_shows_the_issues_on_the_full_page(agent_routes, remote, logged_in_client):
    remote.post(f"/v1/agents/{AGENT_ID}/activate").mock(
        return_value=error(422, "validation_error", issues=[{"message": "Fix the plan."}])
    )
    body = logged_in_client.post(reverse("agents:activate", args=[AGENT_ID]), {}).content.decode()
    assert [element.name for element in roots(body)] == ["html"] and "Fix the plan." in body


def test_a_successful_activation_reloads_the_page_with_the_version(agent_routes, remote, logged_in_client):
    remote.post(f"/v1/agents/{AGENT_ID}/activate").mock(
        return_value=httpx.Response(200, json={"status": "active", "version": 3, "version_id": "v3", "deployments": []})
    )
    response = logged_in_client.post(reverse("agents:activate", args=[AGENT_ID]), {}, **HTMX)
    assert response["HX-Redirect"] == reverse("agents:detail", args=[AGENT_ID])
    page = logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content.decode()
    assert "The agent is active (version 3)." in page


def test_pausing_a_draft_shows_the_services_refusal_in_place(agent_routes, remote, logged_in_client):
    remote.post(f"/v1/agents/{AGENT_ID}/pause").mock(return_value=error(409, "conflict", "A draft was never on."))
    body = logged_in_client.post(reverse("agents:pause", args=[AGENT_ID]), {}, **HTMX).content.decode()
    assert root_ids(body)[0] == "section#agent-activation"
    assert "A draft was never on." in body and "req_409" in body


def test_rename_refused_by_the_service_keeps_the_name_typed(agent_routes, remote, logged_in_client):
    remote.patch(f"/v1/agents/{AGENT_ID}").mock(return_value=error(400, "invalid_request", "bad", name=["is taken"]))
    body = logged_in_client.post(
        reverse("agents:rename", args=[AGENT_ID]), {"name": "Hello there"}, **HTMX
    ).content.decode()
    section = one(body, "section#agent-rename")
    assert texts(section, ".field-error p") == ["Name is taken. (request id req_400)"]
    assert one(section, "input[name=name]")["value"] == "Hello there"


def test_rename_sends_the_name_alone(agent_routes, remote, logged_in_client):
    rename = remote.patch(f"/v1/agents/{AGENT_ID}").mock(
        return_value=httpx.Response(200, json={"status": "built", "agent": full_agent()})
    )
    response = logged_in_client.post(reverse("agents:rename", args=[AGENT_ID]), {"name": "Hello there"})
    assert response.status_code == 302
    assert json.loads(rename.calls.last.request.content) == {"name": "Hello there"}


def test_answering_the_builders_questions_sends_one_message_with_the_answers(
    agent_routes, remote, api_key, logged_in_client
):
    # Asked by a teammate: the questions are the workspace's, not one session's.
    BuilderAnswer.objects.create(
        workspace_id=api_key.workspace_id,
        agent_id=AGENT_ID,
        status="needs_input",
        questions=[{"text": "Who should get the email?", "options": ["Sales", "The new contact"]}],
    )
    change = remote.patch(f"/v1/agents/{AGENT_ID}").mock(
        return_value=httpx.Response(
            200,
            json={"status": "built", "message": "Drafted: a welcome email to each new contact.", "agent": full_agent()},
        )
    )

    response = logged_in_client.post(
        reverse("agents:change", args=[AGENT_ID]), {"answer_0": "Sales", "message": "Keep it short"}
    )

    assert response.status_code == 302
    assert json.loads(change.calls.last.request.content) == {
        "message": "Who should get the email?\nSales\n\nKeep it short",
        "auto": False,
    }
    page = logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content.decode()
    assert "Drafted: a welcome email to each new contact." in page
    assert "The builder needs your answers" not in page


def test_a_change_without_a_message_or_answer_is_refused_in_place(agent_routes, remote, logged_in_client):
    change = remote.patch(f"/v1/agents/{AGENT_ID}")
    body = logged_in_client.post(reverse("agents:change", args=[AGENT_ID]), {"message": " "}, **HTMX).content.decode()
    assert root_ids(body)[0] == "section#agent-change"
    assert "Write a message, or pick an answer" in body
    assert change.call_count == 0


# --- chat and runs ----------------------------------------------------------------------


def test_a_chat_message_runs_in_the_background_and_the_poll_repeats_it_with_the_same_key(
    agent_routes, remote, api_key, logged_in_client
):
    page = logged_in_client.get(reverse("agents:chat", args=[AGENT_ID])).content.decode()
    key = form_keys(page)[0]
    runs = remote.post(f"/v1/agents/{AGENT_ID}/runs").mock(
        side_effect=[
            httpx.Response(
                202, json={"status": "running", "thread_id": THREAD_ID, "run_id": RUN_ID, "idempotency_key": key}
            ),
            httpx.Response(202, json={"status": "running", "thread_id": THREAD_ID, "run_id": RUN_ID}),
            httpx.Response(
                200,
                json={
                    "status": "completed",
                    "answer": "Our Pro plan is 49 EUR a month.",
                    "thread_id": THREAD_ID,
                    "run_id": RUN_ID,
                    "steps": [{"kind": "trigger"}, {"kind": "agent"}],
                },
            ),
        ]
    )

    response = logged_in_client.post(
        reverse("agents:chat_send", args=[AGENT_ID]), {"message": "What does Pro cost?", "idempotency_key": key}
    )

    assert (
        response.status_code == 302 and response.url == f"{reverse('agents:chat', args=[AGENT_ID])}?thread={THREAD_ID}"
    )
    assert json.loads(runs.calls[0].request.content) == {"message": "What does Pro cost?", "background": True}
    op = TrackedOperation.objects.get(kind="agents.invocation")
    assert op.remote_id == key and op.context["thread_id"] == THREAD_ID
    operation_poll(operation_id=op.pk)
    op = operation_poll(operation_id=op.pk)
    assert op.is_final and op.status == "completed"
    assert [call.request.headers["Idempotency-Key"] for call in runs.calls] == [key, key, key]
    assert len({call.request.content for call in runs.calls}) == 1

    thread = logged_in_client.get(response.url).content.decode()
    assert "What does Pro cost?" in thread and "Our Pro plan is 49 EUR a month." in thread
    assert one(thread, "#chat-form input[name=thread_id]")["value"] == THREAD_ID
    assert select(thread, f'a[href="/runs/{RUN_ID}/"]')


def test_a_message_waiting_for_an_approval_ends_completed_when_its_run_does(
    agent_routes, remote, api_key, logged_in_client
):
    sent = remote.post(f"/v1/agents/{AGENT_ID}/runs").mock(
        side_effect=[
            httpx.Response(202, json={"status": "running", "thread_id": THREAD_ID, "run_id": RUN_ID}),
            httpx.Response(
                200,
                json={
                    "status": "waiting",
                    "waiting_for": {"kind": "approval"},
                    "thread_id": THREAD_ID,
                    "run_id": RUN_ID,
                },
            ),
        ]
    )
    run = remote.get(f"/v1/runs/{RUN_ID}").mock(
        side_effect=[
            httpx.Response(200, json=run_body("waiting", waiting_for={"kind": "approval", "approval_id": "x"})),
            httpx.Response(200, json=run_body("completed", answer="Sent the welcome email.")),
        ]
    )
    logged_in_client.post(reverse("agents:chat_send", args=[AGENT_ID]), {"message": "Welcome Ada"})
    op = TrackedOperation.objects.get(kind="agents.invocation")

    waiting = operation_poll(operation_id=op.pk)
    assert (waiting.status, waiting.is_final) == ("waiting", False)  # followed on, not frozen at "Waiting"
    assert operation_poll(operation_id=op.pk).status == "waiting"  # the approval is still open
    done = operation_poll(operation_id=op.pk)

    assert (done.status, done.is_final) == ("completed", True)
    assert (sent.call_count, run.call_count) == (2, 2)  # after "waiting", the run is read, the write not repeated
    thread = parse(logged_in_client.get(reverse("agents:chat", args=[AGENT_ID]), {"thread": THREAD_ID}).content)
    assert "Sent the welcome email." in text_of(one(thread, "ol.chat-thread[aria-label=Conversation]"))


def test_continuing_the_conversation_sends_the_thread_id(agent_routes, remote, api_key, logged_in_client):
    runs = remote.post(f"/v1/agents/{AGENT_ID}/runs").mock(
        return_value=httpx.Response(202, json={"status": "running", "thread_id": THREAD_ID})
    )
    logged_in_client.post(
        reverse("agents:chat_send", args=[AGENT_ID]), {"message": "And Team?", "thread_id": THREAD_ID}
    )
    assert json.loads(runs.calls.last.request.content) == {
        "message": "And Team?",
        "background": True,
        "thread_id": THREAD_ID,
    }


def test_out_of_credits_in_chat_is_shown_above_the_message_which_stays(agent_routes, remote, api_key, logged_in_client):
    remote.post(f"/v1/agents/{AGENT_ID}/runs").mock(return_value=error(402, "insufficient_credits"))
    body = logged_in_client.post(
        reverse("agents:chat_send", args=[AGENT_ID]), {"message": "Hello agent"}
    ).content.decode()
    assert "Your workspace has run out of credits" in body and "req_402" in body and "Hello agent" in body
    assert not TrackedOperation.objects.exists()


def run_body(status: str, **extra) -> dict:
    body = {
        "id": RUN_ID,
        "agent_id": AGENT_ID,
        "thread_id": THREAD_ID,
        "status": status,
        "event": {"kind": "chat", "message": "hello"},
        "steps": [{"kind": "trigger", "label": "Chat", "input": {"message": "hello"}, "result": None, "error": None}],
        "tasks": [],
        "approvals": [],
        "cost_usd": 0.0123,
        "created_at": "2026-11-21T09:00:00.000Z",
    }
    body.update(extra)
    return body


def test_a_running_run_is_followed_live_until_it_finishes(remote, api_key, logged_in_client):
    read = remote.get(f"/v1/runs/{RUN_ID}").mock(
        side_effect=[
            httpx.Response(200, json=run_body("waiting", waiting_for={"kind": "approval", "approval_id": "x"})),
            httpx.Response(
                200,
                json=run_body(
                    "completed",
                    answer="All done.",
                    steps=[
                        {"kind": "trigger", "input": {}, "result": None, "error": None},
                        {
                            "kind": "email",
                            "label": "Send",
                            "input": {"to": "a@b.c"},
                            "result": {"sent": True},
                            "error": None,
                        },
                    ],
                ),
            ),
        ]
    )

    page = logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content.decode()

    op = TrackedOperation.objects.get(kind="agents.run", remote_id=RUN_ID)
    poll = one(page, f'[hx-get^="{reverse("live:status", args=[op.pk])}?v="]')
    assert poll["hx-trigger"] == "every 2s"
    assert "Waiting for a person to decide an approval" in page and "Decide it below" in page
    operation_poll(operation_id=op.pk)
    assert read.call_count == 2
    status = logged_in_client.get(reverse("live:status", args=[op.pk]))
    assert status.status_code == 286
    body = status.content.decode()
    assert "All done." in body and "Send" in body and "$0.0123" in body
    assert read.call_count == 2, "the browser's poll reads the console's row, not the service"


def test_a_finished_run_is_shown_without_live_tracking(remote, api_key, logged_in_client):
    remote.get(f"/v1/runs/{RUN_ID}").mock(
        return_value=httpx.Response(
            200,
            json=run_body(
                "failed",
                error={"type": "agent_error", "message": "The model gave up."},
                steps=[{"kind": "agent", "input": {}, "result": None, "error": {"message": "The model gave up."}}],
            ),
        )
    )
    page = logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content.decode()
    assert "The run failed." in page and "The model gave up." in page
    assert "every 2s" not in page and not TrackedOperation.objects.exists()


def test_an_unknown_run_offers_the_way_back(remote, api_key, logged_in_client):
    remote.get(f"/v1/runs/{RUN_ID}").mock(return_value=error(404, "not_found"))
    response = logged_in_client.get(reverse("agents:run", args=[RUN_ID]))
    assert response.status_code == 404
    assert "Back to agents" in response.content.decode() and "req_404" in response.content.decode()


def test_after_a_timeout_the_activate_button_keeps_its_key_so_a_retry_is_the_same_activation(
    agent_routes, remote, logged_in_client
):
    remote.post(f"/v1/agents/{AGENT_ID}/activate").mock(side_effect=httpx.ReadTimeout("slow"))
    key = "a0a0a0a0-0000-4000-8000-00000000aaaa"
    body = logged_in_client.post(
        reverse("agents:activate", args=[AGENT_ID]), {"idempotency_key": key}, **HTMX
    ).content.decode()
    assert "The service is slow to answer" in body
    assert one(body, "input[name=idempotency_key]")["value"] == key


def test_a_teammate_sees_and_answers_the_builders_questions_from_another_session(
    agent_routes, remote, api_key, user, logged_in_client, client, django_user_model
):
    remote.post("/v1/agents").mock(
        return_value=httpx.Response(
            200,
            json={
                "status": "needs_input",
                "message": "A few questions first.",
                "questions": [{"text": "Who should get the email?", "options": ["Sales", "The new contact"]}],
                "agent": {"id": AGENT_ID},
            },
        )
    )
    logged_in_client.post(reverse("agents:create"), {"message": "Welcome people"})
    teammate = django_user_model.objects.create_user("teammate", password="pw-teammate-1")
    stored_api_key(user=teammate, secret=SECRET[:-4] + "MATE", workspace_id=api_key.workspace_id, key_id="key-teammate")
    client.force_login(teammate)

    page = parse(client.get(reverse("agents:detail", args=[AGENT_ID])).content)

    assert text_of(one(page, "#builder-heading")) == "The builder needs your answers"
    assert [text_of(legend) for legend in page.select(".builder-question legend")] == ["Who should get the email?"]
    change = remote.patch(f"/v1/agents/{AGENT_ID}").mock(
        return_value=httpx.Response(200, json={"status": "built", "message": "Drafted.", "agent": full_agent()})
    )
    client.post(reverse("agents:change", args=[AGENT_ID]), {"answer_0": "Sales"})
    assert json.loads(change.calls.last.request.content)["message"] == "Who should get the email?\nSales"
    assert BuilderAnswer.objects.get(agent_id=AGENT_ID).asked_by == teammate


def test_the_builders_summary_is_shown_once_to_whoever_asked(agent_routes, api_key, user, logged_in_client):
    BuilderAnswer.objects.create(
        workspace_id=api_key.workspace_id,
        agent_id=AGENT_ID,
        status="built",
        message="Drafted the welcome flow.",
        asked_by=user,
    )
    url = reverse("agents:detail", args=[AGENT_ID])
    assert texts(logged_in_client.get(url).content, ".builder-says .agent-answer") == ["Drafted the welcome flow."]
    assert texts(logged_in_client.get(url).content, ".builder-says") == []


def test_an_event_can_be_sent_instead_of_a_message_and_bad_json_is_refused_in_place(
    agent_routes, remote, api_key, logged_in_client
):
    runs = remote.post(f"/v1/agents/{AGENT_ID}/runs").mock(
        return_value=httpx.Response(202, json={"status": "running", "thread_id": THREAD_ID})
    )
    refused = logged_in_client.post(
        reverse("agents:chat_send", args=[AGENT_ID]), {"message": "", "payload": "{order: 42"}
    ).content.decode()
    assert "Line 1, column 2: This is not valid JSON" in refused and "{order: 42" in refused
    listed = logged_in_client.post(reverse("agents:chat_send", args=[AGENT_ID]), {"payload": "[1, 2]"}).content.decode()
    assert "The event must be a JSON object" in listed
    empty = logged_in_client.post(reverse("agents:chat_send", args=[AGENT_ID]), {"message": "  "}).content.decode()
    assert "Write a message to the agent, or give it an event." in empty
    assert runs.call_count == 0

    logged_in_client.post(reverse("agents:chat_send", args=[AGENT_ID]), {"payload": '{"order": 42}'})
    assert json.loads(runs.calls.last.request.content) == {"background": True, "payload": {"order": 42}}
    assert TrackedOperation.objects.get().title == 'Event {"order": 42}'


def test_a_conversation_started_elsewhere_shows_its_earlier_turns_oldest_first(remote, api_key, logged_in_client):
    remote.get(f"/v1/agents/{AGENT_ID}").mock(return_value=httpx.Response(200, json=full_agent()))
    runs = remote.get(f"/v1/agents/{AGENT_ID}/runs").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    run_body(
                        "completed",
                        id="r2",
                        event={"kind": "chat", "message": "Second question"},
                        answer="Second answer",
                    ),
                    run_body(
                        "completed", id="r1", event={"kind": "chat", "message": "First question"}, answer="First answer"
                    ),
                ],
                "next_cursor": None,
            },
        )
    )
    body = logged_in_client.get(reverse("agents:chat", args=[AGENT_ID]), {"thread": THREAD_ID}).content.decode()
    assert dict(runs.calls.last.request.url.params) == {"thread_id": THREAD_ID, "limit": "100"}
    assert "Earlier in this conversation" in body
    assert body.index("First question") < body.index("First answer") < body.index("Second question")
    assert one(body, "#chat-form input[name=thread_id]")["value"] == THREAD_ID


def test_odd_shapes_from_the_service_render_instead_of_crashing(remote, api_key, logged_in_client):
    remote.get(f"/v1/agents/{AGENT_ID}").mock(
        return_value=httpx.Response(
            200,
            json={
                "id": AGENT_ID,
                "name": None,
                "status": "draft",
                "profile": "a plain string",
                "plan": {"nodes": "none", "edges": [1]},
                "wakeups": {"kind": "chat"},
                "schedule": None,
                "validation": {"ready": "maybe", "issues": {"code": "odd"}},
                "pending_approvals": "two",
                "brand_new_member": {"x": 1},
            },
        )
    )
    remote.get(f"/v1/agents/{AGENT_ID}/runs").mock(
        return_value=httpx.Response(
            200, json={"runs": [{"id": RUN_ID, "status": None, "event": "webhook", "steps": ["a string step"]}]}
        )
    )
    remote.get(f"/v1/runs/{RUN_ID}").mock(
        return_value=httpx.Response(
            200,
            json={
                "id": RUN_ID,
                "status": "completed",
                "steps": ["a string step", {"kind": None, "error": "boom"}],
                "approvals": ["x"],
                "cost_usd": "free",
                "waiting_for": "time",
                "tasks": {"not": "a list"},
            },
        )
    )

    agent_page = logged_in_client.get(reverse("agents:detail", args=[AGENT_ID]))
    run_page = logged_in_client.get(reverse("agents:run", args=[RUN_ID]))

    assert agent_page.status_code == 200 and run_page.status_code == 200
    assert "(unnamed agent)" in agent_page.content.decode() and "brand new member" in agent_page.content.decode()
    assert "a string step" in run_page.content.decode() and "boom" in run_page.content.decode()
