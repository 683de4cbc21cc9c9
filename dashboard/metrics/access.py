"""Who may read the metrics: a bearer token, an address allow-list, or both.

- Off (METRICS_ENABLED false, the default): the endpoint does not exist (404).
- METRICS_TOKEN set: `Authorization: Bearer <token>` is required (compared
  in constant time). Missing: 401 with `WWW-Authenticate: Bearer`; wrong: 403.
- METRICS_ALLOW_FROM set (CIDRs, e.g. `10.0.0.0/8,127.0.0.1/32`): the
  client's address must be in one of them, else 403. The address is the
  console's one reading of it (`client_address`: the connection's, or with
  TRUSTED_PROXY_COUNT proxies in front, the one the outermost saw), so a
  forged X-Forwarded-For cannot get in.
- Both set: both must pass. An operator who names the scraper's network and
  gives it a token means both; either alone would make the other pointless.
- Enabled with neither: nothing is served (404) and `manage.py check` says
  why (dashboard/metrics/checks.py): metrics are never open to anyone.

A logged-in browser session counts for nothing here: metrics are for the
scraper, not a page (no session is read, no login page is offered).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings

logger = logging.getLogger("dashboard.metrics")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Decision:
    status: int  # 200: serve; 401, 403, 404: refuse
    reason: str = ""

    @property
    def allowed(self) -> bool:
        return self.status == 200


@lru_cache(maxsize=8)
def allowed_networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    """The allow-list's networks; an entry that is no network grants nothing
    (the system check names it)."""
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            logger.warning("METRICS_ALLOW_FROM: %r is not an address or network; ignored", entry)
    return tuple(networks)


def invalid_networks(entries: list[str] | tuple[str, ...]) -> list[str]:
    invalid = []
    for entry in entries:
        try:
            ipaddress.ip_network(entry.strip(), strict=False)
        except ValueError:
            invalid.append(entry)
    return invalid


def address_allowed(address: str, entries: tuple[str, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in network for network in allowed_networks(entries))


def bearer_token(authorization: str) -> str | None:
    scheme, _, token = (authorization or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def configured() -> bool:
    """Metrics are collected and served: enabled, with a way in."""
    return bool(settings.METRICS_ENABLED and (settings.METRICS_TOKEN or settings.METRICS_ALLOW_FROM))


def decide(*, authorization: str, address: str) -> Decision:
    """May this scrape read the metrics? `authorization` is the request's
    Authorization header, `address` the client's address as the console reads it."""
    if not configured():
        return Decision(404, "metrics are off")
    token = settings.METRICS_TOKEN
    entries = tuple(settings.METRICS_ALLOW_FROM)
    if entries and not address_allowed(address, entries):
        return Decision(403, "address not allowed")
    if token:
        given = bearer_token(authorization)
        if given is None:
            return Decision(401, "token missing")
        if not hmac.compare_digest(given.encode(), token.encode()):
            return Decision(403, "wrong token")
    return Decision(200)
