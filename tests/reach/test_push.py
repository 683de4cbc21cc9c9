"""Web Push with real parts: pywebpush posts to a local push service (an
HTTP server here) that checks what a real one checks (the VAPID
Authorization header, a JWT signed with the console's key; the payload's
aes128gcm encryption, decrypted with the browser's keys made here); a 410
drops the subscription, said on the page; subscribing and unsubscribing
from the Notifications page (which works without JavaScript); the service
worker and manifest served at the site's root without signing in; VAPID keys
generated like the other first-run secrets."""

from __future__ import annotations

import base64
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.urls import reverse
from py_vapid import Vapid, Vapid02

from dashboard.envfile import ensure_env_file, ensure_vapid_keys, vapid_keypair
from dashboard.reach.decision_tokens import token_find
from dashboard.reach.messages import console_link
from dashboard.reach.models import DecisionToken, Delivery, NotificationPreference, PushSubscription
from dashboard.reach.producing import notifications_produce
from dashboard.reach.sending import delivery_step
from dashboard.reach.services import push_subscribe
from tests.html import one, select, text_of
from tests.reach.conftest import APPROVAL_ID, WORKSPACE, pending_approval

PHONE = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
)


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@pytest.fixture(autouse=True)
def vapid(settings):
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = vapid_keypair()
    settings.VAPID_SUBJECT = "mailto:console@example.com"
    return settings


class Browser:
    """A browser's side of a subscription: its P-256 key and auth secret (what decrypts the messages)."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.p256dh = b64url(point)

    def read(self, body: bytes) -> dict:
        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"))


class PushService:
    """A local push service: keeps each request (headers by lower-case name, body) and answers `status`."""

    def __init__(self):
        self.requests: list[tuple[dict, bytes]] = []
        self.status = 201
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                service.requests.append(({name.lower(): value for name, value in self.headers.items()}, body))
                self.send_response(service.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def endpoint(self, name: str) -> str:
        return f"{self.origin}/wpush/v2/{name}"


@pytest.fixture
def push_service():
    service = PushService()
    try:
        yield service
    finally:
        service.server.shutdown()
        service.server.server_close()


def subscribed(user, push_service: PushService, name: str = "phone") -> tuple[PushSubscription, Browser]:
    browser = Browser()
    subscription = push_subscribe(
        user=user,
        endpoint=push_service.endpoint(name),
        p256dh=browser.p256dh,
        auth=b64url(browser.auth),
        device="Chrome on Android",
    )
    return subscription, browser


def vapid_claims(headers: dict, settings) -> dict:
    """The checks of a push service: `vapid t=<JWT>,k=<public key>`, the JWT
    signed by that key, which is the console's; the claims it carries."""
    authorization = headers["authorization"]
    assert Vapid02.verify(authorization) is True
    parts = dict(part.split("=", 1) for part in authorization.split(" ", 1)[1].split(","))
    assert parts["k"] == settings.VAPID_PUBLIC_KEY
    return json.loads(unb64url(parts["t"].split(".")[1]))


@pytest.mark.django_db(transaction=True)
def test_an_approval_reaches_a_subscribed_phone_signed_encrypted_and_with_approve_and_reject(
    dana, push_service, settings
):
    NotificationPreference.objects.create(user=dana, approval_risks=["send"], by_email=False)
    subscription, browser = subscribed(dana, push_service)
    pending_approval()

    notifications_produce(WORKSPACE)
    delivery = Delivery.objects.get(user=dana)
    assert delivery.channel == f"push:{subscription.pk}"
    assert delivery_step(delivery_id=delivery.pk) == "sent"

    assert len(push_service.requests) == 1
    headers, body = push_service.requests[0]
    claims = vapid_claims(headers, settings)
    assert claims["aud"] == push_service.origin and claims["sub"] == "mailto:console@example.com"
    assert headers["content-encoding"] == "aes128gcm"
    assert int(headers["ttl"]) > 0 and headers["urgency"] == "high"
    message = browser.read(body)
    link = console_link(delivery.path)
    assert APPROVAL_ID in link
    assert message["title"] == delivery.title and message["url"] == link
    # Each action opens the confirmation page of a decision token made for Dana on this device (GET never decides).
    token = DecisionToken.objects.get(user=dana, approval_id=APPROVAL_ID)
    assert token.via == "push" and token.used_at is None
    actions = [(action["action"], action["title"], urlsplit(action["url"])) for action in message["actions"]]
    assert [(name, title, url.query) for name, title, url in actions] == [
        ("approve", "Approve", "d=approve"),
        ("reject", "Reject", "d=reject"),
    ]
    secret = actions[0][2].path.rsplit("/", 1)[-1]
    assert token_find(secret) == token and actions[1][2].path == actions[0][2].path
    assert Delivery.objects.get(pk=delivery.pk).status == Delivery.STATUS_SENT


