"""Prometheus' own checker and evaluator (`promtool`, Debian's `prometheus`
package; .ci/run installs it), and scrapes turned into what it reads.

`promtool test rules` evaluates real PromQL over series given as input: a
scrape's samples, labelled with the job and instance Prometheus would add,
held constant over the test's minutes, are what Prometheus would have stored
from scraping that target."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.helpers import PROJECT_DIR, missing_service
from tests.metrics.support import Sample

DEPLOY = PROJECT_DIR / "deploy"
RULES = DEPLOY / "prometheus" / "alerts.yml"
CONFIG = DEPLOY / "prometheus" / "prometheus.yml"
KUBERNETES_CONFIG = DEPLOY / "prometheus" / "kubernetes.yml"
DASHBOARD = DEPLOY / "grafana" / "console.json"
# Grafana's own variables, as Prometheus would see them once Grafana filled them in.
GRAFANA_VARIABLES = {"$__rate_interval": "5m", "$__interval": "1m", "$__range": "6h"}
METRIC_NAME = re.compile(r"\bconsole_[a-z0-9_]+")
MINUTES = 20


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        missing_service("promtool (Debian's `prometheus` package) is not installed")
    assert found is not None
    return found


def run(*args: str, cwd: Path = PROJECT_DIR) -> subprocess.CompletedProcess[str]:
    return subprocess.run([promtool(), *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def rule_expressions() -> dict[str, str]:
    """Each alert's name and expression."""
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return {rule["alert"]: rule["expr"] for group in groups for rule in group["rules"]}


def panel_expressions() -> list[tuple[str, str]]:
    """Each dashboard panel's title and query, Grafana's variables filled in."""
    dashboard = json.loads(DASHBOARD.read_text())
    found = []
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            expr = target["expr"]
            for variable, shown in GRAFANA_VARIABLES.items():
                expr = expr.replace(variable, shown)
            found.append((panel["title"], expr))
    return found


def metric_names(expr: str) -> set[str]:
    return set(METRIC_NAME.findall(expr))


def _value(number: float) -> str:
    if math.isinf(number):
        return "Inf" if number > 0 else "-Inf"
    return repr(float(number))


def input_series(
    found: list[Sample], *, only: set[str] | None = None, minutes: int = MINUTES, **target: str
) -> list[dict[str, str]]:
    """A scrape's samples as promtool's input series of one target (`job`,
    `instance`), a sample a minute; `only`: just the metrics a test's queries read."""
    series = []
    for sample in found:
        if only is not None and sample.name not in only:
            continue
        labels = {**sample.labels, **target}
        shown = ",".join(f"{name}={json.dumps(value)}" for name, value in sorted(labels.items()))
        # Written out, not `VxN`: promtool's shorthand takes no Inf.
        series.append({"series": f"{sample.name}{{{shown}}}", "values": " ".join([_value(sample.value)] * minutes)})
    return series


def unit_test(
    tmp_path: Path, tests: list[dict[str, Any]], *, rule_files: list[Path] | None = None
) -> subprocess.CompletedProcess[str]:
    """`promtool test rules` over these test groups (each: input_series, and
    alert_rule_test and/or promql_expr_test)."""
    document = {
        "rule_files": [str(path) for path in (rule_files or [])],
        "evaluation_interval": "1m",
        "tests": [{"interval": "1m", **test} for test in tests],
    }
    path = tmp_path / "promtool-test.yml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return run("test", "rules", str(path))
