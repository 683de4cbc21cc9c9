"""schemathesis over the sandbox with its own checks: every operation of the
OpenAPI document, positive and negative data (examples, coverage and fuzzing
phases), every check schemathesis has (server errors, status codes, content
types, response schemas and headers, schema-valid requests accepted and
schema-violating ones refused, auth, methods...), so the stand-in and its
document cannot drift apart.

Bounded: a fixed seed and 5 generated examples per operation
(tests/sandbox/schemathesis.toml, where every allowance says why).
It runs `schemathesis run` (the engine CI users know, its report on failure)
against a sandbox of its own, because generated writes change the demo data.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.core import load_route_modules
from sandbox.openapi import build_document
from sandbox.testing import start_sandbox

load_route_modules()

CONFIG = Path(__file__).with_name("schemathesis.toml")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fuzzed_sandbox():
    # A small time scale: waiting calls (turns, agent builds) sleep for scaled
    # durations, and only the answers' shapes matter here.
    handle = start_sandbox(time_scale=0.0002)
    try:
        yield handle
    finally:
        handle.stop()


@pytest.mark.schemathesis
def test_every_operation_keeps_its_document(fuzzed_sandbox, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "--config-file",
            str(CONFIG),
            "run",
            f"{fuzzed_sandbox.base_url}/v1/openapi.json",
            "--header",
            f"Authorization: Bearer {fuzzed_sandbox.demo_key}",
            "--no-color",
        ],
        cwd=tmp_path,  # its cache and reports stay out of the work tree
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report[-20000:]
    # Every operation was selected and tested (none skipped for a schema it could not read).
    counted = re.search(r"Operations:\s+(\d+) selected / (\d+) total", report)
    assert counted and counted.group(1) == counted.group(2), report[-3000:]
    assert int(counted.group(1)) >= len(build_document()["paths"]) and f"Tested: {counted.group(1)}\n" in report
