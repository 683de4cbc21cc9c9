"""The service worker in Chromium, on the live server: registered from
/sw.js with the whole console as its scope, it shows a pushed approval with
its Approve and Reject actions (`registration.showNotification`, through the
worker's own options) and a click opens the clicked action's link, or the
notification's. Headless Chromium has no notification to click, so the test
dispatches the `notificationclick` event in the worker itself; an event not
made by the browser may not open a window (`clients.openWindow` refuses it),
so the worker's `clients.openWindow` is replaced there by one that records
the address it is asked to open. axe checks the Notifications page."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import Page, expect

from dashboard.envfile import vapid_keypair
from dashboard.reach.models import PushSubscription

CLICK = """async ([message, action]) => {
  const opened = [];
  self.clients.openWindow = async (url) => { opened.push(url); return null; };
  await self.registration.showNotification(message.title, notificationOptions(message));
  const [shown] = await self.registration.getNotifications({ tag: message.tag });
  const event = new NotificationEvent("notificationclick", { notification: shown, action });
  self.dispatchEvent(event);
  for (let tries = 0; tries < 100 && !opened.length; tries++) await new Promise((done) => setTimeout(done, 20));
  return { opened, title: shown.title, actions: shown.actions.map((a) => [a.action, a.title]),
           left: (await self.registration.getNotifications({ tag: message.tag })).length };
}"""


@pytest.mark.django_db(transaction=True)
def test_the_service_worker_shows_an_approval_and_a_click_opens_the_clicked_actions_link(
    live_server, settings, django_user_model, page: Page
):
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = vapid_keypair()
    person = django_user_model.objects.create_user(username="dana", password="a long enough passphrase")
    client = Client()
    client.force_login(person)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page.context.grant_permissions(["notifications"], origin=live_server.url)

    page.goto(f"{live_server.url}/notifications/")
    expect(page.get_by_role("button", name="Turn on push on this device")).to_be_visible()  # the script shows it
    with page.context.expect_event("serviceworker") as started:
        scope = page.evaluate("navigator.serviceWorker.register('/sw.js', { scope: '/' }).then((r) => r.scope)")
    assert scope == f"{live_server.url}/"
    worker = started.value
    assert worker.url == f"{live_server.url}/sw.js"
    # A worker that has started may still be installing; showNotification needs
    # an active one, which `ready` waits for (the CI run that met it installing).
    assert page.evaluate("navigator.serviceWorker.ready.then((r) => Boolean(r.active))")

    approval = f"{live_server.url}/approvals/?approval=aaaa"
    message = {
        "title": "Approval waiting (send): Send the welcome email",
        "body": "Approve or reject it, or open it in the console.",
        "url": approval,
        "tag": "approval:aaaa",
        "actions": [
            {"action": "approve", "title": "Approve", "url": f"{approval}&do=approve"},
            {"action": "reject", "title": "Reject", "url": f"{approval}&do=reject"},
        ],
    }
    rejected = worker.evaluate(CLICK, [message, "reject"])
    assert rejected["title"] == message["title"]
    assert rejected["actions"] == [["approve", "Approve"], ["reject", "Reject"]]
    assert rejected["opened"] == [f"{approval}&do=reject"]
    assert rejected["left"] == 0  # the click closed it

    body_click = worker.evaluate(CLICK, [message, ""])
    assert body_click["opened"] == [approval]
    assert not PushSubscription.objects.exists()  # registering the worker subscribes nothing by itself
