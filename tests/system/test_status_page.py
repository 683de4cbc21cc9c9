"""The System status page: administrators only (a Member gets the "not
allowed" page), every part in a captioned table, the area registry's parts
(Objects' job backlog) without the core naming an area, refused keys counted
by workspace (never a key), the service's reachability from one request
without a key; its region polls the console only and answers 204 while
nothing shown has changed."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone, translation

from dashboard.api.testing import RemoteCallCounter
from dashboard.audit.models import AuditEntry
from dashboard.keys.models import ApiKey
from dashboard.live.models import TrackedOperation
from dashboard.people.backends import person_role_set
from dashboard.people.models import Person
from dashboard.people.roles import Role
from dashboard.system import tasks
from dashboard.system.service_probe import probe_wanted_mark, service_probe_last
from dashboard.version import console_version
from objects.models import ObjectJob
from tests.html import one, root_ids, select, text_of, texts
from tests.live.support import SECRET

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def admin_client(client, user):
    person_role_set(user=user, role=Role.ADMINISTRATOR)
    client.force_login(user)
    return client


@pytest.fixture
def service_answers(remote):
    """The service answers a request without a key with 401, as the contract says."""
    return remote.get("/v1/me").mock(
        return_value=httpx.Response(401, json={"error": {"type": "authentication", "message": "No key."}})
    )


def table(html, slug: str):
    """The table of one part: its caption and rows as {header: [cells]}."""
    section = one(html, f"section[aria-labelledby='system-{slug}']")
    found = section.find("table")
    if found is None:
        return None, {}
    rows = {
        text_of(row.find("th")): [text_of(cell) for cell in row.find_all("td")] for row in select(found, "tbody tr")
    }
    return text_of(found.find("caption")), rows


@pytest.mark.django_db
def test_an_administrator_sees_every_part_of_the_system(admin_client, alive, api_key, make_turn, service_answers):
    make_turn(
        remote_id="turn-failing",
        error_count=2,
        last_error="The service is slow to answer; checking again.",
        last_polled_at=timezone.now(),
    )
    ApiKey.objects.filter(pk=api_key.pk).update(refused_at=timezone.now())
    AuditEntry.objects.create(method="POST", path="/v1/agents", status=429, workspace_id="ws")
    AuditEntry.objects.create(method="POST", path="/v1/agents", status=None, workspace_id="ws")
    AuditEntry.objects.create(method="POST", path="/v1/agents", status=201, workspace_id="ws")
    ObjectJob.objects.create(
        uid="6f1c2d1e-0000-4000-8000-000000000001",
        owner_key=api_key,
        started_by=api_key.user,
        workspace_id=api_key.workspace_id,
        object_key="deals",
        kind=ObjectJob.KIND_IMPORT,
        title="Import deals.csv",
        status=ObjectJob.RUNNING,
    )

    with RemoteCallCounter() as calls:
        response = admin_client.get(reverse("system:status"))

    assert response.status_code == 200
    html = response.content
    assert text_of(one(html, "h1")) == "System status"
    # Every part is a table with a caption (or says why it is empty).
    for section in select(html, "section.system-status__part"):
        found = section.find("table")
        assert found is None or text_of(found.find("caption"))

    _, readiness = table(html, "readiness")
    assert readiness["Celery beat (the scheduler)"][0] == "OK"
    assert readiness["Worker of the poller's queue"][0] == "OK"
    assert readiness["Live updates (oldest due operation)"][0] == "OK"
    assert readiness["Live updates (operations held but not polled)"] == ["OK", "working; none"]

    _, console = table(html, "console")
    assert console["Version"] == [console_version()]
    assert console["Pending migrations"] == ["none"]

    _, background = table(html, "background")
    assert background["Celery beat last scheduled"] == ["less than 15 s ago"]
    assert any(head.startswith("Messages waiting in") for head in background)

    _, operations = table(html, "operations")
    assert operations == {"Studio turn": ["building", "1"]}

    caption, jobs = table(html, "area-0")
    assert "Bulk edits" in caption
    assert jobs == {"Running": ["1"]}

    _, refused = table(html, "refused-keys")
    assert refused == {"Acme Marketing": ["1", timezone.now().strftime("%-d %b %Y")]}

    _, service = table(html, "service")
    assert service["Reachable"] == ["yes"]
    assert service["Answer"] == ["401 to a request without a key, as expected"]
    assert calls.paths == ["/v1/me"]  # one request, and without a key
    assert "authorization" not in {name.lower() for name in service_answers.calls.last.request.headers}

    _, errors = table(html, "errors")
    assert errors["The service is rate-limiting requests (429)"] == ["Writes", "1"]
    assert errors["The service is unreachable right now (no answer)"] == ["Writes", "1"]
    assert errors["The service is slow to answer; checking again."] == ["Polls of tracked operations", "1"]

    assert SECRET not in response.content.decode()
    assert SECRET[-12:] not in response.content.decode()


@pytest.mark.django_db
def test_a_member_gets_the_not_allowed_page(logged_in_client):
    response = logged_in_client.get(reverse("system:status"))

    assert response.status_code == 403
    assert text_of(one(response.content, "h1")) == "Not allowed"
    assert "administrators" in text_of(one(response.content, ".alert-warning"))
    assert logged_in_client.get(reverse("system:status_live"), **HTMX).status_code == 200  # the box, for htmx
    assert not select(logged_in_client.get(reverse("system:status_live"), **HTMX).content, "#system-status")


@pytest.mark.django_db
def test_the_nav_entry_and_home_card_are_for_administrators_only(client, user, other_user):
    person_role_set(user=user, role=Role.ADMINISTRATOR)
    client.force_login(user)
    home = client.get(reverse("home")).content
    assert "System" in texts(home, "nav a")
    assert "System status" in texts(home, ".home-areas .card-title")

    client.force_login(other_user)
    home = client.get(reverse("home")).content
    assert "System" not in texts(home, "nav a")
    assert "System status" not in texts(home, ".home-areas .card-title")


@pytest.mark.django_db
def test_the_poll_answers_204_while_unchanged_and_never_calls_the_service(
    admin_client, alive, api_key, service_answers
):
    page = admin_client.get(reverse("system:status"))
    poll_url = one(page.content, "#system-status")["hx-get"]

    with RemoteCallCounter() as calls:
        unchanged = admin_client.get(poll_url, **HTMX)
        assert unchanged.status_code == 204
        assert unchanged.content == b""

        # Something an administrator should see: a key refused.
        ApiKey.objects.filter(pk=api_key.pk).update(refused_at=timezone.now())
        changed = admin_client.get(poll_url, **HTMX)

    assert calls.count == 0
    assert changed.status_code == 200
    assert root_ids(changed.content) == ["div#system-status"]
    assert one(changed.content, "#system-status")["hx-get"] != poll_url
    _, refused = table(changed.content, "refused-keys")
    assert list(refused) == ["Acme Marketing"]


@pytest.mark.django_db
def test_an_administrator_whose_own_key_is_refused_still_sees_the_status(admin_client, alive, api_key, service_answers):
    ApiKey.objects.filter(pk=api_key.pk).update(refused_at=timezone.now())

    response = admin_client.get(reverse("system:status"))

    assert response.status_code == 200
    assert text_of(one(response.content, "h1")) == "System status"


@pytest.mark.django_db
def test_not_ready_parts_are_named_above_the_tables(admin_client, service_answers):
    response = admin_client.get(reverse("system:status"))  # beat and worker never seen

    banner = text_of(one(response.content, "#system-status .alert"))
    assert "Not ready" in banner
    assert "Celery beat (the scheduler)" in banner and "Worker of the poller's queue" in banner
    _, readiness = table(response.content, "readiness")
    assert readiness["Celery beat (the scheduler)"][0] == "Down"


@pytest.mark.django_db
def test_the_worker_probes_the_service_only_while_the_page_is_open(service_answers):
    assert tasks.probe_service() == "not wanted"
    assert service_answers.call_count == 0

    probe_wanted_mark()
    assert tasks.probe_service() == "ok"
    assert tasks.probe_service() == "ok"  # fresh for 15 s: not asked again
    assert service_answers.call_count == 1
    assert service_probe_last().http_status == 401


@pytest.mark.django_db
def test_an_unreachable_service_is_named_by_its_class(admin_client, remote):
    remote.get("/v1/me").mock(side_effect=httpx.ConnectTimeout("timed out to service.test"))

    response = admin_client.get(reverse("system:status"))

    _, service = table(response.content, "service")
    assert service["Reachable"] == ["no"]
    assert service["Answer"] == ["none (ConnectTimeout)"]
    assert service["Latency"] == ["none (no answer)"]


@pytest.mark.django_db
def test_a_row_due_for_long_shows_how_long_it_waits(admin_client, alive, make_turn, service_answers):
    make_turn(next_poll_at=timezone.now() - timedelta(minutes=7))

    _, polling = table(admin_client.get(reverse("system:status")).content, "polling")

    assert polling["Oldest due operation waiting"] == ["7 min"]
    assert TrackedOperation.objects.count() == 1


@pytest.mark.django_db
def test_a_stopped_streams_worker_is_named_not_ready(admin_client, alive, settings, service_answers):
    settings.CELERY_STREAM_QUEUE = "streams"

    html = admin_client.get(reverse("system:status")).content

    assert "Worker of the stream queue" in text_of(one(html, "#system-status .alert"))
    _, readiness = table(html, "readiness")
    state, detail = readiness["Worker of the stream queue (chat answers, Studio progress)"]
    assert state == "Down" and detail.startswith("no heartbeat seen")


@pytest.mark.django_db
def test_rows_frozen_on_a_lease_are_counted_and_named_not_ready(admin_client, alive, make_turn, service_answers):
    for number in range(3):
        make_turn(
            remote_id=f"turn-held-{number}",
            next_poll_at=timezone.now() - timedelta(seconds=40),
            lease_until=timezone.now() + timedelta(seconds=6),
            lease_token="poll:stuck-batch",
        )

    html = admin_client.get(reverse("system:status")).content

    assert "Live updates (operations held but not polled)" in text_of(one(html, "#system-status .alert"))
    _, readiness = table(html, "readiness")
    assert readiness["Live updates (operations held but not polled)"] == [
        "Down",
        "operations held by a poll have gone two intervals without one; 3, the longest due for less than a minute",
    ]
    _, polling = table(html, "polling")
    assert polling["Operations held but not polled for two intervals"] == ["3, the longest due for less than a minute"]
    assert polling["Oldest due operation waiting"] == ["none waiting"]  # held rows are not due and free


@pytest.mark.django_db
def test_the_polls_queries_do_not_grow_with_the_rows_it_counts(
    admin_client, alive, api_key, make_turn, service_answers, django_user_model
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.live.support import store_key

    admin_client.get(reverse("system:status"))  # pending migrations and queue depths remembered

    def poll_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert admin_client.get(reverse("system:status_live"), **HTMX).status_code == 200
        return len(queries)

    few = poll_queries()
    for number in range(5):
        make_turn(
            remote_id=f"turn-{number}", error_count=1, last_error=f"Failure {number}", last_polled_at=timezone.now()
        )
        owner = django_user_model.objects.create_user(username=f"owner-{number}", password="x" * 20)
        key = store_key(owner, f"svc_sk_many{number:040d}", f"Workspace {number}")
        ApiKey.objects.filter(pk=key.pk).update(refused_at=timezone.now())
        AuditEntry.objects.create(method="POST", path="/v1/agents", status=500 + number, workspace_id="ws")

    assert poll_queries() == few
    # Today 12: session, user and role, SELECT 1, then one statement per part.
    assert few <= 14


@pytest.mark.django_db
def test_a_part_that_cannot_be_read_says_so_and_the_page_stands(admin_client, alive, service_answers, monkeypatch):
    def refuse(*args, **kwargs):
        raise ConnectionError("redis://:cache-password@cache.internal")

    # The heartbeats' reads fail (the cache under them): their parts say so, by class.
    monkeypatch.setattr("dashboard.live.heartbeat.beat_last_seen", refuse)

    response = admin_client.get(reverse("system:status"))

    assert response.status_code == 200
    _, readiness = table(response.content, "readiness")
    assert readiness["Celery beat (the scheduler)"][:2] == [
        "Down",
        "failing (ConnectionError); last heartbeat never seen",
    ]
    _, background = table(response.content, "background")
    assert background == {"Could not be read": ["failing (ConnectionError)"]}
    _, service = table(response.content, "service")
    assert service["Reachable"] == ["yes"]  # the other parts stand
    assert "cache-password" not in response.content.decode()


@pytest.mark.django_db
def test_the_page_reads_in_the_administrators_language_the_services_words_as_they_are(
    admin_client, user, alive, service_answers
):
    """German chosen on the account page (the session carries it from sign-in); the
    readiness parts, states and ages in German; a queue's name stays as configured."""
    Person.objects.update_or_create(user=user, defaults={"language": "de"})
    admin_client.force_login(user)
    translation.deactivate()  # the sign-in activated it in this thread too: the request's own choice decides

    html = admin_client.get(reverse("system:status")).content

    caption, readiness = table(html, "readiness")
    assert caption == "Was /readyz prüft, Teil für Teil"
    assert readiness["Celery beat (der Planer)"][0] == "OK"
    assert readiness["Live-Aktualisierungen (gehaltene, aber nicht abgefragte Operationen)"] == [
        "OK",
        "funktioniert; keine",
    ]
    _, console = table(html, "console")
    assert console["Ausstehende Migrationen"] == ["keine"]
    _, background = table(html, "background")
    assert background["Celery beat zuletzt geplant"] == ["vor weniger als 15 s"]
    translation.deactivate()
