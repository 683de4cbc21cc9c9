"""The Prometheus files and the Grafana dashboard in the box (deploy/):
promtool accepts them, every metric they name is one a real scrape serves,
and the beat and worker rules, evaluated by promtool over a scrape, fire
while the heartbeats are stale and not while they are fresh (the frozen-lease
rule: for a row a dead poll holds, not once the lease is gone)."""

from __future__ import annotations

import json
from datetime import timedelta

import yaml
from django.utils import timezone

from tests.metrics import promtool
from tests.metrics.support import BEARER, samples

# What #31 asks the rules to watch, by the alert that does.
ALERTS = {
    "ConsoleBeatStale",
    "ConsoleWorkerStale",
    "ConsoleRowsFrozenOnLease",
    "ConsoleOldestDueTooOld",
    "ConsoleRateLimited",
    "ConsoleApiKeysRefused",
    "ConsoleDeliveriesFailing",
    "ConsoleHighErrorRate",
}
# What the dashboard shows, by a metric each needs.
SHOWN = {
    "console_http_requests_total",
    "console_http_request_duration_seconds_bucket",
    "console_remote_calls_total",
    "console_remote_rate_limited_total",
    "console_live_operations",
    "console_live_oldest_due_seconds",
    "console_live_stale_leased_operations",
    "console_worker_heartbeat_age_seconds",
    "console_beat_heartbeat_age_seconds",
    "console_deliveries",
    "console_api_keys_refused",
    "console_object_jobs",
    "console_tasks_total",
}


def scrape(client, urls: tuple[str, ...] = ("/metrics", "/metrics/state")) -> list:
    found = []
    for url in urls:
        response = client.get(url, **BEARER)
        assert response.status_code == 200
        found.extend(samples(response.content))
    return found


def test_promtool_accepts_the_rules_the_config_and_every_dashboard_query(tmp_path):
    checked = promtool.run("check", "rules", str(promtool.RULES))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    config = promtool.run("check", "config", "--syntax-only", str(promtool.CONFIG))
    assert config.returncode == 0, config.stdout + config.stderr
    # Each panel's query as a recording rule: promtool parses it as Prometheus would.
    queries = promtool.panel_expressions()
    rules = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [{"record": f"dashboard:panel_{n}", "expr": expr} for n, (_, expr) in enumerate(queries)],
            }
        ]
    }
    path = tmp_path / "dashboard-rules.yml"
    path.write_text(yaml.safe_dump(rules))
    parsed = promtool.run("check", "rules", str(path))
    assert parsed.returncode == 0, parsed.stdout + parsed.stderr
    # Debian's promtool is built without Kubernetes discovery: the Kubernetes
    # example is read as YAML, with the same three jobs as the compose one.
    jobs = {job["job_name"]: job for job in yaml.safe_load(promtool.KUBERNETES_CONFIG.read_text())["scrape_configs"]}
    compose_jobs = {job["job_name"]: job for job in yaml.safe_load(promtool.CONFIG.read_text())["scrape_configs"]}
    assert jobs.keys() == compose_jobs.keys() == {"console-state", "console-web", "console-worker"}
    assert {name: job["metrics_path"] for name, job in jobs.items()} == {
        name: job["metrics_path"] for name, job in compose_jobs.items()
    }
    assert len(compose_jobs["console-state"]["static_configs"][0]["targets"]) == 1


def test_every_rule_and_panel_names_only_metrics_a_real_scrape_serves(client, metrics_on, user):
    from dashboard.inbox.models import WorkspaceRefresh
    from dashboard.keys.testing import stored_api_key

    # A console serving one workspace: the series by workspace are there too.
    key = stored_api_key(user=user, secret="svc_sk_test_key_0002", workspace_name="Acme Marketing")
    WorkspaceRefresh.objects.create(workspace_id=key.workspace_id, refreshed_at=timezone.now())
    served = {sample.name for sample in scrape(client)}
    rules = promtool.rule_expressions()
    panels = promtool.panel_expressions()

    assert ALERTS <= rules.keys()
    for alert, expr in rules.items():
        # Prometheus' own `up` (is the state target scraped?) or the console's.
        assert promtool.metric_names(expr) or "up{" in expr, alert
        assert promtool.metric_names(expr) <= served, (alert, promtool.metric_names(expr) - served)
    for title, expr in panels:
        assert promtool.metric_names(expr) <= served, (title, promtool.metric_names(expr) - served)
    assert SHOWN <= set().union(*(promtool.metric_names(expr) for _, expr in panels))


