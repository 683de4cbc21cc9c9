"""Work done in leased steps uses one engine (dashboard/jobs), not a copy:
no area module defines its own step loop, takes a lease, counts transient
errors or registers its own step task. Areas keep their chunk; the loop,
the lease, the error rule and the step task live once in dashboard/jobs and
dashboard/live. The scan is tried on a small bad example first."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tests.helpers import PROJECT_DIR

AREAS = ("studio", "agents", "objects")
# What an own engine is made of: its lease, its renewal, its limit of failures in a row.
LEASE_CALLS = {"lease_take", "lease_renew"}
OWN_RULE_NAMES = {"MAX_TRANSIENT_ERRORS", "LEASE_SECONDS", "STEP_TASK"}
# Old task names kept for messages sent before the upgrade: they hand over to the engine.
SHIMS = {
    "objects.job_step",
    "objects.jobs_watch",
    "objects.tally_step",
    "agents.approval_batch_step",
    "studio.zip_step",
}

BAD = """
from dashboard.live.leases import lease_take
MAX_TRANSIENT_ERRORS = 6

@app.task(name="agents.batch_step")
def batch_step(batch_id):
    token = lease_take(rows, seconds=900)
"""

GOOD = """
from dashboard.jobs import engine

@app.task(name="agents.approval_batch_step", acks_late=True)
def approval_batch_step(batch_id):
    engine.job_step("agents.approval_batch", int(batch_id))
"""


def own_engine_parts(source: str) -> Iterator[str]:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name in LEASE_CALLS:
                yield f"line {node.lineno}: takes a lease ({name})"
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in OWN_RULE_NAMES:
                    yield f"line {node.lineno}: its own {target.id}"
        elif isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                if not (isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", "") == "task"):
                    continue
                names = [k.value for k in decorator.keywords if k.arg == "name"]
                task = names[0].value if names and isinstance(names[0], ast.Constant) else ""
                if str(task).endswith(("_step", ".step")) and task not in SHIMS:
                    yield f"line {node.lineno}: its own step task {task!r}"


def test_the_scan_finds_an_own_engine_in_a_small_bad_example():
    assert sorted(own_engine_parts(BAD)) == [
        "line 3: its own MAX_TRANSIENT_ERRORS",
        "line 6: its own step task 'agents.batch_step'",
        "line 7: takes a lease (lease_take)",
    ]
    assert list(own_engine_parts(GOOD)) == []


def test_no_area_has_its_own_step_loop_lease_or_transient_error_rule():
    found = [
        f"{path.relative_to(PROJECT_DIR)} {part}"
        for area in AREAS
        for path in sorted((PROJECT_DIR / area).rglob("*.py"))
        if "migrations" not in path.parts
        for part in own_engine_parts(path.read_text())
    ]
    assert found == []
