"""Helpers of the step-up and quorum tests (tests/agents/test_step_up.py,
test_quorum.py, test_browser_step_up.py): an authenticator app for a person
and its codes, an approval's status as the sandbox has it."""

from __future__ import annotations

import time

import httpx
from django_otp.oath import TOTP

from dashboard.accounts import two_factor


def code_for(device, *, steps_ahead: int = 0) -> str:
    """The code the app shows now (or `steps_ahead` periods on: a code once used is refused again)."""
    device.refresh_from_db()
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time() + steps_ahead * device.step
    return f"{totp.token():06d}"


def app_for(user):
    """The person's authenticator app, set up and confirmed."""
    device = two_factor.pending_app_device(user)
    assert two_factor.two_factor_enable(user=user, device=device, code=code_for(device)) is not None
    return device


def status_at_service(handle, approval_id: str) -> str:
    """The approval's status as the sandbox lists it (read straight from it)."""
    answer = httpx.get(
        f"{handle.base_url}/v1/approvals",
        params={"status": "all", "limit": 100},
        headers={"Authorization": f"Bearer {handle.demo_key}"},
    )
    return next(item["status"] for item in answer.json()["data"] if item["id"] == approval_id)
