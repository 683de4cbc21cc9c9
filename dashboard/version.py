"""The console's version: the installed package's (pyproject.toml), shown on
the System status page and in logs, and named in CHANGELOG.md."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


@cache
def console_version() -> str:
    # The source tree's pyproject wins: an editable install's metadata keeps the
    # version it was installed with until the next install.
    try:
        with PYPROJECT.open("rb") as file:
            return str(tomllib.load(file)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        pass
    try:
        return metadata.version("workspace-console")
    except metadata.PackageNotFoundError:
        return "unknown"
