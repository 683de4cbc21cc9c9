"""Typed errors of the remote service.

Every error the transport raises is an `ApiError`. The subclass is chosen from
the body's `error.type` first (the contract's stable name for the failure) and
from the HTTP status only when the type is missing or unknown, so a proxy's
HTML 502 still becomes a `ServerError`.

Each error carries `message`, `status`, `type`, `details`, `request_id` and
`retry_after`; none of them ever holds the API key (remote messages are passed
through the same redaction as log lines, in case a server echoes a key back).
"""

from __future__ import annotations

from typing import Any

from dashboard.logging import redact


class ApiError(Exception):
    """A failed call to the remote service."""

    default_message = "The service answered with an error."

    def __init__(
        self,
        message: str | None = None,
        *,
        status: int | None = None,
        type: str | None = None,
        details: Any = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.message = redact(message) if message else self.default_message
        self.status = status
        self.type = type
        self.details = details
        self.request_id = request_id
        self.retry_after = retry_after
        super().__init__(self.message)

    def __str__(self) -> str:
        parts = [self.message]
        if self.status:
            parts.append(f"status={self.status}")
        if self.request_id:
            parts.append(f"request_id={self.request_id}")
        return " ".join(parts)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(message={self.message!r}, status={self.status!r}, "
            f"type={self.type!r}, request_id={self.request_id!r})"
        )

    @property
    def field_errors(self) -> dict[str, list[str]]:
        """`details` flattened to `{"field": [messages]}` (nested keys joined
        with dots, e.g. `values.email`). Tolerant: the inner shape of
        `details` is only loosely specified, so anything unexpected is
        skipped rather than raised."""
        return flatten_field_errors(self.details)


class InvalidRequestError(ApiError):
    default_message = "The service did not accept the request."


class AuthenticationError(ApiError):
    default_message = "The service refused the API key."


class InsufficientCreditsError(ApiError):
    default_message = "The workspace has run out of credits."


class PermissionDeniedError(ApiError):
    default_message = "The API key may not do this."


class NotFoundError(ApiError):
    default_message = "Not found."


class ConflictError(ApiError):
    default_message = "It changed meanwhile."


class UnprocessableError(ApiError):
    default_message = "The service could not process these values."


class RateLimitedError(ApiError):
    default_message = "Too many requests."


class ServerError(ApiError):
    default_message = "The service failed to answer."


class ApiConnectionError(ApiError):
    default_message = "The service could not be reached."


class ApiTimeoutError(ApiConnectionError):
    """A timeout is a kind of unreachable service: code that handles
    `ApiConnectionError` handles timeouts too."""

    default_message = "The service did not answer in time."


class StreamError(ApiError):
    """An `error` event inside a server-sent event stream."""

    default_message = "The operation failed."


ERROR_BY_TYPE: dict[str, type[ApiError]] = {
    "invalid_request": InvalidRequestError,
    "authentication": AuthenticationError,
    "insufficient_credits": InsufficientCreditsError,
    "permission": PermissionDeniedError,
    "not_found": NotFoundError,
    "conflict": ConflictError,
    "rate_limited": RateLimitedError,
    "server_error": ServerError,
    # The 422 type is "not shown" in the contract; these are the usual names.
    "unprocessable": UnprocessableError,
    "unprocessable_entity": UnprocessableError,
    "validation_error": UnprocessableError,
}

ERROR_BY_STATUS: dict[int, type[ApiError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    402: InsufficientCreditsError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableError,
    429: RateLimitedError,
}


def error_class_for(*, status: int | None, error_type: str | None) -> type[ApiError]:
    if error_type and error_type in ERROR_BY_TYPE:
        return ERROR_BY_TYPE[error_type]
    if status in ERROR_BY_STATUS:
        return ERROR_BY_STATUS[status]
    if status is not None and status >= 500:
        return ServerError
    return ApiError


def flatten_field_errors(details: Any, prefix: str = "") -> dict[str, list[str]]:
    flat: dict[str, list[str]] = {}
    if isinstance(details, dict):
        for key, value in details.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, str):
                flat.setdefault(name, []).append(value)
            elif isinstance(value, list) and all(isinstance(item, str) for item in value):
                flat.setdefault(name, []).extend(value)
            else:
                for inner_name, messages in flatten_field_errors(value, name).items():
                    flat.setdefault(inner_name, []).extend(messages)
    elif isinstance(details, list):
        for index, value in enumerate(details):
            if isinstance(value, dict):
                inner_prefix = f"{prefix}.{index}" if prefix else str(index)
                for inner_name, messages in flatten_field_errors(value, inner_prefix).items():
                    flat.setdefault(inner_name, []).extend(messages)
            elif isinstance(value, str) and prefix:
                flat.setdefault(prefix, []).append(value)
    return flat


__all__ = [
    "ApiError",
    "InvalidRequestError",
    "AuthenticationError",
    "InsufficientCreditsError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "UnprocessableError",
    "RateLimitedError",
    "ServerError",
    "ApiConnectionError",
    "ApiTimeoutError",
    "StreamError",
    "error_class_for",
    "flatten_field_errors",
]