def test_the_beat_and_worker_rules_fire_on_a_scrape_with_them_stale_and_not_with_them_fresh(
    client, metrics_on, db, tmp_path
):
    from dashboard.live import heartbeat
    from dashboard.metrics.collect import broker_queues

    queues = broker_queues()
    long_ago = timezone.now() - timedelta(minutes=10)
    heartbeat.beat_heartbeat_record(now=long_ago)
    heartbeat.worker_heartbeat_record(queues=queues, now=long_ago)
    # The state target's scrape: where the heartbeats are served (once).
    stale = scrape(client, ("/metrics/state",))
    heartbeat.beat_heartbeat_record(now=timezone.now())
    heartbeat.worker_heartbeat_record(queues=queues, now=timezone.now())
    fresh = scrape(client, ("/metrics/state",))
    target = {"job": "console-state", "instance": "web:8000"}
    beat_firing = [{"exp_labels": {"severity": "critical"}, "exp_annotations": annotations("ConsoleBeatStale")}]
    worker_firing = [
        {
            "exp_labels": {"severity": "critical", "queue": queue},
            "exp_annotations": {
                name: text.replace("{{ $labels.queue }}", queue)
                for name, text in annotations("ConsoleWorkerStale").items()
            },
        }
        for queue in queues
    ]

    result = promtool.unit_test(
        tmp_path,
        [
            {
                "input_series": promtool.input_series(stale, **target),
                "alert_rule_test": [
                    # Stale since the first scrape: pending until its `for: 2m` has passed.
                    {"eval_time": "1m", "alertname": "ConsoleBeatStale", "exp_alerts": []},
                    {"eval_time": "5m", "alertname": "ConsoleBeatStale", "exp_alerts": beat_firing},
                    {"eval_time": "5m", "alertname": "ConsoleWorkerStale", "exp_alerts": worker_firing},
                ],
            },
            {
                "input_series": promtool.input_series(fresh, **target),
                "alert_rule_test": [
                    {"eval_time": "5m", "alertname": "ConsoleBeatStale", "exp_alerts": []},
                    {"eval_time": "5m", "alertname": "ConsoleWorkerStale", "exp_alerts": []},
                ],
            },
        ],
        rule_files=[promtool.RULES],
    )

    assert result.returncode == 0, result.stdout + result.stderr


def test_the_dashboard_is_one_grafana_can_import():
    dashboard = json.loads(promtool.DASHBOARD.read_text())
    panels = dashboard["panels"]
    ids = [panel["id"] for panel in panels]

    assert dashboard["uid"] == "workspace-console"
    assert len(ids) == len(set(ids))
    # It asks for the Prometheus data source on import, and every query uses it.
    assert [item["name"] for item in dashboard["__inputs"]] == ["DS_PROMETHEUS"]
    for panel in panels:
        if panel["type"] == "row":
            continue
        assert panel["targets"], panel["title"]
        assert panel["datasource"]["uid"] == "${DS_PROMETHEUS}", panel["title"]
        assert {target["refId"] for target in panel["targets"]} == {chr(65 + n) for n in range(len(panel["targets"]))}


def annotations(alert: str) -> dict[str, str]:
    groups = yaml.safe_load(promtool.RULES.read_text())["groups"]
    (rule,) = [rule for group in groups for rule in group["rules"] if rule.get("alert") == alert]
    return dict(rule["annotations"])


def test_the_frozen_lease_rule_fires_for_a_row_a_dead_poll_holds(client, metrics_on, user, tmp_path):
    from dashboard.keys.testing import stored_api_key
    from dashboard.live.claims import POLL_LEASE_PREFIX
    from dashboard.live.models import TrackedOperation
    from dashboard.live.services import operation_track

    key = stored_api_key(user=user, secret="svc_sk_test_key_0004")
    op = operation_track(owner_key=key, kind="agents.run", remote_id="run-frozen", title="A run", snapshot={})
    # A poll took it a minute ago and never came back (its worker was killed).
    TrackedOperation.objects.filter(pk=op.pk).update(
        next_poll_at=timezone.now() - timedelta(minutes=1),
        lease_token=f"{POLL_LEASE_PREFIX}dead-worker",
        lease_until=timezone.now() + timedelta(seconds=30),
    )
    frozen = scrape(client, ("/metrics/state",))
    TrackedOperation.objects.filter(pk=op.pk).update(lease_token="", lease_until=None)
    free = scrape(client, ("/metrics/state",))
    target = {"job": "console-state", "instance": "web:8000"}
    summary = annotations("ConsoleRowsFrozenOnLease")
    firing = [
        {
            "exp_labels": {"severity": "warning"},
            "exp_annotations": {name: text.replace("{{ $value }}", "1") for name, text in summary.items()},
        }
    ]

    result = promtool.unit_test(
        tmp_path,
        [
            {
                "input_series": promtool.input_series(frozen, **target),
                "alert_rule_test": [{"eval_time": "3m", "alertname": "ConsoleRowsFrozenOnLease", "exp_alerts": firing}],
            },
            {
                "input_series": promtool.input_series(free, **target),
                "alert_rule_test": [{"eval_time": "3m", "alertname": "ConsoleRowsFrozenOnLease", "exp_alerts": []}],
            },
        ],
        rule_files=[promtool.RULES],
    )

    assert result.returncode == 0, result.stdout + result.stderr
