"""deploy/kubernetes: the kustomize base and the production overlay render
offline (`kubectl kustomize`, or a standalone `kustomize`), every manifest
passes the Kubernetes schemas (kubernetes-validate's bundled OpenAPI
schemas, strict: an unknown field fails), and the pieces fit together:
probes, one beat, the migrate-and-preflight Job, budgets, autoscalers, the
ServiceMonitor, secrets referenced and never inlined."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import PROJECT_DIR, missing_service

yaml = pytest.importorskip("yaml")
kubernetes_validate = pytest.importorskip("kubernetes_validate")

KUSTOMIZE = PROJECT_DIR / "deploy" / "kubernetes"
BASE = KUSTOMIZE / "base"
PRODUCTION = KUSTOMIZE / "overlays" / "production"
SECRET = "console-secrets"
WORKLOADS = {"console-web", "console-worker", "console-streams", "console-beat"}


def render(directory: Path) -> list[dict]:
    if kubectl := shutil.which("kubectl"):
        command = [kubectl, "kustomize", str(directory)]
    elif kustomize := shutil.which("kustomize"):
        command = [kustomize, "build", str(directory)]
    else:
        missing_service("neither kubectl nor kustomize is installed (to render deploy/kubernetes)")
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


@pytest.fixture(scope="module")
def production() -> list[dict]:
    return render(PRODUCTION)


def by_kind(docs: list[dict], kind: str) -> dict[str, dict]:
    return {doc["metadata"]["name"]: doc for doc in docs if doc["kind"] == kind}


def pod_specs(docs: list[dict]) -> dict[str, dict]:
    return {
        doc["metadata"]["name"]: doc["spec"]["template"]["spec"] for doc in docs if doc["kind"] in ("Deployment", "Job")
    }


def validate(doc: dict) -> None:
    kubernetes_validate.validate(doc, kubernetes_validate.utils.latest_version(), strict=True)


@pytest.mark.parametrize("directory", [BASE, PRODUCTION], ids=["base", "production"])
def test_every_rendered_manifest_passes_the_kubernetes_schemas(directory):
    docs = render(directory)

    kinds = sorted({doc["kind"] for doc in docs})
    assert {"ConfigMap", "Deployment", "Job", "PodDisruptionBudget", "HorizontalPodAutoscaler"} <= set(kinds)
    for doc in docs:
        if doc["kind"] in ("ServiceMonitor", "ScrapeConfig"):
            continue  # the Prometheus Operator's CRDs: no schema bundled; checked field by field below
        validate(doc)
    # Secrets are referenced, never inlined (the operator creates console-secrets).
    assert "Secret" not in kinds


def test_the_validator_refuses_a_misspelt_field():
    # So a passing validation above means something: strict mode knows every field.
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x"}, "spec": {"backofLimit": 1}}
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(job)


def test_web_worker_streams_and_beat_are_probed_and_sized(production):
    deployments = by_kind(production, "Deployment")
    assert set(deployments) == WORKLOADS
    allowed_hosts = by_kind(production, "ConfigMap")["console-config"]["data"]["ALLOWED_HOSTS"].split(",")

    web = deployments["console-web"]["spec"]["template"]["spec"]["containers"][0]
    probes = {kind: web[kind]["httpGet"] for kind in ("startupProbe", "livenessProbe", "readinessProbe")}
    assert {kind: probe["path"] for kind, probe in probes.items()} == {
        "startupProbe": "/livez",
        "livenessProbe": "/livez",
        "readinessProbe": "/readyz",
    }
    for probe in probes.values():
        # Django refuses a Host it does not know: the kubelet's default is the pod's address.
        assert [header["value"] for header in probe["httpHeaders"] if header["name"] == "Host"][0] in allowed_hosts
    for name in WORKLOADS - {"console-web"}:
        container = deployments[name]["spec"]["template"]["spec"]["containers"][0]
        assert container["livenessProbe"]["exec"]["command"], name

    for name, spec in pod_specs(production).items():
        for container in spec["containers"]:
            assert {"cpu", "memory"} <= set(container["resources"]["requests"]), name
            assert "memory" in container["resources"]["limits"], name
            assert container["securityContext"]["readOnlyRootFilesystem"] is True, name
        assert spec["securityContext"]["runAsNonRoot"] is True, name


def test_one_beat_replaced_not_overlapped_and_the_job_migrates_then_preflights(production):
    beat = by_kind(production, "Deployment")["console-beat"]
    assert beat["spec"]["replicas"] == 1
    assert beat["spec"]["strategy"] == {"type": "Recreate"}
    container = beat["spec"]["template"]["spec"]["containers"][0]
    alive = next(variable["value"] for variable in container["env"] if variable["name"] == "BEAT_ALIVE_FILE")
    assert alive in container["livenessProbe"]["exec"]["command"][-1]

    job = by_kind(production, "Job")["console-migrate"]
    command = job["spec"]["template"]["spec"]["containers"][0]["command"]
    assert command[:2] == ["sh", "-c"]
    assert command[2].split(" && ") == ["python manage.py migrate --noinput", "python manage.py preflight"]
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"


def test_budgets_and_autoscalers_select_the_deployments_they_name(production):
    deployments = by_kind(production, "Deployment")
    budgets = by_kind(production, "PodDisruptionBudget")
    autoscalers = by_kind(production, "HorizontalPodAutoscaler")

    covered = set()
    for budget in budgets.values():
        wanted = budget["spec"]["selector"]["matchLabels"]
        matched = [
            name
            for name, deployment in deployments.items()
            if wanted.items() <= deployment["spec"]["template"]["metadata"]["labels"].items()
        ]
        assert len(matched) == 1, budget["metadata"]["name"]
        covered.update(matched)
    # Not beat: a budget on its one replica would block every node drain.
    assert covered == {"console-web", "console-worker", "console-streams"}

    scaled = {autoscaler["spec"]["scaleTargetRef"]["name"]: autoscaler["spec"] for autoscaler in autoscalers.values()}
    assert set(scaled) == {"console-web", "console-worker", "console-streams"}
    assert scaled["console-web"]["minReplicas"] == 3  # the overlay's patch over the base's 2
    for spec in scaled.values():
        assert spec["minReplicas"] >= 2 and spec["maxReplicas"] > spec["minReplicas"]


def test_secrets_are_mounted_files_named_by_FILE_settings_the_console_reads(production):
    config = by_kind(production, "ConfigMap")["console-config"]["data"]
    # Read by settings, by gunicorn.conf.py, or (the metrics folder) by prometheus-client.
    known = "".join((PROJECT_DIR / name).read_text() for name in ("dashboard/settings.py", "gunicorn.conf.py"))
    for key in set(config) - {"PROMETHEUS_MULTIPROC_DIR"}:
        setting = key.removesuffix("_FILE")
        assert re.search(rf"['\"]{setting}['\"]", known), f"{key}: not a setting the console reads"
    files = {key: path for key, path in config.items() if key.endswith("_FILE")}
    assert {"SECRET_KEY_FILE", "KEY_ENCRYPTION_KEYS_FILE", "DATABASE_URL_FILE"} <= set(files)

    for name, spec in pod_specs(production).items():
        secret_volumes = {volume["name"] for volume in spec["volumes"] if volume.get("secret")}
        assert {volume["secret"]["secretName"] for volume in spec["volumes"] if volume.get("secret")} == {SECRET}
        container = spec["containers"][0]
        mounts = [mount["mountPath"] for mount in container["volumeMounts"] if mount["name"] in secret_volumes]
        assert [ref["configMapRef"]["name"] for ref in container["envFrom"]] == ["console-config"]
        for key, path in files.items():
            assert any(path.startswith(mount + "/") for mount in mounts), (name, key)
        for variable in container.get("env", []):
            assert "value" not in variable or not variable["name"].endswith(("KEY", "URL", "TOKEN", "PASSWORD")), (
                name,
                variable["name"],
            )


def test_the_service_monitor_scrapes_every_web_and_worker_pod_with_the_token(production):
    monitor = by_kind(production, "ServiceMonitor")["workspace-console"]
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert monitor["metadata"]["labels"]["release"] == "prometheus"
    services = [
        service
        for service in by_kind(production, "Service").values()
        if monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    ]
    ports = {port["name"]: service for service in services for port in service["spec"]["ports"]}

    endpoints = {endpoint["port"]: endpoint for endpoint in monitor["spec"]["endpoints"]}
    assert set(endpoints) == {"http", "metrics"}
    assert set(endpoints) <= set(ports)
    # Per pod: the worker Service is headless, so each pod is a target of its own.
    assert ports["metrics"]["spec"]["clusterIP"] == "None"
    assert ports["metrics"]["spec"]["selector"]["workspace-console/metrics"] == "worker"
    deployments = by_kind(production, "Deployment")
    scraped = {
        name
        for name, deployment in deployments.items()
        if deployment["spec"]["template"]["metadata"]["labels"].get("workspace-console/metrics") == "worker"
    }
    assert scraped == {"console-worker", "console-streams"}
    for endpoint in endpoints.values():
        assert endpoint["path"] == "/metrics"
        assert endpoint["authorization"]["credentials"] == {"name": SECRET, "key": "METRICS_TOKEN"}


def test_the_host_is_written_once_and_everything_that_names_it_follows(tmp_path):
    copy = tmp_path / "kubernetes"
    shutil.copytree(KUSTOMIZE, copy)
    ingress = copy / "overlays" / "production" / "ingress.yaml"
    ingress.write_text(ingress.read_text().replace("- host: console.example.com", "- host: console.acme.test"))

    docs = render(copy / "overlays" / "production")

    config = by_kind(docs, "ConfigMap")["console-config"]["data"]
    assert config["ALLOWED_HOSTS"].split(",")[0] == "console.acme.test"
    assert config["CSRF_TRUSTED_ORIGINS"] == "https://console.acme.test"
    assert by_kind(docs, "Ingress")["console"]["spec"]["tls"][0]["hosts"] == ["console.acme.test"]
    web = by_kind(docs, "Deployment")["console-web"]["spec"]["template"]["spec"]["containers"][0]
    hosts = {
        web[kind]["httpGet"]["httpHeaders"][0]["value"] for kind in ("startupProbe", "livenessProbe", "readinessProbe")
    }
    assert hosts == {"console.acme.test"}


def test_the_state_gauges_are_scraped_once_through_the_web_service(production):
    """/metrics/state is the database's view: one target (the web Service), not one per pod."""
    scrape = by_kind(production, "ScrapeConfig")["workspace-console-state"]
    assert scrape["apiVersion"] == "monitoring.coreos.com/v1alpha1"
    assert scrape["metadata"]["labels"]["release"] == "prometheus"
    assert scrape["spec"]["metricsPath"] == "/metrics/state"
    assert scrape["spec"]["authorization"]["credentials"] == {"name": "console-secrets", "key": "METRICS_TOKEN"}
    (target,) = [target for config in scrape["spec"]["staticConfigs"] for target in config["targets"]]
    service = by_kind(production, "Service")["console-web"]
    name, namespace, _, port = target.replace(":", ".").split(".")
    assert (name, namespace) == (service["metadata"]["name"], service["metadata"]["namespace"])
    assert int(port) in {entry["port"] for entry in service["spec"]["ports"]}
    monitor = by_kind(production, "ServiceMonitor")["workspace-console"]
    assert "/metrics/state" not in {endpoint["path"] for endpoint in monitor["spec"]["endpoints"]}
