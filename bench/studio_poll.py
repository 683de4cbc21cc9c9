"""Studio conversation poll bench: what the conversation page's 2-second poll
costs when nothing changed, next to a trivial view and the single-operation
status poll (bench/status_poll.py), measured side by side in one run.

    .venv/bin/python bench/studio_poll.py [--rounds 15] [--requests 200] [--json]

One process, a throwaway SQLite database, no sandbox: a conversation of five
turns (four final, the newest building) started by two teammates of one
workspace. Counted per kind: requests per second (median of rounds taken turn
about), database queries and remote calls of one unchanged poll (the goal:
zero remote calls, a few queries, a ratio to the trivial view near the
status poll's).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import PASSWORD, collected_static, django_in, requests_per_second, throwaway
from bench.status_poll import wsgi_get

CONVERSATION = "c0ffee00-1111-4222-8333-444455556666"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15, help="rounds of each kind, turn about (default 15)")
    parser.add_argument("--requests", type=int, default=200, help="requests per round (default 200)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    with throwaway() as tmp, django_in(tmp), collected_static(tmp):
        from django.contrib.auth import get_user_model
        from django.core.handlers.wsgi import WSGIHandler
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext
        from django.urls import reverse
        from django.utils import timezone

        from dashboard.api.testing import RemoteCallCounter
        from dashboard.keys.testing import stored_api_key
        from dashboard.live import selectors as live_selectors
        from dashboard.live.models import TrackedOperation
        from dashboard.live.services import operation_track
        from studio import selectors

        users = [get_user_model().objects.create_user(username=name, password=PASSWORD) for name in ("dana", "morgan")]
        # Never sent anywhere (a poll makes no remote call); made here so no key-shaped text is committed.
        keys = [
            stored_api_key(user=user, secret="svc_sk_" + secrets.token_hex(20), workspace_id="ws-b", key_id=f"k{n}")
            for n, user in enumerate(users)
        ]
        ops = []
        for n in range(5):
            final = n < 4
            op = operation_track(
                owner_key=keys[n % 2],
                kind="studio.turn",
                remote_id=f"turn-{n}",
                title=f"Turn {n}",
                snapshot={
                    "id": f"turn-{n}",
                    "status": "completed" if final else "building",
                    "studio": "website",
                    "conversation_id": CONVERSATION,
                    "message": "Done." if final else "",
                },
                context={"studio": "website", "conversation_id": CONVERSATION},
            )
            TrackedOperation.objects.filter(pk=op.pk).update(is_final=final, status=op.snapshot["status"])
            ops.append(op)
        latest = ops[-1]
        browser = Client()
        browser.force_login(users[0])
        cookie = f"sessionid={browser.cookies['sessionid'].value}"
        app = WSGIHandler()
        conversation_path = reverse("studio:conversation_live", args=[latest.pk])
        latest_mine = ops[-1] if ops[-1].started_by_id == users[0].pk else ops[-2]
        status_path = reverse("live:status", args=[latest_mine.pk])

        def versions() -> tuple[str, str]:
            TrackedOperation.objects.filter(is_final=False).update(last_polled_at=timezone.now())
            for op in ops:
                op.refresh_from_db()
            return (
                selectors.turns_version(ops),
                live_selectors.operation_status_version(user=users[0], operation_id=latest_mine.pk),
            )

        conversation_version, status_version = versions()
        kinds = {
            "trivial view": lambda: wsgi_get(app, "/bench/trivial", cookie=cookie),
            "conversation poll, unchanged": lambda: wsgi_get(
                app,
                conversation_path,
                query=f"ids={','.join(str(op.pk) for op in ops)}&v={conversation_version}",
                cookie=cookie,
                hx_request="true",
            ),
            "conversation poll, rendered": lambda: wsgi_get(app, conversation_path, cookie=cookie, hx_request="true"),
            "status poll, unchanged": lambda: wsgi_get(
                app, status_path, query=f"v={status_version}", cookie=cookie, hx_request="true"
            ),
        }
        answers = {name: call() for name, call in kinds.items()}
        assert answers["conversation poll, unchanged"][0] == 204, answers
        assert answers["conversation poll, rendered"][0] == 200, answers
        with CaptureQueriesContext(connection) as queries, RemoteCallCounter() as calls:
            kinds["conversation poll, unchanged"]()
        poll_queries, poll_calls = len(queries), calls.count

        def before_round() -> None:
            nonlocal conversation_version, status_version
            conversation_version, status_version = versions()

        medians = requests_per_second(kinds, rounds=args.rounds, requests=args.requests, before_round=before_round)

    figures = {
        "rounds": args.rounds,
        "requests_per_round": args.requests,
        "requests_per_second": medians,
        "ratio_conversation_poll_to_trivial_view": round(
            medians["conversation poll, unchanged"] / medians["trivial view"], 2
        ),
        "ratio_status_poll_to_trivial_view": round(medians["status poll, unchanged"] / medians["trivial view"], 2),
        "ratio_rendered_conversation_poll_to_trivial_view": round(
            medians["conversation poll, rendered"] / medians["trivial view"], 2
        ),
        "queries_per_unchanged_conversation_poll": poll_queries,
        "remote_calls_per_unchanged_conversation_poll": poll_calls,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"Studio conversation poll bench: {args.rounds} rounds x {args.requests} requests each, turn about")
        for name, rate in medians.items():
            print(f"  {name:<30} {rate:>7} requests/s")
        for name in ("conversation_poll", "status_poll", "rendered_conversation_poll"):
            print(f"  ratio {name.replace('_', ' ')} / trivial view: {figures[f'ratio_{name}_to_trivial_view']}")
        print(f"  queries per unchanged conversation poll: {poll_queries}; remote calls: {poll_calls}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
