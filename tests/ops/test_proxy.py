"""The bundled proxy (deploy/caddy/Caddyfile) really fails over: Caddy runs
the file's own reverse_proxy policy in front of two web stand-ins, and a web
that stops (a restart) costs no request. Docker's DNS, which names every
`web` replica in compose, is not here: the test lists the two upstreams
itself, everything else as written."""

from __future__ import annotations

import http.server
import re
import shutil
import subprocess
import threading

import httpx
import pytest

from tests.helpers import PROJECT_DIR, missing_service
from tests.ops.support import closed_port
from tests.workers import wait_for

CADDYFILE = PROJECT_DIR / "deploy" / "caddy" / "Caddyfile"


class Web(http.server.ThreadingHTTPServer):
    """A web stand-in answering every request with its own name."""

    daemon_threads = True

    def __init__(self, name: str) -> None:
        self.name = name
        self.hosts: list[str] = []
        super().__init__(("127.0.0.1", 0), Answer)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()  # the port refuses connections from now on, as a stopping gunicorn's


class Answer(http.server.BaseHTTPRequestHandler):
    def answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.hosts.append(self.headers["Host"])  # type: ignore[attr-defined]
        body = self.server.name.encode()  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = answer

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def proxied(tmp_path):
    binary = shutil.which("caddy")
    if binary is None:
        missing_service("caddy not installed (apt-get install caddy)")
    webs = [Web("first"), Web("second")]
    listen, health = closed_port(), closed_port()
    text = CADDYFILE.read_text()
    upstreams = " ".join(f"127.0.0.1:{web.server_address[1]}" for web in webs)
    text, replaced = re.subn(r"dynamic a \{.*?\n\t\t\}", f"to {upstreams}", text, flags=re.DOTALL)
    assert replaced == 1
    text = text.replace(":8080 {", f":{listen} {{").replace(":8081 {", f":{health} {{")
    config = tmp_path / "Caddyfile"
    config.write_text(text)
    caddy = subprocess.Popen(
        [binary, "run", "--adapter", "caddyfile", "--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)},
    )

    def up() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{health}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        assert wait_for(up, limit_seconds=30), "caddy did not start"
        yield f"http://127.0.0.1:{listen}", webs
    finally:
        caddy.terminate()
        caddy.wait(timeout=10)
        for web in webs:
            if web.socket.fileno() != -1:
                web.stop()


def test_requests_are_spread_over_the_webs_and_a_stopped_one_costs_none(proxied):
    url, (first, second) = proxied
    with httpx.Client(base_url=url, timeout=20, headers={"Host": "localhost:8000"}) as client:
        answered = [client.get("/").text for _ in range(10)]
        assert set(answered) == {"first", "second"}

        first.stop()  # a restart: its port refuses connections

        after = [client.get("/") for _ in range(10)]
        written = client.post("/records/new", content=b"name=x")

    assert [(response.status_code, response.text) for response in after] == [(200, "second")] * 10
    # A write whose connection was refused was never sent: tried on the other web, once.
    assert (written.status_code, written.text) == (200, "second")
    assert len(second.hosts) == answered.count("second") + 10 + 1
    # The Host as the browser sent it, port included (ALLOWED_HOSTS, the CSRF origin check).
    assert set(first.hosts + second.hosts) == {"localhost:8000"}
