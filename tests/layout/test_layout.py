"""The base layout and stylesheet other areas build on."""

from __future__ import annotations

import json
import re

import pytest
from cryptography.fernet import Fernet
from django.urls import reverse

from dashboard.keys.testing import stored_api_key
from tests.helpers import PROJECT_DIR as ROOT
from tests.html import one, parse, select, text_of, texts

CONSOLE_CSS = (ROOT / "static" / "css" / "console.css").read_text()

SHARED_CLASSES = [
    "btn",
    "btn-primary",
    "btn-danger",
    "btn-small",
    "card",
    "table",
    "form-field",
    "field-error",
    "help",
    "badge",
    "muted",
    "toolbar",
    "empty-state",
    "alert",
    "alert-error",
    "alert-info",
    "alert-success",
    "tabs",
    "chip",
    "spinner",
    "htmx-indicator",
    "htmx-request",
    "grid",
    "stack",
    "page-header",
]


@pytest.fixture(autouse=True)
def encryption_keys(settings):
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]


def store_key(user, *, workspace_name: str, role: str, active: bool, key_id: str):
    return stored_api_key(
        user=user,
        secret="svc_sk_layouttest0000000000000000abcd",
        label=f"{workspace_name} key",
        workspace_id=f"ws-{key_id}",
        workspace_name=workspace_name,
        member_role=role,
        key_id=key_id,
        is_active=active,
    )


@pytest.mark.parametrize("name", SHARED_CLASSES)
def test_stylesheet_defines_the_shared_class(name):
    assert re.search(rf"\.{re.escape(name)}(?![\w-])", CONSOLE_CSS), name


def test_stylesheet_has_visible_focus_and_small_screen_rules():
    assert ":focus-visible" in CONSOLE_CSS
    assert "@media (max-width: 30rem)" in CONSOLE_CSS
    assert "position: sticky" in CONSOLE_CSS  # table headers stay in view


def test_layout_landmarks_skip_link_and_messages(logged_in_client):
    page = parse(logged_in_client.get(reverse("home")).content)

    assert one(page, "a.skip-link")["href"] == "#main"
    assert one(page, "header.site-header")
    assert one(page, "nav.main-nav")["aria-label"] == "Main"
    assert one(page, "main#main")
    assert one(page, "div#messages.messages")["role"] == "status"
    assert json.loads(one(page, "body")["hx-headers"]).keys() == {"X-CSRFToken"}
    assert texts(page, "nav.main-nav a") == ["Studio", "Agents", "Runs", "Objects", "Approvals", "Account"]
    logout = one(page, 'form[action="/accounts/logout/"]')
    assert logout["method"] == "post"


def test_layout_is_csp_safe(logged_in_client, user):
    store_key(user, workspace_name="Acme", role="admin", active=True, key_id="k1")
    for name in ("home", "keys:list", "keys:add"):
        page = parse(logged_in_client.get(reverse(name)).content)
        attributes = [
            (attribute, value) for element in page.find_all(True) for attribute, value in element.attrs.items()
        ]
        assert page.find_all(style=True) == [], name
        assert select(page, "style") == [], name
        assert [attribute for attribute, _ in attributes if attribute.startswith("hx-on")] == [], name
        assert [script for script in select(page, "script") if not script.get("src")] == [], name
        assert [value for _, value in attributes if "javascript:" in str(value).lower()] == [], name


def test_switcher_shows_the_active_workspace_and_role_without_remote_calls(
    logged_in_client, user, django_assert_max_num_queries
):
    store_key(user, workspace_name="Acme", role="admin", active=True, key_id="k1")
    other = store_key(user, workspace_name="Globex", role="member", active=False, key_id="k2")

    # Session, user, keys (one query for the switcher, one for the active key),
    # and the user's and groups' permissions and console role (for the Audit
    # entry; cached for the request); the inbox's header count (stored items,
    # builder questions, the person's own work, their records' mentions and
    # watched news, what they dismissed), its
    # poll's version (two statements) and news not yet shown. The home page's
    # overview adds its own (tests/home): the inbox's items (the same five),
    # the running rows, the stored runs and the records edited, and the
    # version "What needs you" and the areas' sections poll with (the
    # header's version again and whether the workspace was read: three).
    with django_assert_max_num_queries(26):
        html = logged_in_client.get(reverse("home")).content.decode()
    # The next page reads the count kept under its unchanged version (the
    # version's two statements and the news), not every source's items.
    # The console role again (one query a request); the home's own items (one query of the records' news).
    with django_assert_max_num_queries(21):
        logged_in_client.get(reverse("home"))

    page = parse(html)
    assert text_of(one(page, ".switcher__name")) == "Acme"
    assert text_of(one(page, ".switcher__role")) == "admin"
    assert one(page, f'.switcher [name="key"][value="{other.pk}"]')
    assert "Manage keys" in texts(page, ".switcher a")


