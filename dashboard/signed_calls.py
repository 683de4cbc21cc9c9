"""Signed calls to addresses people give the console: the one place that signs
a body and POSTs it (notifications' generic JSON webhooks, dashboard/reach; a
workspace's outbound events, dashboard/events).

Signing is the Standard Webhooks scheme (standardwebhooks.com): HMAC-SHA256
with the endpoint's secret over `<id>.<timestamp>.<body>`, sent as
`webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>`. The
secret is `whsec_` + base64 of 24 random bytes, as the scheme's libraries read it.

An address may be refused when it leads inside the console's own network
(loopback, private, link-local, reserved): `allow_private=False` checks every
address the name resolves to, and the call then goes to the address that was
checked (the name is kept for the Host header and TLS), so a name that
resolves elsewhere a second later (DNS rebinding) cannot slip past the check.
Nothing here logs a secret or a body.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import secrets
import socket
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit, urlunsplit

import httpx

SECRET_PREFIX = "whsec_"


def signing_secret_new() -> str:
    """A new signing secret, in the Standard Webhooks form (`whsec_` + base64 of 24 random bytes)."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def signature(*, secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def signed_headers(*, secret: str, message_id: str, body: bytes, now: datetime) -> dict[str, str]:
    """The headers of one signed JSON call (the same id on every try of one message)."""
    timestamp = int(now.timestamp())
    return {
        "Content-Type": "application/json",
        "Webhook-Id": message_id,
        "Webhook-Timestamp": str(timestamp),
        "Webhook-Signature": signature(secret=secret, message_id=message_id, timestamp=timestamp, body=body),
    }


class AddressRefused(ValueError):
    """Why an address is not called, in words."""


def _inside(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not address.is_global or address.is_multicast


def _addresses(host: str) -> list[str]:
    try:
        return [ipaddress.ip_address(host).compressed]
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise AddressRefused(f"The name {host} could not be found.") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def address_check(url: str, *, allow_http: bool, allow_private: bool) -> str:
    """The address as it will be called, or why not (AddressRefused, in words)."""
    url = url.strip()
    parts = urlsplit(url)
    allowed = ("https", "http") if allow_http else ("https",)
    if parts.scheme not in allowed or not parts.hostname:
        raise AddressRefused("Give the full https:// address.")
    if not allow_private:
        _public_address(parts.hostname)
    return url


def _public_address(host: str) -> str:
    """One address of `host`, when none of them is inside the console's network."""
    addresses = _addresses(host)
    inside = [address for address in addresses if _inside(ipaddress.ip_address(address))]
    if inside or not addresses:
        raise AddressRefused(
            f"{host} leads to {inside[0] if inside else 'no address'}, inside the console's own network: "
            "only public addresses are called."
        )
    return addresses[0]


@dataclass(frozen=True)
class Answer:
    status: int


class CallProblem(Exception):
    """Why a call failed, in words (a refused address, no answer in time, no
    connection); `cause` names the transport's error ("ReadTimeout"), or "refused"."""

    def __init__(self, words: str, *, cause: str) -> None:
        super().__init__(words)
        self.cause = cause


def post_signed(
    url: str, *, body: bytes, headers: dict[str, str], timeout: float, allow_private: bool = True
) -> Answer:
    """POST `body` once (no redirects followed: a signed body goes only where it was sent).
    Any answer is returned; no answer is a CallProblem."""
    parts = urlsplit(url)
    target, extensions = url, dict[str, str]()
    if not allow_private:
        try:
            address = _public_address(parts.hostname or "")
        except AddressRefused as exc:
            raise CallProblem(str(exc), cause="refused") from exc
        netloc = f"[{address}]" if ":" in address else address
        if parts.port:
            netloc += f":{parts.port}"
        target = urlunsplit(parts._replace(netloc=netloc))
        headers = {**headers, "Host": parts.netloc.rsplit("@", 1)[-1]}
        extensions = {"sni_hostname": parts.hostname or ""}
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False) as client:
            answer = client.post(target, content=body, headers=headers, extensions=extensions)
    except httpx.TimeoutException as exc:
        raise CallProblem(f"No answer within {timeout:g} s.", cause=type(exc).__name__) from exc
    except httpx.HTTPError as exc:
        cause = type(exc).__name__
        raise CallProblem(f"The address could not be reached ({cause}).", cause=cause) from exc
    return Answer(status=answer.status_code)
