"""docker-compose.yml is valid for the docker-compose client and defines the
whole deployment; the sandbox only under its optional profile."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.helpers import PROJECT_DIR


def compose(*args: str) -> subprocess.CompletedProcess:
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.skip("docker-compose client not installed (apt-get install docker-compose)")
    if not (PROJECT_DIR / ".env").exists():
        pytest.skip("no .env yet (settings write it outside production on first import)")
    return subprocess.run([binary, *args], cwd=PROJECT_DIR, capture_output=True, text=True, timeout=120)


def test_compose_file_passes_docker_compose_config():
    result = compose("config", "-q")

    assert result.returncode == 0, result.stderr


def test_compose_runs_the_whole_deployment_and_the_sandbox_only_on_request():
    yaml = pytest.importorskip("yaml")
    result = compose("config")
    assert result.returncode == 0, result.stderr

    services = yaml.safe_load(result.stdout)["services"]

    assert set(services) == {"postgres", "redis", "migrate", "web", "worker", "streams", "beat", "sandbox"}
    assert {name for name, service in services.items() if service.get("profiles")} == {"sandbox"}
    assert services["sandbox"]["profiles"] == ["sandbox"]
    for name in ("postgres", "redis", "web", "worker", "streams"):
        assert "healthcheck" in services[name], name
    # Stream followers never share the poller's worker.
    assert services["streams"]["environment"]["CELERY_STREAM_QUEUE"] == "streams"
    assert services["streams"]["command"][services["streams"]["command"].index("--queues") + 1] == "streams"
    for name in ("web", "worker", "streams", "beat"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert services[name]["environment"]["CONSOLE_ENV"] == "production"


def test_preflight_runs_after_migrate_and_before_anything_serves():
    yaml = pytest.importorskip("yaml")
    result = compose("config")
    assert result.returncode == 0, result.stderr

    migrate = yaml.safe_load(result.stdout)["services"]["migrate"]

    # migrate && preflight: a failed check exits 1, and web, worker and beat
    # (service_completed_successfully, above) never start.
    assert migrate["command"][:2] == ["sh", "-c"]
    assert migrate["command"][2].split(" && ") == [
        "python manage.py migrate --noinput",
        "python manage.py preflight",
    ]
    # It checks the broker and cache, and the imports volume the web server and workers write.
    assert migrate["depends_on"]["redis"]["condition"] == "service_healthy"
    # docker-compose 1.x prints "volume:target:rw", the compose v2 plugin a mapping.
    targets = [volume["target"] if isinstance(volume, dict) else volume.split(":")[1] for volume in migrate["volumes"]]
    assert "/app/var/imports" in targets


def test_every_container_rotates_its_log():
    yaml = pytest.importorskip("yaml")
    result = compose("--profile", "sandbox", "config")
    assert result.returncode == 0, result.stderr

    services = yaml.safe_load(result.stdout)["services"]

    for name, service in services.items():
        logging = service.get("logging", {})
        assert logging.get("driver") == "json-file", name
        assert logging["options"] == {"max-size": "10m", "max-file": "5"}, name


def test_the_readmes_sandbox_key_step_works_in_the_sandbox_container(tmp_path):
    # README: `docker-compose exec sandbox python manage.py sandbox_keys --db /app/var/sandbox.sqlite3`,
    # run here with the sandbox container's environment (production mode, as compose sets it).
    yaml = pytest.importorskip("yaml")
    result = compose("--profile", "sandbox", "config")
    assert result.returncode == 0, result.stderr
    sandbox = yaml.safe_load(result.stdout)["services"]["sandbox"]
    env = {name: os.environ[name] for name in ("PATH", "HOME") if name in os.environ}
    env.update({name: str(value) for name, value in sandbox["environment"].items()})
    assert env["CONSOLE_ENV"] == "production"

    def sandbox_keys(environment: dict[str, str]) -> subprocess.CompletedProcess:
        command = [sys.executable, "manage.py", "sandbox_keys", "--db", str(tmp_path / "sandbox.sqlite3")]
        return subprocess.run(command, cwd=PROJECT_DIR, env=environment, capture_output=True, text=True, timeout=120)

    minted = sandbox_keys(env)
    assert minted.returncode == 0, minted.stderr[-2000:]
    assert minted.stdout.strip().startswith("svc_sk_")

    # What the README's step met before: the web's production settings have no developer commands.
    without = sandbox_keys({name: value for name, value in env.items() if name != "CONSOLE_DEVTOOLS"})
    assert without.returncode != 0 and "Unknown command" in without.stderr
