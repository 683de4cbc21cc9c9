"""A real HTTP endpoint on 127.0.0.1 for tests of what the console POSTs out
(notifications' chat webhooks, outbound events): it keeps each call (its
headers with lower-case names and the exact body bytes, what a receiver
verifies a signature over) and each JSON body, and answers the next of
`answers` (a status, or NO_ANSWER: the call is held, without sleeping, until
the test ends, far past any timeout of the console), then `status`."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import NamedTuple

NO_ANSWER = "no answer"


class Call(NamedTuple):
    headers: dict[str, str]
    body: bytes


class HttpReceiver:
    def __init__(self, path: str = "/hooks/console") -> None:
        self.calls: list[Call] = []
        self.bodies: list[dict] = []
        self.answers: list[int | str] = []
        self.status = 200
        self.release = threading.Event()
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                received.calls.append(Call({name.lower(): value for name, value in self.headers.items()}, raw))
                received.bodies.append(json.loads(raw or b"{}"))
                answer = received.answers.pop(0) if received.answers else received.status
                if answer == NO_ANSWER:
                    received.release.wait(30)
                    answer = 200
                try:
                    self.send_response(int(answer))
                    self.end_headers()
                except OSError:
                    pass  # the console hung up (its timeout)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{path}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
