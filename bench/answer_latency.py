"""Chat answer latency bench: from the moment the service finishes a run to
the moment the answer is visible in the page, streamed path beside the
plain-polling path.

    .venv/bin/python bench/answer_latency.py [--messages 6] [--scale 0.1] [--json]

One process, a throwaway SQLite database, a sandbox over HTTP in this
process (its runs take `RUN_SECONDS` of service time, scaled by `--scale`).
Each round sends one message by each path at the same moment, to the same
agent, and watches both as a browser does:

- streamed (the console's path, `AGENTS_STREAM_ANSWERS`): the worker task
  reads the call made with `stream: true` and writes the `result` to the
  tracked row at once; the page polls the console's `live:status` every
  `watch_seconds` of the kind (1 s);
- plain polling (the old path): the message is sent with `background: true`
  and the live poller repeats it (first after 5 s, then 5-10 s apart; a tick
  every 0.5 s as Celery beat runs it); the page polls every 2 s, as it did.

The "browser" is the console's own `live:status` view called through the
test client with the version the region shows, from a thread per message,
its first poll at a random phase. Visible = the first answer whose region
holds the agent's answer. The service's finishing moment is the run's start
(`created_at`) plus its scaled duration: the sandbox answers a waiting call
at exactly that moment.

Reported: each path's median and worst latency over the batch, and the
ratio plain / streamed of the medians (how many times sooner the streamed
answer shows). The goal: the streamed path under 1.5 s.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import PASSWORD, django_in, throwaway

PLAIN_WATCH_SECONDS = 2.0  # the browser's poll before the streamed path


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


class Poller(threading.Thread):
    """The live poller as Celery beat and a worker run it: a tick every 0.5 s
    that polls every due row (`operations_poll_due`)."""

    def __init__(self) -> None:
        super().__init__(name="bench-poller", daemon=True)
        self.halt = threading.Event()

    def run(self) -> None:
        from django.db import connection

        from dashboard.live.services import operations_poll_due

        try:
            while not self.halt.is_set():
                operations_poll_due()
                self.halt.wait(0.5)
        finally:
            connection.close()


def watch(browser, op_pk: int, every: float, deadline: float) -> datetime | None:
    """Poll `live:status` as the page does; the moment the answer shows."""
    from django.urls import reverse

    url = reverse("live:status", args=[op_pk])
    version = ""
    time.sleep(random.uniform(0, every))  # the page was opened at any moment
    while time.monotonic() < deadline:
        response = browser.get(url, {"v": version} if version else {}, HTTP_HX_REQUEST="true")
        if response.status_code in (200, 286):
            html = response.content.decode()
            if "agent-answer" in html:
                return datetime.now(UTC)
            marker = "?v="
            if marker in html:
                version = html.split(marker, 1)[1].split('"', 1)[0]
        time.sleep(every)
    return None


def one_message(*, stream: bool, key, agent_id: str, text: str, browser, service, scale: float, results: list) -> None:
    from django.db import connection

    from agents.services import invocation_start
    from dashboard.idempotency import new_idempotency_key
    from dashboard.live.models import TrackedOperation
    from sandbox.agents import RUN_SECONDS

    try:
        holder: dict = {}

        def send() -> None:
            try:
                holder["op"] = invocation_start(
                    key=key,
                    agent_id=agent_id,
                    message=text,
                    thread_id=None,
                    idempotency_key=new_idempotency_key(),
                    stream=stream,
                )
            finally:
                connection.close()

        # The web request returns at once on both paths; the streamed one's
        # task runs inline here (eager), so it gets a thread of its own, as a worker would be.
        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        deadline = time.monotonic() + 120
        while "op" not in holder and time.monotonic() < deadline:
            found = TrackedOperation.objects.filter(title=text).first()
            if found is not None:
                holder.setdefault("op", found)
                break
            time.sleep(0.01)
        op = holder["op"]
        seen = watch(browser, op.pk, 1.0 if stream else PLAIN_WATCH_SECONDS, deadline)
        sender.join(timeout=120)
        op.refresh_from_db()
        run = service.get(f"/v1/runs/{op.context.get('run_id') or op.snapshot.get('run_id')}")
        finished = _parse(run["created_at"]) + timedelta(seconds=RUN_SECONDS * scale)
        results.append({"stream": stream, "latency": (seen - finished).total_seconds() if seen else None})
    finally:
        connection.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=6, help="messages per path (default 6)")
    parser.add_argument("--scale", type=float, default=0.1, help="sandbox time scale (default 0.1: a run takes 2 s)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with throwaway() as tmp, django_in(tmp):
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.test import Client

        from dashboard.api import ServiceClient
        from dashboard.celery import app
        from dashboard.keys.testing import store_sandbox_key
        from sandbox.testing import start_sandbox

        app.conf.task_always_eager = True  # the stream task runs in the sending thread
        handle = start_sandbox(time_scale=args.scale)
        poller = Poller()
        try:
            settings.SERVICE_BASE_URL = handle.base_url
            service = ServiceClient(api_key=handle.demo_key)
            user = get_user_model().objects.create_user(username="bench", password=PASSWORD)
            key = store_sandbox_key(user, service, handle.demo_key)
            agents = service.get("/v1/agents", params={"limit": 100})["data"]
            agent_id = next(agent["id"] for agent in agents if agent["name"] == "Customer FAQ helper")
            poller.start()
            results: list[dict] = []
            for round_number in range(args.messages):
                threads = []
                for stream in (True, False):
                    browser = Client()
                    browser.force_login(user)
                    text = f"Round {round_number}: what does the Pro plan cost? ({'streamed' if stream else 'polled'})"
                    threads.append(
                        threading.Thread(
                            target=one_message,
                            kwargs={
                                "stream": stream,
                                "key": key,
                                "agent_id": agent_id,
                                "text": text,
                                "browser": browser,
                                "service": service,
                                "scale": args.scale,
                                "results": results,
                            },
                        )
                    )
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
        finally:
            poller.halt.set()
            poller.join(timeout=10)
            handle.stop()

    def figures(stream: bool) -> dict:
        seen = [r["latency"] for r in results if r["stream"] is stream and r["latency"] is not None]
        missed = sum(1 for r in results if r["stream"] is stream and r["latency"] is None)
        return {
            "median_s": round(statistics.median(seen), 2) if seen else None,
            "worst_s": round(max(seen), 2) if seen else None,
            "answered": len(seen),
            "missed": missed,
        }

    streamed, polled = figures(True), figures(False)
    ratio = round(polled["median_s"] / streamed["median_s"], 1) if streamed["median_s"] and polled["median_s"] else None
    report = {"messages_per_path": args.messages, "streamed": streamed, "plain_polling": polled, "ratio": ratio}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("Answer latency: service finished -> answer visible in the page")
        print(
            f"  streamed (worker reads the stream, page polls the console every 1 s): median {streamed['median_s']} s, worst {streamed['worst_s']} s ({streamed['answered']} answered, {streamed['missed']} missed)"
        )
        print(
            f"  plain polling (background call polled 5 s / 10 s, page every 2 s):   median {polled['median_s']} s, worst {polled['worst_s']} s ({polled['answered']} answered, {polled['missed']} missed)"
        )
        print(
            f"  the streamed answer shows {ratio}x sooner (median plain / median streamed); goal: streamed under 1.5 s"
        )
    return 0 if streamed["worst_s"] is not None and streamed["missed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
