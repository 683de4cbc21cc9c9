"""Inbox header poll bench: what every page's poll of the header count costs
when nothing changed, next to a trivial view and the live status poll.

    .venv/bin/python bench/inbox_poll.py [--rounds 15] [--requests 200] [--json]

One process, a throwaway SQLite database, no sandbox (the header count never
calls the remote service: what only the service knows was stored by the
refresh task). The workspace holds 20 pending approvals and 20 runs waiting
or failed (as a refresh stores them), 5 builder questions, and the person's
own 50 tracked Studio turns (some waiting for answers). The WSGI application
is called directly with the session cookie and `HX-Request`, in rounds taken
turn about, for:

- the trivial view (bench/urls.py) under the same middleware;
- the header poll carrying the version it shows (unchanged: 204);
- the header poll without a version (the count rendered every time);
- the live status poll, unchanged (bench/status_poll.py's subject), for scale.

It reports the median requests per second of each, the ratio unchanged header
poll / trivial view, the bytes of each answer and the queries of one
unchanged header poll.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import PASSWORD, django_in, requests_per_second, throwaway
from bench.status_poll import wsgi_get


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15, help="rounds of each kind, turn about (default 15)")
    parser.add_argument("--requests", type=int, default=200, help="requests per round (default 200)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    with throwaway() as tmp, django_in(tmp):
        from django.contrib.auth import get_user_model
        from django.core.handlers.wsgi import WSGIHandler
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext
        from django.urls import reverse
        from django.utils import timezone

        from agents.models import BuilderAnswer
        from dashboard.inbox.models import WaitingItem
        from dashboard.inbox.selectors import header_state
        from dashboard.inbox.sources import InboxViewer
        from dashboard.keys.testing import stored_api_key
        from dashboard.live import selectors
        from dashboard.live.models import TrackedOperation
        from dashboard.live.services import operation_track

        user = get_user_model().objects.create_user(username="bench", password=PASSWORD)
        # Never sent anywhere (no poll calls the service); made here so no key-shaped text is committed.
        key = stored_api_key(user=user, secret="svc_sk_" + secrets.token_hex(20), workspace_id="ws-b")
        now = timezone.now()
        for number in range(20):
            approval = {
                "id": f"ap-{number}",
                "agent_id": f"agent-{number % 4}",
                "run_id": f"run-{number}",
                "summary": f"Send the email number {number}",
                "input": {"to": "sales@example.com", "subject": "Hello", "body": "Hi"},
                "risk": "send",
                "status": "pending",
                "created_at": now.isoformat(),
            }
            WaitingItem.objects.create(
                workspace_id="ws-b",
                source="agents",
                remote_id=f"approval:ap-{number}",
                kind="approval",
                data={"approval": approval, "agent_name": f"Agent {number % 4}"},
                since=now,
                settle_path=f"/v1/approvals/ap-{number}",
                refreshed_at=now,
            )
            run = {
                "id": f"failed-{number}",
                "status": "failed",
                "event": {"kind": "webhook"},
                "created_at": now.isoformat(),
            }
            WaitingItem.objects.create(
                workspace_id="ws-b",
                source="agents",
                remote_id=f"run:failed-{number}",
                kind="failed",
                data={"run": run, "agent_id": f"agent-{number % 4}", "agent_name": f"Agent {number % 4}"},
                since=now,
                refreshed_at=now,
            )
        for number in range(5):
            BuilderAnswer.objects.create(
                workspace_id="ws-b",
                agent_id=f"agent-{number}",
                status="needs_input",
                questions=[{"text": "Which mailbox?", "options": ["sales@", "support@"]}],
                asked_by=user,
            )
        for number in range(50):
            status = "needs_input" if number % 10 == 0 else "completed"
            op = operation_track(
                owner_key=key,
                kind="studio.turn",
                remote_id=f"turn-{number}",
                title="Build a landing page",
                snapshot={"id": f"turn-{number}", "status": status, "questions": [{"text": "What colours?"}]},
                context={"studio": "website", "conversation_id": f"conv-{number}"},
            )
            TrackedOperation.objects.filter(pk=op.pk).update(status=status, is_final=True)
        live_op = operation_track(
            owner_key=key, kind="studio.turn", remote_id="turn-live", title="Still building", context={}
        )

        browser = Client()
        browser.force_login(user)
        cookie = f"sessionid={browser.cookies['sessionid'].value}"
        app = WSGIHandler()
        header_path = reverse("inbox:header")
        status_path = reverse("live:status", args=[live_op.pk])
        viewer = InboxViewer(user=user, workspace_id="ws-b")
        state = header_state(viewer=viewer)
        # Claim the news once, as the first page would, so every later poll is "unchanged".
        wsgi_get(app, header_path, cookie=cookie, hx_request="true")

        def live_version() -> str:
            TrackedOperation.objects.filter(pk=live_op.pk).update(last_polled_at=timezone.now())
            return selectors.operation_status_version(user=user, operation_id=live_op.pk)

        version = live_version()
        header_version = state.version
        kinds = {
            "trivial view": lambda: wsgi_get(app, "/bench/trivial", cookie=cookie),
            "header poll, unchanged (204)": lambda: wsgi_get(
                app, header_path, query=f"v={header_version}", cookie=cookie, hx_request="true"
            ),
            "header poll, rendered": lambda: wsgi_get(app, header_path, cookie=cookie, hx_request="true"),
            "status poll, unchanged (204)": lambda: wsgi_get(
                app, status_path, query=f"v={version}", cookie=cookie, hx_request="true"
            ),
        }
        answers = {name: call() for name, call in kinds.items()}
        assert answers["trivial view"][0] == 200, answers
        assert answers["header poll, unchanged (204)"][0] == 204, answers
        assert answers["header poll, rendered"][0] == 200, answers
        assert answers["status poll, unchanged (204)"][0] == 204, answers
        with CaptureQueriesContext(connection) as queries:
            kinds["header poll, unchanged (204)"]()
        poll_queries = len(queries)

        def before_round() -> None:
            nonlocal version, header_version
            version = live_version()
            # The header's version includes the hour (failed work ages out):
            # a run across an hour's turn must not compare against the old one.
            header_version = header_state(viewer=viewer).version

        medians = requests_per_second(kinds, rounds=args.rounds, requests=args.requests, before_round=before_round)

    ratio = round(medians["header poll, unchanged (204)"] / medians["trivial view"], 2)
    figures = {
        "rounds": args.rounds,
        "requests_per_round": args.requests,
        "inbox_items": state.count,
        "requests_per_second": medians,
        "bytes_per_answer": {name: size for name, (_, size) in answers.items()},
        "ratio_unchanged_header_poll_to_trivial_view": ratio,
        "queries_per_unchanged_header_poll": poll_queries,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(
            f"Inbox header poll bench: {state.count} items, {args.rounds} rounds x {args.requests} requests, turn about"
        )
        for name, rate in medians.items():
            print(f"  {name:<30} {rate:>7} requests/s   {figures['bytes_per_answer'][name]:>6} bytes per answer")
        print(f"  ratio unchanged header poll / trivial view: {ratio}")
        print(
            f"  queries per unchanged header poll: {poll_queries} (session, user, the core's stamp, the builder's questions)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
