"""One home per fact (issue 29): each rule below reads the application's
syntax trees and fails where a fact is written a second time, and tests
itself on a bad example so that a scan that stops matching can't pass by
finding nothing."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.helpers import PROJECT_DIR

# The console's own code (the sandbox stands in for the remote service).
APPLICATION = ("dashboard", "agents", "objects", "studio", "devtools")


def application_modules() -> Iterator[tuple[str, ast.Module]]:
    for folder in APPLICATION:
        for path in sorted((PROJECT_DIR / folder).rglob("*.py")):
            yield relative(path), ast.parse(path.read_text(), filename=str(path))


def relative(path: Path) -> str:
    return str(path.relative_to(PROJECT_DIR))


def found_in_application(scan: Callable[[ast.AST], Iterator[ast.AST]], *, home: str = "") -> set[str]:
    """Where `scan` finds something in the application, outside `home` (the
    one module allowed to do it): "path:line code"."""
    return {
        f"{where}:{node.lineno} {ast.unparse(node)[:80]}"
        for where, tree in application_modules()
        if where != home
        for node in scan(tree)
    }


# -- Periodic work: declared as `Periodic` by the core (dashboard/schedule.py)
# and by each area (`Area(periodic=...)`), composed in one place.
BEAT_SCHEDULE_WRITER = "dashboard/schedule.py"


def beat_schedule_writes(tree: ast.AST) -> Iterator[ast.AST]:
    """`x.beat_schedule = ...`, `x.beat_schedule[k] = ...`, `x.beat_schedule.update(...)`
    and `add_periodic_task(...)`: every way to put an entry in Celery's schedule."""
    for node in ast.walk(tree):
        stored = isinstance(getattr(node, "ctx", None), ast.Store | ast.Del)
        if stored and (is_beat_schedule(node) or (isinstance(node, ast.Subscript) and is_beat_schedule(node.value))):
            yield node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, receiver = node.func.attr, node.func.value
            if method == "add_periodic_task" or (method in SCHEDULE_EDITS and is_beat_schedule(receiver)):
                yield node


SCHEDULE_EDITS = {"update", "setdefault", "pop", "__setitem__"}


