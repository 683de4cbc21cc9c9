"""The axe watch every browser test's page carries (tests/axe.py) sees what
the console serves: a violation on a page is reported with its page, and
the console's own error page has none."""

from __future__ import annotations

import pytest

from tests.axe import check_now, watch_with_axe
from tests.helpers import PASSWORD, fill_login_form

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.browser]


@pytest.fixture
def watched(live_server, transactional_db, django_user_model, browser):
    """A page of its own (not the `page` fixture, which would fail this test on the planted violation)."""
    django_user_model.objects.create_user(username="ada", password=PASSWORD)
    context = browser.new_context()
    page = context.new_page()
    watch = watch_with_axe(page)
    page.goto(live_server.url + "/accounts/login/")
    fill_login_form(page, "ada")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    yield live_server, page, watch
    context.close()


def checked(page, watch) -> None:
    page.wait_for_load_state("load")
    check_now(page, watch)
    # A check the load or the scheme change started by itself may still have the other scheme on:
    # wait for it as the wrapped page methods do (tests/axe.py, _after_checks).
    page.evaluate("() => window.__consoleAxeIdle ? window.__consoleAxeIdle() : null")


def test_a_violation_is_reported_with_its_page(watched):
    server, page, watch = watched
    page.goto(server.url + "/test-inaccessible-page/")
    checked(page, watch)

    assert any(f.rule == "image-alt" and "/test-inaccessible-page/" in f.url for f in watch.findings)


def test_the_error_page_passes_axe(watched):
    server, page, watch = watched
    page.goto(server.url + "/test-remote-error/503/")
    checked(page, watch)

    assert any("/test-remote-error/503/" in url for url in watch.checked_urls)
    assert watch.failures() == []
    assert page.get_by_role("heading", level=1).inner_text() == "The service had a problem"


def test_each_check_sees_the_page_in_both_themes_and_puts_the_scheme_back(watched):
    """A check runs axe in the scheme the page is shown in, then the colour
    rules in the other one (issue #22: axe in both themes), and leaves the
    page in the scheme it found."""
    server, page, watch = watched
    page.goto(server.url + "/test-remote-error/503/")
    checked(page, watch)
    assert watch.schemes_checked == {"light", "dark"}
    assert watch.restore_scheme is None
    assert page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches") is False

    page.emulate_media(color_scheme="dark")  # a test that shows dark itself: light is the other one
    watch.schemes_checked.clear()
    checked(page, watch)
    assert watch.schemes_checked == {"light", "dark"}
    assert page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches") is True
    assert watch.failures() == []
