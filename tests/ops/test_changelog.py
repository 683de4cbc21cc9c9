"""CHANGELOG.md (Keep a Changelog) names the version the console runs as:
its newest release is pyproject's version, which console_version() shows."""

from __future__ import annotations

import re
import tomllib

from dashboard.version import console_version
from tests.helpers import PROJECT_DIR

RELEASE = re.compile(r"^## \[(?P<version>\d+\.\d+\.\d+)\] - (?P<date>\d{4}-\d{2}-\d{2})$", re.MULTILINE)


def test_the_newest_release_in_the_changelog_is_the_version_the_console_shows():
    changelog = (PROJECT_DIR / "CHANGELOG.md").read_text()
    project = tomllib.loads((PROJECT_DIR / "pyproject.toml").read_text())["project"]

    releases = [match["version"] for match in RELEASE.finditer(changelog)]

    assert releases, "no '## [x.y.z] - YYYY-MM-DD' heading"
    assert releases[0] == project["version"] == console_version()
    assert len(releases) == len(set(releases))
    # Keep a Changelog: what is not released yet goes above the newest release.
    assert changelog.index("## [Unreleased]") < changelog.index(f"## [{releases[0]}]")
