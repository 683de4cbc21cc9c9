"""Serving an ASGI application (the MCP SDK's Streamable HTTP server) from the
sandbox's WSGI server: one event loop in a daemon thread runs the ASGI app;
each WSGI request is one ASGI `http` exchange on that loop.

The answer is streamed as the app sends it (wsgiref writes and flushes each
chunk an iterator yields), so server-sent events reach the client as they
happen. A client that goes away closes the WSGI iterator: the app then
receives `http.disconnect` and its request task is cancelled.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any
from wsgiref.util import is_hop_by_hop

ASGIApp = Callable[[dict, Callable[[], Awaitable[dict]], Callable[[dict], Awaitable[None]]], Awaitable[None]]
_DONE = object()


class LoopThread:
    """An asyncio loop in a daemon thread; `start(main)` runs `main()` on it for
    the loop's whole life (the SDK's session manager needs a lasting task group)."""

    def __init__(self, name: str):
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coro) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def submit(self, coro) -> asyncio.Future:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)


def scope_from(environ: dict) -> dict:
    headers = [(b"content-type", environ["CONTENT_TYPE"].encode("latin-1"))] if environ.get("CONTENT_TYPE") else []
    if environ.get("CONTENT_LENGTH"):
        headers.append((b"content-length", environ["CONTENT_LENGTH"].encode("latin-1")))
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            headers.append((key[5:].replace("_", "-").lower().encode("latin-1"), value.encode("latin-1")))
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": environ["REQUEST_METHOD"].upper(),
        "scheme": environ.get("wsgi.url_scheme", "http"),
        "path": environ.get("PATH_INFO", "") or "/",
        "raw_path": (environ.get("PATH_INFO", "") or "/").encode("latin-1"),
        "root_path": "",
        "query_string": environ.get("QUERY_STRING", "").encode("latin-1"),
        "headers": headers,
        "server": (environ.get("SERVER_NAME", "127.0.0.1"), int(environ.get("SERVER_PORT") or 0)),
        "client": (environ.get("REMOTE_ADDR", "127.0.0.1"), 0),
    }


def serve_asgi(loop: LoopThread, app: ASGIApp, environ: dict, start_response, body: bytes) -> Iterator[bytes]:
    """Run one exchange of `app` for this WSGI request; yields the answer's body chunks."""
    outbox: queue.Queue = queue.Queue()
    disconnected = asyncio.Event()
    sent_body = False

    async def receive() -> dict:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        await disconnected.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        outbox.put(message)

    async def exchange() -> None:
        try:
            await app(scope_from(environ), receive, send)
        finally:
            outbox.put(_DONE)

    task = loop.submit(exchange())
    message = outbox.get()
    if message is _DONE or message["type"] != "http.response.start":
        start_response("500 Internal Server Error", [("Content-Type", "text/plain")])
        return iter([b"The MCP server answered nothing."])
    # WSGI servers own the connection: hop-by-hop headers (sse-starlette's `Connection`) are theirs.
    headers = [
        (k.decode("latin-1"), v.decode("latin-1"))
        for k, v in message.get("headers", [])
        if not is_hop_by_hop(k.decode("latin-1"))
    ]
    start_response(f"{message['status']} {_reason(message['status'])}", headers)

    def chunks() -> Iterator[bytes]:
        ended = False
        try:
            while True:
                item = outbox.get()
                if item is _DONE:
                    ended = True
                    return
                if item["type"] == "http.response.body":
                    if item.get("body"):
                        yield item["body"]
                    if not item.get("more_body"):
                        ended = True
                        return
        finally:
            loop.loop.call_soon_threadsafe(disconnected.set)
            if not ended:  # the client went away mid-answer: cancel the exchange
                loop.loop.call_soon_threadsafe(task.cancel)

    return chunks()


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
