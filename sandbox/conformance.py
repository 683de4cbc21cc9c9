"""The MCP conformance suite (npm `@modelcontextprotocol/conformance`) against a
sandbox on loopback: `python -m sandbox.conformance [--scenario NAME ...]`.

Not part of `make test`: it needs `npx` to fetch the suite from the npm
registry (the suite's 0.1.10 runs on Node 20; later ones need Node 22). The
suite sends no `Authorization` header, so a loopback proxy adds the demo key
in front of `/v1/mcp` (the server itself never accepts a call without a key).

Only the server scenarios that apply to this server run by default: the
handshake, ping and the tool list. The others call the suite's own test tools
(`test_simple_text`, sampling, elicitation, resources, prompts), which a
domain server does not have.
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import subprocess
import sys
import threading

import httpx

from sandbox.testing import start_sandbox

SUITE = "@modelcontextprotocol/conformance@0.1.10"
SCENARIOS = ["server-initialize", "ping", "tools-list"]
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


def keyed_proxy(target: str, key: str) -> http.server.ThreadingHTTPServer:
    """A loopback proxy to `target` that adds `Authorization: Bearer <key>`, streaming answers."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def _forward(self):
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the suite hung up, as clients may
                self._stream()

        def _stream(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            headers["Authorization"] = f"Bearer {key}"
            with httpx.stream(self.command, target + self.path, headers=headers, content=body, timeout=120) as answer:
                self.send_response(answer.status_code)
                for name, value in answer.headers.items():
                    if name.lower() not in HOP_BY_HOP:
                        self.send_header(name, value)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for chunk in answer.iter_raw():
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")

        do_GET = do_POST = do_DELETE = _forward

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)

    return Server(("127.0.0.1", 0), Handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", action="append", help=f"default: {', '.join(SCENARIOS)}")
    args = parser.parse_args(argv)
    handle = start_sandbox()
    proxy = keyed_proxy(handle.base_url, handle.demo_key)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{proxy.server_port}/v1/mcp"
    failed = 0
    try:
        for scenario in args.scenario or SCENARIOS:
            print(f"== {scenario}", flush=True)
            command = ["npx", "--yes", SUITE, "server", "--url", url, "--scenario", scenario]
            failed += subprocess.run(command).returncode != 0
    finally:
        proxy.shutdown()
        handle.stop()
    print(f"{len(args.scenario or SCENARIOS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
