"""Error reporting to Sentry, on only when SENTRY_DSN is set (settings call
`sentry_init`); nothing of sentry_sdk is imported otherwise.

What leaves the process is scrubbed first: `scrub_event` walks the whole
event (message, exception values, every stack frame's local variables,
breadcrumbs, request data and headers, tags, contexts, extras) and masks
anything shaped like an API key (`svc_sk_...`, dashboard/logging.py), and
replaces Authorization and Cookie headers wherever they appear. Sentry's own
scrubbing (no personal data by default: no cookies, no user details, no
addresses; its denylist of variable names such as `api_key`) runs as well;
ours is by shape, so a key under any name, or inside a longer string, is
caught. Breadcrumbs are scrubbed as they are recorded too.

Choices:
- `trace_propagation_targets=[]`: no `sentry-trace`/`baggage` headers on the
  calls to the remote service, which is not ours (OpenTelemetry, when on,
  sends W3C `traceparent`, a standard the service may take part in).
- Performance tracing is off unless SENTRY_TRACES_SAMPLE_RATE says otherwise;
  transactions go through the same scrubber.
- Each event is tagged with the console's request id, the one on the error
  page, in the logs and at the service.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dashboard.logging import holds_secret, redact
from dashboard.observability.context import current_request_id

if TYPE_CHECKING:
    from sentry_sdk.types import Breadcrumb, BreadcrumbHint, Event, Hint

HIDDEN = "[Filtered]"
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"})
# Walking stops this deep (Sentry's own serializer stops earlier: 10 levels).
MAX_DEPTH = 64


def _scrub(value: Any, depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        return HIDDEN
    if isinstance(value, str):
        return redact(value) if holds_secret(value) else value
    if isinstance(value, Mapping):
        cleaned: dict[Any, Any] = {}
        for key, item in value.items():
            name = _scrub(key, depth + 1) if isinstance(key, str) else key
            if isinstance(key, str) and key.lower() in SECRET_HEADERS:
                cleaned[name] = HIDDEN
            else:
                cleaned[name] = _scrub(item, depth + 1)
        return cleaned
    if isinstance(value, list | tuple):
        items = [_scrub(item, depth + 1) for item in value]
        if len(items) == 2 and isinstance(items[0], str) and items[0].lower() in SECRET_HEADERS:
            items[1] = HIDDEN  # headers as [name, value] pairs
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, bytes):
        return _scrub(value.decode("utf-8", "replace"), depth + 1)
    return value


def scrub_event(event: Event, hint: Hint | None = None) -> Event:
    """Sentry's `before_send` (and `before_send_transaction`): the event with
    every key masked, tagged with the request id."""
    cleaned: Any = _scrub(event)
    request_id = current_request_id()
    if request_id:
        cleaned.setdefault("tags", {})
        if isinstance(cleaned["tags"], dict):
            cleaned["tags"].setdefault("request_id", request_id)
    return cleaned


def scrub_breadcrumb(crumb: Breadcrumb, hint: BreadcrumbHint | None = None) -> Breadcrumb:
    cleaned: Any = _scrub(crumb)
    return cleaned


def sentry_init(
    *,
    dsn: str,
    environment: str = "",
    release: str = "",
    traces_sample_rate: float = 0.0,
    transport: Any = None,
) -> None:
    """Start Sentry with the Django and Celery integrations. `transport` is for
    the tests (a class that keeps the envelopes it is given)."""
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    options: dict[str, Any] = {}
    if transport is not None:
        options["transport"] = transport
    sentry_sdk.init(
        dsn=dsn,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        # No personal data (user details, cookies, addresses, bodies): that is the
        # default of every 2.x release, so it is not passed: the newest releases
        # deprecate `send_default_pii=False` in favour of `data_collection`, which
        # the oldest ones we allow do not know. The tests check the client says so.
        before_send=scrub_event,
        before_send_transaction=scrub_event,
        before_breadcrumb=scrub_breadcrumb,
        environment=environment or None,
        release=release or None,
        traces_sample_rate=traces_sample_rate or None,
        trace_propagation_targets=[],
        **options,
    )
