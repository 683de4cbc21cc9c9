"""Fixtures of the People tests: an Administrator and their logged-in client."""

from __future__ import annotations

import pytest

from dashboard.people.models import Person
from dashboard.people.roles import Role


@pytest.fixture
def admin(django_user_model):
    user = django_user_model.objects.create_user(username="ada", email="ada@example.com", password="x")
    Person.objects.create(user=user, role=Role.ADMINISTRATOR)
    return user


@pytest.fixture
def admin_client(client, admin):
    client.force_login(admin)
    return client
