"""Status poll bench: what a browser's 2-second poll of a live operation
costs when nothing changed, next to a trivial view.

    .venv/bin/python bench/status_poll.py [--rounds 15] [--requests 200] [--json]

One process, a throwaway SQLite database, no sandbox (a poll never calls the
remote service). A logged-in user has a tracked Studio turn that is not
final. The benchmark calls the console's WSGI application directly (no test
client around it), with the session cookie, `HX-Request` and
`Accept-Encoding: gzip` as a browser sends them, and counts requests per
second, in rounds taken turn about, for:

- the trivial view (bench/urls.py): a view doing nothing, under the same
  middleware (session, user, login required, CSP...);
- the status poll carrying the version the page shows (unchanged: 204);
- the status poll without a version, which renders the region every time
  (what every poll did before polls carried their version);
- a static file served by WhiteNoise (css/live.css, collected as `make run`
  collects it: hashed, gzipped).

It reports the median requests per second of each, the ratio unchanged poll
/ trivial view (the goal: at least 0.7), the bytes each answer sends (status
line, headers and body) and the database queries of one unchanged poll.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import collected_static, django_in, requests_per_second, throwaway, watched_turn


def wsgi_get(app, path: str, *, query: str = "", cookie: str = "", **headers: str) -> tuple[int, int]:
    """One GET through the WSGI application: (status, bytes on the wire)."""
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "testserver",
        "HTTP_COOKIE": cookie,
        "HTTP_ACCEPT_ENCODING": "gzip, deflate, br",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http",
        "wsgi.version": (1, 0),
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        **{f"HTTP_{name.upper()}": value for name, value in headers.items()},
    }
    answer: dict = {}

    def start_response(status: str, response_headers: list[tuple[str, str]], exc_info=None):
        answer["status"] = status
        answer["headers"] = response_headers

    body = app(environ, start_response)
    try:
        size = sum(len(chunk) for chunk in body)
    finally:
        if hasattr(body, "close"):
            body.close()
    head = len(f"HTTP/1.1 {answer['status']}\r\n") + sum(len(k) + len(v) + 4 for k, v in answer["headers"]) + 2
    return int(answer["status"].split()[0]), head + size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15, help="rounds of each kind, turn about (default 15)")
    parser.add_argument("--requests", type=int, default=200, help="requests per round (default 200)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    with throwaway() as tmp, django_in(tmp), collected_static(tmp):
        from django.core.handlers.wsgi import WSGIHandler
        from django.db import connection
        from django.templatetags.static import static
        from django.test.utils import CaptureQueriesContext

        turn = watched_turn()
        cookie, status_path, shown_version = turn.cookie, turn.status_path, turn.shown_version
        app = WSGIHandler()
        css_path = static("css/live.css")

        version = shown_version()
        kinds = {
            "trivial view": lambda: wsgi_get(app, "/bench/trivial", cookie=cookie),
            "poll, unchanged (204)": lambda: wsgi_get(
                app, status_path, query=f"v={version}", cookie=cookie, hx_request="true"
            ),
            "poll, rendered (before)": lambda: wsgi_get(app, status_path, cookie=cookie, hx_request="true"),
            "static file": lambda: wsgi_get(app, css_path),
        }
        answers = {name: call() for name, call in kinds.items()}
        assert answers["trivial view"][0] == 200, answers
        assert answers["poll, unchanged (204)"][0] == 204, answers
        assert answers["poll, rendered (before)"][0] == 200, answers
        assert answers["static file"][0] == 200, answers
        with CaptureQueriesContext(connection) as queries:
            kinds["poll, unchanged (204)"]()
        poll_queries = len(queries)

        def before_round() -> None:
            nonlocal version
            version = shown_version()

        medians = requests_per_second(kinds, rounds=args.rounds, requests=args.requests, before_round=before_round)

    ratio = round(medians["poll, unchanged (204)"] / medians["trivial view"], 2)
    figures = {
        "rounds": args.rounds,
        "requests_per_round": args.requests,
        "requests_per_second": medians,
        "bytes_per_answer": {name: size for name, (_, size) in answers.items()},
        "ratio_unchanged_poll_to_trivial_view": ratio,
        "ratio_rendered_poll_to_trivial_view": round(medians["poll, rendered (before)"] / medians["trivial view"], 2),
        "queries_per_unchanged_poll": poll_queries,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"Status poll bench: {args.rounds} rounds x {args.requests} requests each, turn about")
        for name, rate in medians.items():
            print(f"  {name:<26} {rate:>7} requests/s   {figures['bytes_per_answer'][name]:>6} bytes per answer")
        print(f"  ratio unchanged poll / trivial view: {ratio}   (goal >= 0.7)")
        print(f"  ratio rendered poll / trivial view:  {figures['ratio_rendered_poll_to_trivial_view']}")
        print(f"  queries per unchanged poll: {poll_queries} (session, user, the row's version)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
