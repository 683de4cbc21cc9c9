"""The header's inbox count is kept in the cache under its version
(`header_state`); a source may list items by role (an Approver sees the
workspace's assistant requests), so a change of the person's role there, by
default or in that workspace (set or removed), makes a new version and the
count is read again rather than the kept one shown."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from dashboard.assistants.models import AssistantRequest
from dashboard.inbox.selectors import header_state, header_version
from dashboard.inbox.sources import InboxViewer
from dashboard.keys.testing import stored_api_key
from dashboard.people.models import Person
from dashboard.people.roles import Role
from dashboard.people.services import person_role_change
from dashboard.people.workspace_roles import person_workspace_role_set

pytestmark = pytest.mark.django_db

SECRET = "svc_sk_headerrole0123456789abcdefghijklmnopqrstuvwxyz"
WORKSPACE = "ws-header-role"


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def counted(user) -> int:
    fresh = type(user).objects.get(pk=user.pk)  # as the next request reads it
    return header_state(viewer=InboxViewer(user=fresh, workspace_id=WORKSPACE)).count


def test_a_role_change_in_the_workspace_or_by_default_recounts_the_header(django_user_model):
    ada = django_user_model.objects.create_user(username="ada")
    Person.objects.create(user=ada, role=Role.ADMINISTRATOR)
    dana = django_user_model.objects.create_user(username="dana")
    Person.objects.create(user=dana, role=Role.VIEWER)
    bob = django_user_model.objects.create_user(username="bob")
    stored_api_key(user=dana, secret=SECRET, workspace_id=WORKSPACE, workspace_name="Marketing")
    AssistantRequest.objects.create(
        user=bob, token_name="Bot", workspace_id=WORKSPACE, tool="t", summary="Archive", reason="r", idempotency_key="i"
    )
    assert counted(dana) == 0  # a Viewer decides nothing: kept in the cache under this version
    versions = [header_version(user=dana)]

    person_workspace_role_set(user=dana, workspace_id=WORKSPACE, role=Role.APPROVER, by=ada)
    versions.append(header_version(user=dana))
    assert counted(dana) == 1  # Approver in Marketing: read again, not the kept 0

    person_workspace_role_set(user=dana, workspace_id=WORKSPACE, role=None, by=ada)
    versions.append(header_version(user=dana))
    assert counted(dana) == 0  # removed: her default (Viewer) there again

    person_role_change(user=dana, role=Role.APPROVER, by=ada)
    versions.append(header_version(user=dana))
    assert counted(dana) == 1  # the default role's change recounts too
    # The same roles make the same version (what it counts has not changed), another makes another.
    assert versions[2] == versions[0] and len(set(versions)) == 3


def test_a_role_change_in_another_workspace_keeps_the_count(django_user_model):
    ada = django_user_model.objects.create_user(username="ada")
    Person.objects.create(user=ada, role=Role.ADMINISTRATOR)
    dana = django_user_model.objects.create_user(username="dana")
    Person.objects.create(user=dana, role=Role.APPROVER)
    stored_api_key(user=dana, secret=SECRET, workspace_id=WORKSPACE, workspace_name="Marketing")
    before = header_version(user=dana)
    person_workspace_role_set(user=dana, workspace_id="ws-elsewhere", role=Role.VIEWER, by=ada)
    assert header_version(user=dana) == before
