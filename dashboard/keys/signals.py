"""What happened to a person's stored keys, for the audit trail to record:
sent by keys/services.py inside the write's transaction. A signal, so the
stored-key layer names no audit code (the audit app sits above it)."""

from __future__ import annotations

from django.dispatch import Signal

# Each with `key` (the ApiKey row, the secret never read) and `user` (whose key it is).
api_key_stored = Signal()
api_key_removed = Signal()
