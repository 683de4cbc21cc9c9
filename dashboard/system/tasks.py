"""The service probe of the System status page, kept fresh by a worker while
someone has the page open (dashboard/system/service_probe.py)."""

from __future__ import annotations

from dashboard.celery import app
from dashboard.system.service_probe import probe_wanted, service_probe_fresh


@app.task(name="system.probe_service")
def probe_service() -> str:
    """Beat sends this every SERVICE_PROBE_SECONDS; nobody looking, no request."""
    if not probe_wanted():
        return "not wanted"
    return service_probe_fresh().check