@pytest.mark.django_db(transaction=True)
def test_a_subscription_the_push_service_calls_gone_is_dropped_not_retried_and_said_on_the_page(
    client, dana, push_service
):
    NotificationPreference.objects.create(user=dana, approval_risks=["send"], by_email=False)
    subscription, _ = subscribed(dana, push_service)
    pending_approval()
    notifications_produce(WORKSPACE)
    push_service.status = 410

    delivery = Delivery.objects.get(user=dana)
    assert delivery_step(delivery_id=delivery.pk) == "failed"  # given up at once: no retry for a gone device

    delivery.refresh_from_db()
    assert delivery.status == Delivery.STATUS_FAILED and "410" in delivery.last_error
    subscription.refresh_from_db()
    assert subscription.dropped_at is not None
    pending_approval(approval_id="aaaaaaaa-0000-4000-8000-00000000000b")
    notifications_produce(WORKSPACE)
    assert Delivery.objects.filter(user=dana).count() == 1  # the dropped device gets nothing more
    assert len(push_service.requests) == 1

    client.force_login(dana)
    page = client.get(reverse("reach:preferences")).content
    device = one(page, "ul[aria-label=Devices] li")
    assert "Dropped" in text_of(device) and "subscribe again there" in text_of(device)
    assert one(device, "button").get("aria-label") == "Forget Chrome on Android"


@pytest.mark.django_db
def test_a_device_subscribes_and_unsubscribes_from_the_notifications_page_which_works_without_javascript(
    client, dana, django_user_model, push_service
):
    client.force_login(dana)
    page = client.get(reverse("reach:preferences")).content
    form = one(page, "form#push-subscribe")
    assert form.get("data-vapid-public-key")
    assert (
        text_of(one(form, "noscript"))
        == "Push notifications need JavaScript: turn it on in this browser to subscribe it."
    )
    assert one(form, "button[type=submit]").has_attr("hidden")  # shown by the page's script only
    assert text_of(one(page, "#push-none")) == "No device subscribed yet."

    browser = Browser()
    values = {"endpoint": push_service.endpoint("dana-phone"), "p256dh": browser.p256dh, "auth": b64url(browser.auth)}
    answer = client.post(reverse("reach:push_subscribe"), values, headers={"user-agent": PHONE})
    assert answer.status_code == 302
    subscription = PushSubscription.objects.get(user=dana)
    assert subscription.device == "Chrome on Android" and subscription.endpoint == values["endpoint"]
    page = client.get(reverse("reach:preferences")).content
    assert [item.get("data-endpoint") for item in select(page, "ul[aria-label=Devices] li")] == [values["endpoint"]]

    bad = client.post(reverse("reach:push_subscribe"), {**values, "endpoint": "not an address"}, follow=True)
    assert "could not be read" in text_of(one(bad.content, "#messages"))
    assert PushSubscription.objects.count() == 1

    other = django_user_model.objects.create_user(username="eve", password="a long enough passphrase")
    client.force_login(other)
    assert client.post(reverse("reach:push_unsubscribe", args=[subscription.pk])).status_code == 404
    client.force_login(dana)
    client.post(reverse("reach:push_unsubscribe", args=[subscription.pk]))
    assert not PushSubscription.objects.exists()


@pytest.mark.django_db
def test_without_vapid_keys_the_page_says_push_is_not_set_up(client, dana, settings):
    settings.VAPID_PRIVATE_KEY = ""
    client.force_login(dana)
    page = client.get(reverse("reach:preferences")).content
    assert not select(page, "form#push-subscribe")
    assert "not set up on this console" in text_of(one(page, "#push-heading ~ p.alert"))


@pytest.mark.django_db
def test_the_service_worker_and_the_manifest_are_served_at_the_root_without_signing_in(client, dana):
    worker = client.get("/sw.js")
    assert worker.status_code == 200 and worker["Content-Type"].startswith("text/javascript")
    assert worker["Service-Worker-Allowed"] == "/"
    assert b'addEventListener("notificationclick"' in worker.content

    manifest = client.get("/manifest.webmanifest")
    assert manifest["Content-Type"] == "application/manifest+json"
    body = json.loads(manifest.content)
    assert (body["display"], body["start_url"], body["theme_color"]) == ("standalone", "/inbox/", "#3346c9")
    sizes = {icon["sizes"]: icon["src"] for icon in body["icons"]}
    assert set(sizes) == {"192x192", "512x512", "any"}
    for size in ("192", "512"):
        png = (settings_base() / "static" / "icons" / f"console-{size}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") == int(size)

    client.force_login(dana)
    page = client.get(reverse("reach:preferences")).content
    assert one(page, "link[rel=manifest]").get("href") == "/manifest.webmanifest"
    assert one(page, "meta[name=theme-color]").get("content") == body["theme_color"]


def settings_base():
    from django.conf import settings

    return settings.BASE_DIR


def test_vapid_keys_are_made_with_the_first_run_secrets_and_added_to_an_older_env_file(tmp_path):
    fresh = tmp_path / "fresh.env"
    ensure_env_file(fresh)
    values = dict(line.split("=", 1) for line in fresh.read_text().splitlines() if "=" in line)
    assert {"SECRET_KEY", "KEY_ENCRYPTION_KEYS", "VAPID_PRIVATE_KEY", "VAPID_PUBLIC_KEY"} <= set(values)
    key = Vapid.from_string(values["VAPID_PRIVATE_KEY"])  # what pywebpush reads
    point = key.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    assert b64url(point) == values["VAPID_PUBLIC_KEY"] and len(point) == 65

    older = tmp_path / "older.env"
    older.write_text("SECRET_KEY=kept\nKEY_ENCRYPTION_KEYS=kept-too\n")
    ensure_vapid_keys(older)
    ensure_vapid_keys(older)  # once only
    text = older.read_text()
    assert text.startswith("SECRET_KEY=kept\nKEY_ENCRYPTION_KEYS=kept-too\n")
    assert text.count("VAPID_PRIVATE_KEY=") == 1 and text.count("VAPID_PUBLIC_KEY=") == 1