def is_beat_schedule(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "beat_schedule"


def test_only_one_module_writes_the_beat_schedule():
    assert found_in_application(beat_schedule_writes, home=BEAT_SCHEDULE_WRITER) == set(), (
        "declare periodic work as a Periodic: the core's in dashboard/schedule.py core_periodic(), "
        "an area's on its Area(periodic=...) in its apps.py"
    )


def test_the_beat_schedule_scan_finds_a_write():
    bad = ast.parse(
        "app.conf.beat_schedule = {**(app.conf.beat_schedule or {}), 'x': {}}\n"
        "app.conf.beat_schedule['y'] = {}\n"
        "app.conf.beat_schedule.update(z={})\n"
        "sender.add_periodic_task(5.0, sig, name='w')\n"
    )
    assert len(list(beat_schedule_writes(bad))) == 4
    assert list(beat_schedule_writes(ast.parse("entry = app.conf.beat_schedule['x']"))) == []


# -- Task options: settings.py sets them for every task (CELERY_TASK_*).
SETTINGS_TASK_OPTIONS = {"acks_late", "ignore_result", "reject_on_worker_lost"}


def restated_task_options(tree: ast.AST) -> Iterator[ast.AST]:
    """Keywords of a `@app.task(...)` / `@shared_task(...)` that settings already set."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and ast.unparse(decorator.func) in {"app.task", "shared_task"}:
                yield from (word for word in decorator.keywords if word.arg in SETTINGS_TASK_OPTIONS)


def test_no_task_restates_the_options_settings_set(settings):
    assert settings.CELERY_TASK_ACKS_LATE is True
    assert settings.CELERY_TASK_IGNORE_RESULT is True
    assert settings.CELERY_TASK_REJECT_ON_WORKER_LOST is True
    assert found_in_application(restated_task_options) == set(), (
        "settings.py sets these for every task (CELERY_TASK_*): leave them out"
    )


def declared_task_names() -> set[str]:
    return {
        word.value.value
        for _, tree in application_modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func) in {"app.task", "shared_task"}
        for word in node.keywords
        if word.arg == "name" and isinstance(word.value, ast.Constant)
    }


def test_every_console_task_acks_late_and_keeps_no_result():
    from dashboard.celery import app

    app.loader.import_default_modules()  # what a worker does: every tasks module, autodiscovered
    declared = declared_task_names()
    assert len(declared) >= 26 and declared <= set(app.tasks)
    assert {name for name in declared if not (app.tasks[name].acks_late and app.tasks[name].ignore_result)} == set()


def test_the_task_options_scan_finds_a_restatement():
    bad = ast.parse(
        "@app.task(name='x', acks_late=True, ignore_result=True)\ndef x(): ...\n"
        "@shared_task(reject_on_worker_lost=True)\ndef y(): ...\n"
    )
    assert len(list(restated_task_options(bad))) == 3
    assert list(restated_task_options(ast.parse("@app.task(name='x')\ndef x(): ..."))) == []


# -- Settings: a setting's default lives in settings.py only; code reads `settings.X`.
def settings_getattrs(tree: ast.AST) -> Iterator[ast.AST]:
    """`getattr(settings, "X"...)`: a fixed name read as if it might be missing
    (a default written a second time, and a typo that reads the default forever)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            args = node.args
            if len(args) >= 2 and ast.unparse(args[0]) == "settings" and isinstance(args[1], ast.Constant):
                yield node


def test_settings_are_read_as_attributes():
    assert found_in_application(settings_getattrs) == set(), (
        "read settings.X: its default lives in dashboard/settings.py"
    )


def test_the_settings_scan_finds_a_getattr():
    bad = ast.parse("a = getattr(settings, 'PRODUCTION', False)\nb = getattr(settings, 'X')")
    assert len(list(settings_getattrs(bad))) == 2
    assert list(settings_getattrs(ast.parse("getattr(settings, name)\ngetattr(job, 'x', 1)"))) == []


# -- HX-* answers: set by dashboard/web/htmx.py alone (a hand-set HX-Trigger
# overwrites any other event on the answer).
HTMX_HEADERS_HOME = "dashboard/web/htmx.py"


def is_hx_name(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower().startswith("hx-")


def hx_header_writes(tree: ast.AST) -> Iterator[ast.AST]:
    """`response["HX-..."] = ...`, `response.headers["HX-..."] = ...`,
    `.setdefault("HX-...", ...)`, `.update({"HX-...": ...})` and
    `HttpResponse(headers={"HX-...": ...})`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and is_hx_name(node.slice):
            yield node
        elif isinstance(node, ast.Call):
            method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if isinstance(node.func, ast.Attribute) and ast.unparse(node.func.value).endswith("attrs"):
                continue  # a form widget's hx-* attributes, not headers
            if method in {"setdefault", "__setitem__"} and node.args and is_hx_name(node.args[0]):
                yield node
                continue
            dicts = [arg for arg in node.args if method == "update" and isinstance(arg, ast.Dict)]
            dicts += [
                word.value for word in node.keywords if word.arg == "headers" and isinstance(word.value, ast.Dict)
            ]
            if any(is_hx_name(key) for mapping in dicts for key in mapping.keys):
                yield node


def test_only_the_core_sets_an_htmx_header():
    assert found_in_application(hx_header_writes, home=HTMX_HEADERS_HOME) == set(), (
        "answer through dashboard/web/htmx.py (trigger_client_event, send_to, stop_polling...)"
    )


def test_the_htmx_header_scan_finds_a_hand_set_header():
    bad = ast.parse(
        "response['HX-Trigger'] = 'inbox-changed'\n"
        "response.headers['hx-retarget'] = '#x'\n"
        "response.headers.setdefault('HX-Reswap', 'outerHTML')\n"
        "response.headers.update({'HX-Refresh': 'true'})\n"
        "HttpResponse(status=204, headers={'HX-Redirect': '/'})\n"
    )
    assert len(list(hx_header_writes(bad))) == 5
    good = (
        "url = request.headers.get('HX-Current-URL', '')\nresponse['Cache-Control'] = 'no-store'\n"
        "field.widget.attrs.update({'hx-get': url})\n"
    )
    assert list(hx_header_writes(ast.parse(good))) == []


# -- Module size: a module past ~600 lines holds more than one concern; split
# it where the split has a name (the transport's attempts: dashboard/api/attempts.py).
MAX_LINES = 600
# Modules over the limit today, each with the reason written beside it. Remove
# an entry when its module is split (a stale entry fails below).
OVER_THE_LIMIT = {
    # One flat list read by name (settings.X) everywhere; its sections (the service,
    # accounts and fair use, background work) are the split, not yet made.
    "dashboard/settings.py": "Django's settings, one section per concern; the split by section is still to do",
}


def module_lines() -> dict[str, int]:
    """Lines of every application module (migrations are Django's, not ours to split)."""
    return {
        relative(path): len(path.read_text().splitlines())
        for folder in APPLICATION
        for path in sorted((PROJECT_DIR / folder).rglob("*.py"))
        if "migrations" not in path.parts
    }


def test_no_module_is_over_the_limit_without_a_reason():
    lines = module_lines()
    over = {where: count for where, count in lines.items() if count > MAX_LINES and where not in OVER_THE_LIMIT}
    assert over == {}, f"split a module over {MAX_LINES} lines where the split has a name"
    assert all(reason.strip() for reason in OVER_THE_LIMIT.values())
    # An entry whose module got split (or is gone) leaves the list.
    assert {where for where in OVER_THE_LIMIT if lines.get(where, 0) <= MAX_LINES} == set()


# -- Tests' own house: what test modules share lives in fixture modules
# (tests/conftest.py `pytest_plugins`), a folder's conftest.py or a support
# module, never in another test module (importing one runs its tests' module
# again, and its autouse fixtures come along unseen).
def imports_of_test_modules(tree: ast.AST) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        modules = []
        if isinstance(node, ast.ImportFrom):
            modules = [("." * node.level) + (node.module or "")] + [alias.name for alias in node.names if node.level]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        if any(part.startswith("test_") for module in modules for part in module.split(".")):
            yield node


def test_no_test_module_imports_another():
    found = {
        f"{relative(path)}:{node.lineno} {ast.unparse(node)}"
        for path in sorted((PROJECT_DIR / "tests").rglob("*.py"))
        for node in imports_of_test_modules(ast.parse(path.read_text(), filename=str(path)))
    }
    assert found == set(), "share through a fixture module, a conftest.py or a support module"


def test_the_test_import_scan_finds_an_import_of_a_test_module():
    bad = ast.parse(
        "from tests.agents.test_sandbox import agent_id_named\n"
        "import tests.live.test_worker_redis\n"
        "from .test_views import finish\n"
        "from . import test_apps\n"
    )
    assert len(list(imports_of_test_modules(bad))) == 4
    good = "from tests.agents.support import store_demo_key\nfrom tests.workers import wait_for"
    assert list(imports_of_test_modules(ast.parse(good))) == []
