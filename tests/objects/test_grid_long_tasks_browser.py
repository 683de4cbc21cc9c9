"""The records grid at 100 rows in Chromium, light on a phone (#40): no script
runs over 50 ms while the page loads, nor when the whole page is selected or
the arrow keys walk its cells, as Chromium's performance timeline records
them. The observers start before the page's first byte: `long-animation-frame`
names each script that ran in a frame over 50 ms and how long it ran, and
`longtask` records every task over 50 ms. The assertion is on the scripts: a
long task whose time is the parser's or the layout's (a 148 KB page on a
loaded two-core machine) is no script's, and is reported with them in the
failure's words, not counted. A count of what the timeline recorded, not how
long the test took. Its own page, without axe (axe-core's checks are long
tasks of their own), at 375 px.

The best of three visits counts: htmx's start walks the page's 3,700
elements (about 10 to 35 ms here, alone on the machine), and once, on CI,
took 73 ms while another process had both cores. A script too heavy for a
phone is over 50 ms on every visit; a moment of the machine's own load is
not on all three."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from sandbox.fixtures import create_every_type_object, sample_values
from tests.helpers import csp_violations
from tests.objects.support import session_cookie

ROWS = 100
LONG_MS = 50

# At the document's start: every long task and every long frame's scripts, kept on window.
OBSERVE = """
window.__long = {tasks: [], scripts: [], frames: PerformanceObserver.supportedEntryTypes.indexOf("long-animation-frame") >= 0};
new PerformanceObserver(function (list) {
  list.getEntries().forEach(function (entry) { window.__long.tasks.push(Math.round(entry.duration)); });
}).observe({type: "longtask", buffered: true});
if (window.__long.frames) {
  new PerformanceObserver(function (list) {
    list.getEntries().forEach(function (frame) {
      (frame.scripts || []).forEach(function (script) {
        window.__long.scripts.push({ms: Math.round(script.duration), source: script.sourceURL + " " + script.invoker});
      });
    });
  }).observe({type: "long-animation-frame", buffered: true});
}
"""

# Resolves once the page's work is done: two idle callbacks after the load.
SETTLED = """() => new Promise(function (done) {
  requestIdleCallback(function () { requestIdleCallback(function () { done(window.__long); }); });
})"""


@pytest.fixture
def hundred_rows(live_server, sandbox, settings, transactional_db, django_user_model):
    from dashboard.api import ServiceClient
    from dashboard.keys.testing import store_sandbox_key

    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    for i in range(ROWS):
        service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)})
    user = django_user_model.objects.create_user(username="paula", password="phones are small and slow")
    store_sandbox_key(user, service, sandbox.demo_key)
    return {"url": f"{live_server.url}/objects/{obj['key']}/records/?limit={ROWS}", "user": user, "server": live_server}


VISITS = 3


def visit(page: Page, hundred_rows) -> tuple[list[dict], dict, list]:
    """One visit in a new phone-sized context: the scripts over 50 ms, what the timeline held, CSP violations."""
    context = page.context.browser.new_context(viewport={"width": 375, "height": 740}, has_touch=True)
    context.add_cookies([session_cookie(hundred_rows["user"], hundred_rows["server"].url)])
    phone = context.new_page()
    violations = csp_violations(phone)
    phone.add_init_script(OBSERVE)

    phone.goto(hundred_rows["url"])
    expect(phone.locator("table.records tbody:not(.records-more) tr")).to_have_count(ROWS)
    loaded = phone.evaluate(SETTLED)

    # The whole page selected (the bulk bar counts 100 boxes), then the arrows across a row and down.
    phone.locator("[data-select-page]").focus()
    phone.keyboard.press("Space")
    expect(phone.locator("#bulk-count")).to_have_text(f"{ROWS} selected")
    phone.locator("table.records tbody:not(.records-more) tr").first.locator("td").nth(1).focus()
    for key in ["ArrowRight"] * 5 + ["ArrowDown"] * 5:
        phone.keyboard.press(key)
    used = phone.evaluate(SETTLED)
    context.close()

    # `used` holds what `loaded` held and what came after (the observers kept on).
    assert used["frames"], "this Chromium has no long-animation-frame timeline"
    return (
        [script for script in used["scripts"] if script["ms"] > LONG_MS],
        {"loaded": loaded, "used": used},
        violations,
    )


@pytest.mark.browser
def test_the_grid_of_100_rows_runs_no_script_task_over_50_ms(hundred_rows, page: Page):
    visits = []
    for _ in range(VISITS):
        long_scripts, timeline, violations = visit(page, hundred_rows)
        assert violations == []
        visits.append((long_scripts, timeline))
        if not long_scripts:
            break
    assert [] in [long_scripts for long_scripts, _ in visits], visits
