"""On PostgreSQL the tick locks the rows it is claiming with SKIP LOCKED, so a
second tick running at the same moment skips them instead of waiting."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from dashboard.live import claims
from dashboard.live.models import TrackedOperation
from tests.helpers import missing_service


@pytest.mark.postgres
def test_a_concurrent_tick_skips_rows_another_tick_is_claiming(transactional_db, make_turn):
    if connection.vendor != "postgresql":
        missing_service("needs PostgreSQL (DATABASE_URL=postgres://...)")
    locked = make_turn(remote_id="turn-being-claimed")
    free = make_turn(remote_id="turn-free")
    holding = threading.Event()
    release = threading.Event()

    def other_tick_mid_claim():
        try:
            with transaction.atomic():
                list(TrackedOperation.objects.select_for_update().filter(pk=locked.pk))
                holding.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    thread = threading.Thread(target=other_tick_mid_claim)
    thread.start()
    try:
        assert holding.wait(timeout=30)
        claimed = claims.operations_claim_due()
    finally:
        release.set()
        thread.join(timeout=30)

    assert [c.operation_id for c in claimed] == [free.pk]
    # Once the other transaction ends, the row is claimable again.
    assert [c.operation_id for c in claims.operations_claim_due()] == [locked.pk]
