"""What an operator sees from outside: one request id end to end, the log
line of each request and task, error reporting (Sentry) and traces
(OpenTelemetry), both opt-in.

- `context`: the request id (and user id) of the work in hand, in contextvars.
- `middleware`: the id made (or taken from a trusted proxy) at the web edge,
  returned as `X-Request-Id`, and one log line per request.
- `task_context`: the id carried into every task in its headers, restored in the
  worker, and one log line per task run.
- `sentry`, `otel`: started from settings / `DashboardConfig.ready()` only when
  configured; neither package is imported otherwise.
"""
