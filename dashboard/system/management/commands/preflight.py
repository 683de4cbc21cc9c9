"""`manage.py preflight`: a readable report, one line per check, and an exit
code (0: the console can serve, warnings included; 1: something failed).
The checks themselves live in dashboard/system/preflight.py."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from dashboard.system.preflight import FAIL, PASS, WARN, PreflightReport, preflight_report

LABELS = {PASS: "ok", WARN: "WARN", FAIL: "FAIL"}


class Command(BaseCommand):
    help = (
        "Check that this console can serve: settings, database and migrations, every stored API key "
        "decrypts, broker, cache, the imports folder and the service. Exit code 0 (warnings allowed) or 1."
    )
    # Django's system checks are one line of the report, not a reason to stop
    # before printing it; the database is checked before anything reads it.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")
        parser.add_argument(
            "--before-migrate",
            action="store_true",
            help="The check before an upgrade's migrate: pending migrations are a warning, not a failure.",
        )
        parser.add_argument(
            "--service-timeout", type=float, default=3.0, help="Seconds to wait for the service (default 3)."
        )

    def handle(self, *args, **options) -> None:
        report = preflight_report(before_migrate=options["before_migrate"], service_timeout=options["service_timeout"])
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
        else:
            self.write_text(report)
        if not report.ok:
            raise CommandError(f"preflight: {len(report.failures)} check(s) failed.", returncode=1)

    def write_text(self, report: PreflightReport) -> None:
        from dashboard.version import console_version

        mode = "production" if report.production else "development"
        self.stdout.write(f"Workspace Console {console_version()} preflight ({mode} mode)")
        width = max(len(check.name) for check in report.checks)
        styles = {PASS: self.style.SUCCESS, WARN: self.style.WARNING, FAIL: self.style.ERROR}
        for check in report.checks:
            label = styles[check.status](f"{LABELS[check.status]:<4}")
            self.stdout.write(f"{label}  {check.name:<{width}}  {check.summary}")
            for detail in check.details:
                self.stdout.write(f"      {'':<{width}}  - {detail}")
            if check.fix:
                self.stdout.write(f"      {'':<{width}}  fix: {check.fix}")
        failures, warnings = len(report.failures), len(report.warnings)
        if failures:
            self.stdout.write(self.style.ERROR(f"{failures} failure(s), {warnings} warning(s): do not serve yet."))
        elif warnings:
            self.stdout.write(self.style.WARNING(f"No failures, {warnings} warning(s): the console can serve."))
        else:
            self.stdout.write(self.style.SUCCESS("All checks passed."))
