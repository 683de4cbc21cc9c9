"""The shape of a preflight report (dashboard/system/preflight.py): checks
that answer ok, warn or fail, each with one line in words and the fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

PASS = "ok"
WARN = "warn"
FAIL = "fail"

# How many failing rows a line names before it says "and N more": a restore
# with the wrong encryption keys fails every row, and a report of thousands
# of lines hides the one sentence that matters.
MAX_NAMED_ROWS = 20


@dataclass(frozen=True)
class Check:
    """One line of the report: what was checked, how it stands, and the fix."""

    name: str
    status: str
    summary: str
    fix: str = ""
    details: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "status": self.status,
            "summary": self.summary,
            "fix": self.fix,
            "details": list(self.details),
        }


@dataclass
class PreflightReport:
    production: bool
    checks: list[Check] = field(default_factory=list)

    @property
    def failures(self) -> list[Check]:
        return [check for check in self.checks if check.status == FAIL]

    @property
    def warnings(self) -> list[Check]:
        return [check for check in self.checks if check.status == WARN]

    @property
    def ok(self) -> bool:
        return not self.failures

    def check(self, name: str) -> Check:
        """The check of that name (tests and the command's callers read one)."""
        return next(check for check in self.checks if check.name == name)

    def as_dict(self) -> dict[str, object]:
        from dashboard.version import console_version

        return {
            "ok": self.ok,
            "version": console_version(),
            "mode": "production" if self.production else "development",
            "checks": [check.as_dict() for check in self.checks],
        }


def origin(url: str) -> str:
    """scheme://host[:port], without a path or a user:password part."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")


def listing(items: list[str], *, limit: int = MAX_NAMED_ROWS) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")
