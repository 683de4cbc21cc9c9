"""Fixtures of the SCIM tests: an Administrator, a directory's token, and a
SCIM client (tests/directory/support.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from dashboard.directory.tokens import directory_token_create
from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.directory.support import Scim


@pytest.fixture
def admin(django_user_model):
    user = django_user_model.objects.create_user(username="ada", email="ada@example.com", password="x")
    Person.objects.create(user=user, role=Role.ADMINISTRATOR)
    return user


@pytest.fixture
def directory_token(admin):
    return directory_token_create(name="Okta", by=admin)


@pytest.fixture
def scim(directory_token):
    return Scim(token=directory_token.token, client=Client())
