"""Prometheus metrics of the web and worker processes (off unless configured).

registry.py      the counters and histograms, and the functions callers write them with
endpoints.py     remote paths as the contract's endpoint templates (bounded labels)
middleware.py    request latency and status by view
signals.py       the transport's attempt hook, Celery task and worker signals, login signals
collect.py       gauges read from the database, the cache and the broker at scrape time
initial.py       the series with known label values, made at zero before any traffic
scrape.py        the two scrapes: a process group's counters (/metrics), the database's gauges (/metrics/state)
access.py        the token and the address allow-list
views.py         GET /metrics and GET /metrics/state
worker_server.py a Celery worker's own endpoint (METRICS_WORKER_PORT)
checks.py        `manage.py check`: a way in, valid networks, the multiprocess directory

It imports nothing of dashboard.frame nor of an area (pyproject's import
contracts); areas add gauges through `collect.register_gauges()` and their known series
through `initial.register_series()`.
"""
