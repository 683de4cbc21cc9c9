"""Fair use bench: how much a hostile client slows a person's pages, with
the fair-use limits off (the console before them) and on (the defaults).

    .venv/bin/python bench/fair_use.py [--seconds 20] [--json]

A real server as `make run` and the image run it (gunicorn, gunicorn.conf.py:
2 processes of 8 threads), over PostgreSQL (a throwaway database) and Redis
(the shared cache the counters live in): BENCH_DATABASE_URL, else
DATABASE_URL when it is PostgreSQL, else postgres://postgres@127.0.0.1:5432;
BENCH_REDIS_URL (default redis://127.0.0.1:6379/14, flushed). Skipped, saying
why, without them.

For each server (limits off, then on), in one run, phase after phase of
`--seconds` each, a person opens a console page (the key settings page:
the whole frame, its queries) every half second, and the figure is that
page's time:

- quiet: nobody else;
- scanner: 32 threads asking for pages as fast as they are answered, as a
  scanner does, with one logged-in session (pages and guessed addresses),
  never waiting when told to;
- login burst: 50 people logging in within 10 s (the real password hasher),
  each trying again after Retry-After when the console asks.

It prints p50 and p95 of the person's page in each phase and their ratio to
the quiet phase of the same server, what the scanner got (answered pages,
refusals) and how long the logins took. Hostile clients run on the same
machine as the server (they take some of its CPU too), so the ratios are
an upper bound of what a scanner elsewhere would do.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


import httpx

from bench.poll_lag import bench_database_url, drop_database, missing_services, recreate_database

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
PASSWORD = "bench-password-not-secret"
BURST_PEOPLE = 50
BURST_SECONDS = 10.0
SCANNER_THREADS = 32
PERSON_EVERY = 0.5
# A person asked to wait tries again after Retry-After, for up to this long.
LOGIN_GIVES_UP_SECONDS = 600
PAGE = "/settings/keys/"
# What a scanner asks for: real pages and guesses.
SCANNED = ["/settings/keys/", "/inbox/", "/people/", "/audit/", "/.env", "/wp-login.php", "/admin/", "/account/"]
OFF = {"FAIR_USE_ENABLED": "false", "LOGIN_HASHES_AT_ONCE": "64", "LOGIN_HASH_QUEUE": "64"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def setup(env: dict[str, str]) -> None:
    """Migrations and the people: the person, the scanner's account, 50 who log in."""
    os.environ.update(env)
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    hashed = make_password(PASSWORD)  # the real hasher, once: every account has the same password
    User = get_user_model()
    names = ["person", "scanner", *(f"burst{i}" for i in range(BURST_PEOPLE))]
    User.objects.bulk_create([User(username=name, password=hashed) for name in names])
    from django.db import connections

    connections.close_all()


def flush_counters(redis_url: str) -> None:
    import redis

    redis.Redis.from_url(redis_url).flushdb()


class Server:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py"],
            cwd=ROOT,
            env={**env, "WEB_PORT": str(self.port), "WEB_HOST": "127.0.0.1"},
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/livez", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.3)
        raise RuntimeError(f"the server did not start: see {log}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def log_in(base_url: str, username: str, *, retry: bool = True) -> tuple[httpx.Client, float, int]:
    """A browser logging in (the page, then the password), trying again after
    Retry-After when asked; the client, the seconds it took, the tries."""
    browser = httpx.Client(base_url=base_url, timeout=120)
    started = time.perf_counter()
    tries = 0
    while True:
        tries += 1
        page = browser.get("/accounts/login/")
        token = CSRF.search(page.text)
        if page.status_code == 429 or token is None:
            time.sleep(float(page.headers.get("Retry-After", "1")))
            continue
        answer = browser.post(
            "/accounts/login/",
            data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1)},
            headers={"Referer": base_url + "/accounts/login/"},
        )
        if answer.status_code == 302:
            return browser, time.perf_counter() - started, tries
        if answer.status_code == 429 and retry and time.perf_counter() - started < LOGIN_GIVES_UP_SECONDS:
            time.sleep(float(answer.headers.get("Retry-After", "1")))
            continue
        raise RuntimeError(f"{username} could not log in: {answer.status_code}")


def person_pages(browser: httpx.Client, stop: threading.Event) -> list[float]:
    """The person: a page every PERSON_EVERY seconds; each page's time."""
    times: list[float] = []
    while not stop.is_set():
        started = time.perf_counter()
        response = browser.get(PAGE)
        elapsed = time.perf_counter() - started
        if response.status_code != 200:
            raise RuntimeError(f"the person's page answered {response.status_code}")
        times.append(elapsed)
        stop.wait(max(0.0, PERSON_EVERY - elapsed))
    return times


def scanner(base_url: str, cookies: httpx.Cookies, stop: threading.Event, counts: dict[str, int]) -> None:
    lock = threading.Lock()

    def one() -> None:
        with httpx.Client(base_url=base_url, cookies=cookies, timeout=120) as client:
            index = 0
            while not stop.is_set():
                status = client.get(SCANNED[index % len(SCANNED)]).status_code
                index += 1
                with lock:
                    key = "refused" if status == 429 else "answered"
                    counts[key] = counts.get(key, 0) + 1

    threads = [threading.Thread(target=one) for _ in range(SCANNER_THREADS)]
    for thread in threads:
        thread.start()
    stop.wait()
    for thread in threads:
        thread.join()


