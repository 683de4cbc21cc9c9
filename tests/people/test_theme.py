"""A person's theme (issue #22): System (the device's), Light or Dark, kept on
their Person row, set from the header's menu by a plain form post (no
JavaScript needed), rendered on `<html data-theme>` by the server so the first
paint is already right, and read with the role in one query."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from dashboard.people.backends import person_role_set
from dashboard.people.models import Person, Theme
from dashboard.people.roles import DEFAULT_ROLE, Role
from tests.html import one, parse, select, text_of, texts

pytestmark = pytest.mark.django_db

PAGE = "/settings/keys/"  # any page of the console: this one needs no stored key


def theme_control(page):
    return one(page, "header details.theme-menu")


def pressed(page) -> list[str]:
    return [
        button["value"]
        for button in select(theme_control(page), "button[name=theme]")
        if button["aria-pressed"] == "true"
    ]


def test_a_new_person_follows_the_device(logged_in_client):
    page = parse(logged_in_client.get(PAGE).content)
    assert one(page, "html")["data-theme"] == "system"
    assert one(page, "meta[name=color-scheme]")["content"] == "light dark"
    control = theme_control(page)
    assert one(control, "summary")["aria-label"] == "Theme: System. Change theme"
    assert [button["value"] for button in select(control, "button[name=theme]")] == ["system", "light", "dark"]
    assert pressed(page) == ["system"]
    form = one(control, "form")
    # The way back is in the address: the page's own forms keep the only "next" field.
    assert form["method"] == "post" and form["action"] == reverse("people:theme") + "?next=%2Fsettings%2Fkeys%2F"
    assert select(form, "input[name=next]") == []
    answer = logged_in_client.post(form["action"], {"theme": "light"})
    assert answer.status_code == 302 and answer["Location"] == PAGE  # back where they were


def test_a_viewer_chooses_dark_and_the_next_page_is_dark_from_its_first_byte(client, user):
    person_role_set(user=user, role=Role.VIEWER)  # a personal preference: the role that only reads may set it
    client.force_login(user)
    answer = client.post(reverse("people:theme"), {"theme": "dark", "next": PAGE})
    assert answer.status_code == 302 and answer["Location"] == PAGE
    assert Person.objects.get(user=user).theme == Theme.DARK

    page = parse(client.get(PAGE).content)
    assert one(page, "html")["data-theme"] == "dark"
    assert one(page, "meta[name=color-scheme]")["content"] == "dark"
    assert one(theme_control(page), "summary")["aria-label"] == "Theme: Dark. Change theme"
    assert pressed(page) == ["dark"]
    assert texts(page, "#messages .alert-success") == ["Theme: Dark."]  # said in the status region

    client.post(reverse("people:theme"), {"theme": "light", "next": PAGE})
    page = parse(client.get(PAGE).content)
    assert one(page, "html")["data-theme"] == "light"
    assert one(page, "meta[name=color-scheme]")["content"] == "light"


def test_a_word_that_is_no_theme_changes_nothing_and_says_why(logged_in_client, user):
    answer = logged_in_client.post(reverse("people:theme"), {"theme": "purple", "next": PAGE}, follow=True)
    page = parse(answer.content)
    assert texts(page, "#messages .alert-error") == ["Choose a theme: System, Light or Dark."]
    assert one(page, "html")["data-theme"] == "system"
    assert not Person.objects.filter(user=user, theme="purple").exists()


def test_it_goes_back_only_to_a_page_of_this_site(logged_in_client):
    answer = logged_in_client.post(reverse("people:theme"), {"theme": "dark", "next": "https://evil.example/"})
    assert answer["Location"] == reverse("home")


def test_from_htmx_it_answers_an_event_the_page_applies_in_place(logged_in_client, user):
    """No page load: static/js/console.js sets data-theme and the menu from the event."""
    answer = logged_in_client.post(reverse("people:theme"), {"theme": "dark", "next": PAGE}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200 and answer.content == b""
    assert json.loads(answer["HX-Trigger"]) == {"consoleTheme": {"theme": "dark", "label": "Dark"}}
    assert "HX-Redirect" not in answer
    assert Person.objects.get(user=user).theme == Theme.DARK
    # No message waits for the next page: the event said it on this one.
    assert select(parse(logged_in_client.get(PAGE).content), "#messages .alert") == []


def test_only_a_post_sets_it(logged_in_client):
    assert logged_in_client.get(reverse("people:theme")).status_code == 405


def test_the_login_page_follows_the_device(client):
    page = parse(client.get(reverse("login")).content)
    assert one(page, "html")["data-theme"] == "system"
    assert select(page, "details.theme-menu") == []  # nobody to remember it for


def test_the_theme_is_read_with_the_role_in_one_query(client, user):
    person_role_set(user=user, role=Role.MEMBER)
    Person.objects.filter(user=user).update(theme=Theme.DARK)
    client.force_login(user)
    with CaptureQueriesContext(connection) as queries:
        page = parse(client.get(PAGE).content)
    assert one(page, "html")["data-theme"] == "dark"
    # The header's inbox version names the role too, inside its one statement on the active key (not a read of the row).
    person_reads = [
        query["sql"]
        for query in queries.captured_queries
        if "people_person" in query["sql"] and "keys_apikey" not in query["sql"]
    ]
    assert len(person_reads) == 1, person_reads


def test_a_person_without_a_row_gets_one_when_they_choose(logged_in_client, user):
    Person.objects.filter(user=user).delete()
    logged_in_client.post(reverse("people:theme"), {"theme": "light", "next": PAGE})
    person = Person.objects.get(user=user)
    assert (person.theme, person.role) == (Theme.LIGHT, DEFAULT_ROLE)
    assert text_of(one(parse(logged_in_client.get(PAGE).content), ".theme-menu__name")) == "Light"