def test_switcher_is_replaced_by_an_add_prompt_without_keys(logged_in_client):
    page = parse(logged_in_client.get(reverse("home")).content)
    assert select(one(page, "header.site-header"), "[class*=switcher]") == []
    assert "Add an API key" in text_of(one(page, "header.site-header"))


def test_login_page_has_no_header_tools(client, db):
    page = parse(client.get(reverse("login")).content)
    assert "Log out" not in text_of(page) and select(page, "nav.main-nav, [aria-label=Main]") == []
    assert one(page, "label[for=id_username]") and one(page, "label[for=id_password]")


@pytest.mark.parametrize("url_name", ["keys:list", "home"])
def test_nav_marks_no_area_on_pages_outside_the_areas(logged_in_client, url_name):
    page = parse(logged_in_client.get(reverse(url_name)).content)
    assert select(one(page, "nav.main-nav"), "[aria-current]") == []


@pytest.mark.parametrize(
    ("url_name", "args", "section"),
    [
        ("studio:index", [], "Studio"),
        ("agents:index", [], "Agents"),
        ("agents:detail", ["a-1"], "Agents"),
        ("agents:runs", [], "Runs"),
        ("agents:run", ["r-1"], "Runs"),
        ("agents:approvals", [], "Approvals"),
        ("objects:index", [], "Objects"),
        ("objects:records", ["deals"], "Objects"),
        ("account", [], "Account"),
        ("keys:list", [], None),
    ],
)
def test_the_current_section_comes_from_the_area_registry(rf, url_name, args, section):
    from django.urls import resolve

    from dashboard.frame.areas import nav_links

    links = nav_links(resolve(reverse(url_name, args=args)))

    assert [link.label for link in links] == ["Studio", "Agents", "Runs", "Objects", "Approvals", "Account"]
    assert [link.label for link in links if link.current] == ([section] if section else [])


def test_an_area_registered_later_joins_the_navigation_home_page_and_error_pages(logged_in_client):
    from dashboard.frame.areas import Area, HomeCard, ListPage, NavEntry, register_area, unregister_area

    register_area(
        Area(
            name="reports",
            order=50,
            nav=(NavEntry("Reports", "keys:list"),),
            cards=(HomeCard("Reports", "Numbers about everything.", "keys:list"),),
            list_pages=(ListPage("Back to reports", "keys:list"),),
        )
    )
    try:
        page = parse(logged_in_client.get(reverse("home")).content)
    finally:
        unregister_area("reports")
    assert "Reports" in texts(page, "nav.main-nav a")
    assert "Reports" in texts(page, ".home-areas .card-title")


def test_messages_render_as_alerts(logged_in_client, user):
    first = store_key(user, workspace_name="Acme", role="admin", active=True, key_id="k1")
    second = store_key(user, workspace_name="Globex", role="member", active=False, key_id="k2")
    assert first.is_active

    response = logged_in_client.post(reverse("keys:activate"), {"key": second.pk}, follow=True)

    assert texts(response.content, "#messages .alert.alert-success") == ["Now working in Globex as member."]


def test_the_phone_header_collapses_only_where_scripts_run(logged_in_client):
    """One bar on a phone (issue 40): the Menu button names what it opens and
    its state; without scripts nothing is hidden (the menu's links and tools
    are in the page, the CSS collapses them only under `scripting: enabled`)."""
    page = parse(logged_in_client.get(reverse("home")).content)
    header = one(page, "header.site-header")
    button = one(header, "button[data-menu-toggle]")
    assert text_of(button) == "Menu" and button["aria-expanded"] == "false" and button["type"] == "button"
    menu = one(header, f"#{button['aria-controls']}")
    assert not menu.has_attr("hidden") and one(menu, "nav.main-nav") and one(menu, ".header-tools")
    # The inbox count stays in the bar, outside what the menu folds.
    bar = one(header, ".header-bar")
    assert one(bar, "#inbox-header") and not select(menu, "#inbox-header")
    css = (ROOT / "static" / "css" / "console.css").read_text()
    assert "@media (scripting: enabled) and (max-width: 47.99rem)" in css