def login_burst(base_url: str, stop: threading.Event, result: dict) -> None:
    took: list[float] = []
    tries: list[int] = []
    lock = threading.Lock()

    def person(number: int) -> None:
        time.sleep(number * BURST_SECONDS / BURST_PEOPLE)
        browser, seconds, attempts = log_in(base_url, f"burst{number}")
        browser.close()
        with lock:
            took.append(seconds)
            tries.append(attempts)

    threads = [threading.Thread(target=person, args=(i,)) for i in range(BURST_PEOPLE)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result.update(
        logins=len(took),
        login_p50_s=round(statistics.median(took), 2),
        login_max_s=round(max(took), 2),
        asked_to_wait=sum(1 for t in tries if t > 1),
    )
    stop.set()


def phase(person: httpx.Client, hostile=None, *, seconds: float | None) -> tuple[list[float], dict]:
    """The person's pages for `seconds` (None: until `hostile` is over and
    sets the stop itself), with `hostile(stop, facts)` running beside."""
    stop = threading.Event()
    facts: dict = {}
    beside = threading.Thread(target=hostile, args=(stop, facts)) if hostile else None
    if beside:
        beside.start()
    timer = threading.Timer(seconds, stop.set) if seconds is not None else None
    if timer:
        timer.start()
    times = person_pages(person, stop)
    if timer:
        timer.cancel()
    if beside:
        beside.join()
    return times, facts


def measure(server: Server, *, seconds: float, redis_url: str) -> dict:
    flush_counters(redis_url)
    person, _, _ = log_in(server.url, "person")
    scanning, _, _ = log_in(server.url, "scanner")
    for _ in range(3):  # warm: imports, templates, connections
        person.get(PAGE)

    def scan(stop: threading.Event, facts: dict) -> None:
        scanner(server.url, scanning.cookies, stop, facts)

    def burst(stop: threading.Event, facts: dict) -> None:
        login_burst(server.url, stop, facts)

    figures: dict = {}
    quiet, _ = phase(person, seconds=seconds)
    flush_counters(redis_url)
    scanned, scan_facts = phase(person, scan, seconds=seconds)
    flush_counters(redis_url)
    burst_times, burst_facts = phase(person, burst, seconds=None)
    for name, times, facts in (
        ("quiet", quiet, {}),
        ("scanner", scanned, scan_facts),
        ("login burst", burst_times, burst_facts),
    ):
        figures[name] = {
            "pages": len(times),
            "p50_ms": round(statistics.median(times) * 1000, 1),
            "p95_ms": round(percentile(times, 0.95) * 1000, 1),
            **facts,
        }
    for name in ("scanner", "login burst"):
        figures[name]["ratio_p50"] = round(figures[name]["p50_ms"] / figures["quiet"]["p50_ms"], 2)
        figures[name]["ratio_p95"] = round(figures[name]["p95_ms"] / figures["quiet"]["p95_ms"], 2)
    person.close()
    scanning.close()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of each phase (default 20)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    database_url = bench_database_url("fair_bench")
    redis_url = os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL)
    why_not = missing_services(database_url, redis_url)
    if why_not:
        print(f"Fair use bench skipped: it needs PostgreSQL and Redis, {why_not}.")
        return 0

    from cryptography.fernet import Fernet

    env = {key: value for key, value in os.environ.items() if not key.startswith(("FAIR_USE", "LOGIN_HASH"))}
    env.update(
        DJANGO_SETTINGS_MODULE="dashboard.settings",
        CONSOLE_ENV="development",
        DJANGO_DEBUG="false",
        DATABASE_URL=database_url,
        CACHE_URL=redis_url,
        CELERY_BROKER_URL=redis_url,
        SECRET_KEY="fair-use-bench-" + Fernet.generate_key().decode(),
        KEY_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        LOG_LEVEL="WARNING",
        WEB_CONCURRENCY="2",
        WEB_THREADS="8",
    )
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    recreate_database(database_url)
    results: dict[str, dict] = {}
    try:
        setup(env)
        with tempfile.TemporaryDirectory(prefix="console-fair-bench-") as tmp:
            for name, extra in (("limits off", OFF), ("limits on", {})):
                server = Server({**env, **extra}, Path(tmp) / f"{name.replace(' ', '-')}.log")
                try:
                    results[name] = measure(server, seconds=args.seconds, redis_url=redis_url)
                finally:
                    server.stop()
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(database_url)
        flush_counters(redis_url)

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"A person's page ({PAGE}, every {PERSON_EVERY} s) beside a scanner ({SCANNER_THREADS} threads) "
        f"and a login burst ({BURST_PEOPLE} people in {BURST_SECONDS:g} s); gunicorn 2 x 8 threads:"
    )
    for name, figures in results.items():
        print(f"  {name}:")
        for phase_name, values in figures.items():
            line = f"    {phase_name:<12} p50 {values['p50_ms']:>7} ms  p95 {values['p95_ms']:>7} ms"
            if "ratio_p50" in values:
                line += f"  x{values['ratio_p50']} (p50), x{values['ratio_p95']} (p95) of quiet"
            if "answered" in values or "refused" in values:
                line += f"; scanner answered {values.get('answered', 0)}, refused {values.get('refused', 0)}"
            if "logins" in values:
                line += (
                    f"; {values['logins']} logins, p50 {values['login_p50_s']} s, slowest {values['login_max_s']} s,"
                    f" {values['asked_to_wait']} asked to wait"
                )
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
