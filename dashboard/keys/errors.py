"""Errors of the stored-key layer.

The first three are caught by `dashboard.errors.RemoteErrorMiddleware`, which sends the
user to the key settings page with the message below.
"""

from __future__ import annotations


class NoActiveKeyError(Exception):
    """The user has no usable active API key, so no remote call can be made."""

    default_message = "Add an API key to use the console."

    def __init__(self, message: str | None = None) -> None:
        self.message = message or self.default_message
        super().__init__(self.message)


class KeyDecryptionError(NoActiveKeyError):
    """A stored key could not be decrypted with any configured encryption key.

    Never answered with a fallback: the key is unreadable and must be added
    again (usually KEY_ENCRYPTION_KEYS lost the key it was stored under).
    A subclass of NoActiveKeyError so that pages needing a client send the
    user to the key settings page with this message.
    """

    default_message = (
        "A stored API key can't be read (the encryption key it was stored under is gone). Delete it and add it again."
    )


class KeyRefusedError(NoActiveKeyError):
    """The active key was refused by the service (a 401 to any call made with
    it, marked on its row): the console shows none of the workspace's data
    until a check of the key succeeds again or another key is added.
    `dashboard.frame.remote_errors` answers it with the refusal page (a quiet
    message box for a poll), not a redirect."""

    default_message = "The service refused your API key. Add a working key of your workspace, or check this one again."

    def __init__(self, message: str | None = None, *, request_id: str = "") -> None:
        self.request_id = request_id
        super().__init__(message)


class KeyCheckThrottledError(Exception):
    """Too many key checks (each a `GET /v1/me` with the key) by this person or
    from this address in a short time: checking guessed keys is not allowed."""

    def __init__(self, retry_after: int) -> None:
        self.retry_after = retry_after
        minutes = max(1, -(-retry_after // 60))
        wait = "1 minute" if minutes == 1 else f"{minutes} minutes"
        self.message = f"Too many key checks in a short time. Try again in {wait}."
        super().__init__(self.message)
