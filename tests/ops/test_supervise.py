"""`make run` stays up: devtools/supervise.py restarts a process that dies,
with backoff, and leaves the others alone; Ctrl-C stops them all.

The second test is `make run` itself, on free ports and a data folder of its
own: it logs in, then kills the worker, beat, the sandbox and the web in turn
(SIGKILL, as a crash would) and checks that the console keeps answering and
that the killed process comes back."""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from devtools.embedded_broker import embedded_broker_url
from tests.helpers import PROJECT_DIR
from tests.html import one, text_of

STARTED = re.compile(r"\| (\S+) started \(pid (\d+)\)")
PASSWORD_LINE = re.compile(r"user demo, password (\S+)")


class SupervisorRun:
    """A running supervisor and every line it printed so far."""

    def __init__(self, args: list[str], *, env: dict[str, str], cwd: Path) -> None:
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "devtools.supervise", *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def output(self) -> str:
        return "\n".join(self.lines)

    def pids(self, name: str) -> list[int]:
        """Every pid `name` was started with, oldest first."""
        return [int(m.group(2)) for line in self.lines if (m := STARTED.search(line)) and m.group(1) == name]

    def wait_for(self, condition: Callable[[], object], *, what: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                pytest.fail(f"waited {timeout:g} s for {what}; supervisor output:\n{self.output()[-4000:]}")
            time.sleep(0.2)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # what Ctrl-C sends
        code = self.process.wait(timeout=30)
        self.reader.join(timeout=5)
        return code


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (dead, not yet reaped by the supervisor) is not alive.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_dying_process_is_restarted_with_backoff_and_the_others_keep_running(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text(
        "# a process that stays, and one that dies at once every time\n"
        f"steady: {sys.executable} -c \"import time; print('steady up', flush=True); time.sleep(600)\"\n"
        f"flaky: {sys.executable} -c \"import sys; print('flaky up', flush=True); sys.exit(3)\"\n"
    )
    run = SupervisorRun(
        ["--procfile", str(procfile), "--env-file", str(tmp_path / "none.env")], env=dict(os.environ), cwd=tmp_path
    )
    try:
        # Starts 1 s and 2 s after the first two deaths: the third start is ~3 s in.
        run.wait_for(lambda: len(run.pids("flaky")) >= 3, what="flaky to be restarted twice", timeout=20)
        steady = run.pids("steady")
        assert len(steady) == 1 and alive(steady[0])
    finally:
        code = run.stop()

    output = run.output()
    assert "flaky exited with code 3; restarting it in 1 s (the others keep running)" in output
    assert "flaky exited with code 3; restarting it in 2 s (the others keep running)" in output
    assert re.search(r"^\d\d:\d\d:\d\d steady\s+\| steady up$", output, flags=re.MULTILINE)
    assert re.search(r"^\d\d:\d\d:\d\d flaky\s+\| flaky up$", output, flags=re.MULTILINE)
    assert code == 0
    assert output.splitlines()[-1].endswith("all stopped")
    assert not alive(steady[0])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux only")
def test_a_killed_supervisor_leaves_no_process_behind(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text(f"steady: {sys.executable} -c \"import time; print('up', flush=True); time.sleep(600)\"\n")
    run = SupervisorRun(
        ["--procfile", str(procfile), "--env-file", str(tmp_path / "none.env")], env=dict(os.environ), cwd=tmp_path
    )
    run.wait_for(lambda: "up" in run.output(), what="the process to start", timeout=20)
    (steady,) = run.pids("steady")

    run.process.kill()  # SIGKILL: no chance to stop anything in order
    run.process.wait(timeout=10)

    deadline = time.monotonic() + 10
    while alive(steady) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(steady)


# ---- make run, process by process -----------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def make_run(tmp_path) -> Iterator[dict]:
    """`make run` (bootstrap, then the supervisor over the Procfile) on free
    ports, with every piece of local data in tmp_path instead of var/."""
    web_port, sandbox_port = free_port(), free_port()
    # Not CELERY_* of this process: a worker started in-process by another test
    # leaves e.g. CELERY_LOG_LEVEL=40 behind, which the Procfile would pass on.
    env = {
        **{name: value for name, value in os.environ.items() if not name.startswith("CELERY_")},
        "CELERY_LOG_LEVEL": "WARNING",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "CONSOLE_ENV": "development",
        "WEB_PORT": str(web_port),
        "SANDBOX_PORT": str(sandbox_port),
        # The embedded defaults of a fresh machine, in a folder of this test's own
        # (CI's PostgreSQL, Redis and `make test`'s locmem cache are not make run's).
        "DATABASE_URL": f"sqlite:///{tmp_path / 'console.sqlite3'}",
        "CELERY_BROKER_URL": embedded_broker_url(tmp_path) or f"sqlite:///{tmp_path / 'broker.sqlite3'}",
        "CACHE_URL": f"filecache://{tmp_path / 'cache'}",
        "SANDBOX_DB": str(tmp_path / "sandbox.sqlite3"),
        "CELERY_BEAT_SCHEDULE": str(tmp_path / "celerybeat-schedule"),
        "WEB_CONCURRENCY": "1",
        "WEB_THREADS": "4",
    }
    for name in ("SERVICE_BASE_URL", "SERVICE_APP_URL", "DJANGO_DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"):
        env.pop(name, None)
    setup = subprocess.run(
        [sys.executable, "manage.py", "bootstrap", "--check-ports"],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert setup.returncode == 0, setup.stdout + setup.stderr
    password = PASSWORD_LINE.search(setup.stdout).group(1)

    run = SupervisorRun(["--procfile", "Procfile"], env=env, cwd=PROJECT_DIR)
    base = f"http://127.0.0.1:{web_port}"
    try:
        run.wait_for(lambda: answers(f"{base}/healthz"), what="the web to answer /healthz", timeout=90)
        yield {"run": run, "base": base, "password": password, "broker": env["CELERY_BROKER_URL"]}
    finally:
        code = run.stop()
    assert code == 0
    assert not [name for name in PROCESSES if any(alive(pid) for pid in run.pids(name))]


# Every process of the Procfile.
PROCESSES = ("broker", "sandbox", "worker", "streams", "beat", "web")


def answers(url: str, client: httpx.Client | None = None) -> bool:
    try:
        response = (client or httpx).get(url, timeout=5)
    except httpx.HTTPError:
        return False
    return response.status_code == 200


def log_in(base: str, password: str) -> httpx.Client:
    client = httpx.Client(base_url=base, timeout=10, follow_redirects=True)
    form = client.get("/accounts/login/")
    token = one(form.content, "input[name=csrfmiddlewaretoken]")["value"]
    home = client.post(
        "/accounts/login/", data={"username": "demo", "password": password, "csrfmiddlewaretoken": token}
    )
    assert home.status_code == 200 and home.url.path == "/"
    return client


def queued_messages(broker_url: str) -> int:
    if broker_url.startswith("redis+socket://"):
        import redis

        try:
            return int(redis.Redis(unix_socket_path=broker_url.removeprefix("redis+socket://")).llen("celery"))
        except redis.RedisError:  # restarting
            return 1_000
    with sqlite3.connect(broker_url.removeprefix("sqlite:///"), timeout=10) as db:
        return db.execute("SELECT count(*) FROM kombu_message").fetchone()[0]


def test_make_run_keeps_the_console_up_while_each_process_is_killed_and_restarted(make_run):
    run, base = make_run["run"], make_run["base"]
    client = log_in(base, make_run["password"])
    # The account page reads the sandbox (GET /v1/me): the whole chain works.
    account = client.get("/account/")
    assert account.status_code == 200
    assert "Sandbox" in text_of(one(account.content, "main"))

    for name in ("broker", "worker", "streams", "beat", "sandbox", "web"):
        old = run.pids(name)[-1]
        assert alive(old), f"{name} is not running:\n{run.output()[-3000:]}"
        os.kill(old, signal.SIGKILL)
        run.wait_for(lambda old=old: not alive(old), what=f"{name} to die")
        if name not in ("web", "broker"):
            # The page the person has open still works while the process is down.
            page = client.get("/")
            assert page.status_code == 200, name
            assert one(page.content, ".header-user").get_text(strip=True) == "demo"
        run.wait_for(lambda name=name, old=old: run.pids(name)[-1] != old, what=f"{name} to be restarted")
        new = run.pids(name)[-1]
        if name == "sandbox":
            # While the sandbox was down, the account page said so (no traceback, no crash).
            run.wait_for(lambda: client.get("/account/").status_code == 200, what="the sandbox to answer again")
        if name == "web":
            run.wait_for(lambda: answers("/healthz", client), what="the web to answer again")
            # The session lives in the database: still logged in.
            assert client.get("/").url.path == "/"
        assert alive(new), f"{name} died again:\n{run.output()[-3000:]}"
        assert f"{name} was killed by signal 9; restarting it in 1 s" in run.output()

    # Beat still ticks and the worker still takes what it sends: the queue drains
    # down to the tick or two in flight (beat sends one every 0.5 s).
    run.wait_for(lambda: queued_messages(make_run["broker"]) <= 2, what="the worker to drain the broker", timeout=30)
    # Nothing else was restarted along the way (no crash loop after a restart):
    # one start each, plus the one kill, and every process still up.
    assert {name: len(run.pids(name)) for name in PROCESSES} == dict.fromkeys(PROCESSES, 2)
    assert all(alive(run.pids(name)[-1]) for name in PROCESSES), run.output()[-3000:]


def test_make_run_points_links_at_the_port_the_console_runs_on(tmp_path):
    from devtools.supervise import with_console_base_url

    assert with_console_base_url({"WEB_PORT": "8042"})["CONSOLE_BASE_URL"] == "http://localhost:8042"
    assert with_console_base_url({})["CONSOLE_BASE_URL"] == "http://localhost:8000"
    mine = {"WEB_PORT": "8042", "CONSOLE_BASE_URL": "https://console.example.com"}
    assert with_console_base_url(mine)["CONSOLE_BASE_URL"] == "https://console.example.com"
    # The processes `make run` starts see it: a Procfile process prints its environment's.
    procfile = tmp_path / "Procfile"
    procfile.write_text(
        f"web: {sys.executable} -c \"import os, time; print(os.environ['CONSOLE_BASE_URL'], flush=True); time.sleep(600)\"\n"
    )
    env = {name: value for name, value in os.environ.items() if name != "CONSOLE_BASE_URL"} | {"WEB_PORT": "8042"}
    run = SupervisorRun(["--procfile", str(procfile), "--env-file", str(tmp_path / "none.env")], env=env, cwd=tmp_path)
    try:
        run.wait_for(lambda: "http://localhost:8042" in run.output(), what="the web process's address", timeout=20)
    finally:
        run.stop()


# ---- "ready" only when the first page answers ------------------------------

# A web process that listens at once but answers 503 (as gunicorn does while
# its workers load the console... or a slow first request) until the test
# creates `open`; it notes each answer in `answers` before sending it.
FAKE_WEB = """
import http.server, pathlib, sys
here = pathlib.Path(sys.argv[1])

class Late(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        status = 200 if (here / "open").exists() else 503
        with open(here / "answers", "a") as answers:
            answers.write(f"{self.path} {status}\\n")
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass

print("listening", flush=True)
http.server.HTTPServer(("127.0.0.1", int(sys.argv[2])), Late).serve_forever()
"""


def test_ready_is_said_only_once_the_login_page_answers(tmp_path):
    port = free_port()
    (tmp_path / "fake_web.py").write_text(FAKE_WEB)
    procfile = tmp_path / "Procfile"
    procfile.write_text(f"web: {sys.executable} fake_web.py {tmp_path} {port}\n")
    answers = tmp_path / "answers"
    env = {**os.environ, "WEB_PORT": str(port), "WEB_READY_HINT": "Log in as demo."}
    env.pop("WEB_HOST", None)
    run = SupervisorRun(
        ["--procfile", str(procfile), "--env-file", str(tmp_path / "none.env"), "--ready-path", "/accounts/login/"],
        env=env,
        cwd=tmp_path,
    )
    try:
        run.wait_for(lambda: "listening" in run.output(), what="the fake web to listen", timeout=20)
        # It is asked, and answers 503 a few times: nothing is said to be ready.
        run.wait_for(
            lambda: answers.exists() and answers.read_text().count("/accounts/login/ 503") >= 3,
            what="three answers of 503",
            timeout=20,
        )
        assert "ready" not in run.output()
        (tmp_path / "open").touch()
        run.wait_for(lambda: "Workspace Console is ready" in run.output(), what="the ready line", timeout=20)
        # It was said after (because of) an answer of 200 to the login page.
        assert "/accounts/login/ 200" in answers.read_text()
    finally:
        code = run.stop()
    assert code == 0
    lines = [line.split("| ", 1)[1] for line in run.lines if "| " in line and " supervise " in line]
    ready = [line for line in lines if "ready" in line]
    assert len(ready) == 1
    assert ready[0].startswith(f"Workspace Console is ready at http://127.0.0.1:{port} (/accounts/login/ answered ")
    # The hint comes right after it, once.
    assert lines[lines.index(ready[0]) + 1] == "Log in as demo."
    assert lines.count("Log in as demo.") == 1


def test_the_web_process_announces_listening_not_ready():
    """gunicorn's own line no longer claims readiness (its workers are still loading)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gunicorn_conf", PROJECT_DIR / "gunicorn.conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    said = []

    class Log:
        def info(self, text, *args):
            said.append(text % args)

    class Server:
        log = Log()

    module.when_ready(Server())
    assert len(said) == 1 and said[0].startswith("Listening at http://") and "ready" not in said[0]
