"""docker-compose.yml is valid for the docker-compose client and defines the
whole deployment; the sandbox only under its optional profile; the bundled
proxy (deploy/caddy/Caddyfile) is the one published port, in front of any
number of web containers."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

from tests.helpers import PROJECT_DIR
from tests.ops.support import production_env

CADDYFILE = PROJECT_DIR / "deploy" / "caddy" / "Caddyfile"
# What an operator's .env holds; docker-compose reads it for ${...} too.
OPERATOR_ENV = {"POSTGRES_PASSWORD": "a-real-password-from-the-operator"}


def compose(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.skip("docker-compose client not installed (apt-get install docker-compose)")
    if not (PROJECT_DIR / ".env").exists():
        pytest.skip("no .env yet (settings write it outside production on first import)")
    environment = {**os.environ, **(OPERATOR_ENV if env is None else env)}
    return subprocess.run(
        [binary, *args], cwd=PROJECT_DIR, env=environment, capture_output=True, text=True, timeout=120
    )


def caddy(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    binary = shutil.which("caddy")
    if binary is None:
        pytest.skip("caddy not installed (apt-get install caddy)")
    environment = {**os.environ, **(env or {})}
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=60, env=environment)


def test_compose_file_passes_docker_compose_config():
    result = compose("config", "-q")

    assert result.returncode == 0, result.stderr


def test_compose_runs_the_whole_deployment_and_the_sandbox_only_on_request():
    yaml = pytest.importorskip("yaml")
    result = compose("config")
    assert result.returncode == 0, result.stderr

    services = yaml.safe_load(result.stdout)["services"]

    assert set(services) == {"postgres", "redis", "migrate", "proxy", "web", "worker", "streams", "beat", "sandbox"}
    assert {name for name, service in services.items() if service.get("profiles")} == {"sandbox"}
    assert services["sandbox"]["profiles"] == ["sandbox"]
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


def sandbox_steps() -> tuple[dict[str, str], list[str]]:
    """docs/operations.md "Trying it with the sandbox": the .env lines and the commands, as printed."""
    text = (PROJECT_DIR / "docs" / "operations.md").read_text()
    section = text.split("### Trying it with the sandbox", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 2, "the section's two blocks: .env lines, then commands"
    settings = dict(line.split("=", 1) for line in blocks[0].splitlines())
    return settings, blocks[1].splitlines()


def test_the_sandbox_steps_fit_the_compose_file_word_for_word():
    yaml = pytest.importorskip("yaml")
    settings, commands = sandbox_steps()
    result = compose("--profile", "sandbox", "config", env={**OPERATOR_ENV, **settings})
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]

    assert commands == [
        "docker-compose --profile sandbox up -d --build",
        "docker-compose run --rm web python manage.py createsuperuser",
        "docker-compose exec sandbox python manage.py sandbox_keys --db /app/var/sandbox.sqlite3",
    ]
    sandbox = services["sandbox"]
    command = sandbox["command"]
    service = urlsplit(settings["SERVICE_BASE_URL"])
    # The console's containers reach the sandbox by its service name and port.
    assert (service.hostname, service.port) == ("sandbox", int(command[command.index("--port") + 1]))
    assert commands[2].rsplit(" ", 1)[1] == command[command.index("--db") + 1]
    # The browser reaches the sandbox's web app on its published port, the console through the proxy's.
    app, origin = urlsplit(settings["SERVICE_APP_URL"]), urlsplit(settings["CSRF_TRUSTED_ORIGINS"])
    assert str(app.port) == str(
        sandbox["ports"][0].split(":")[0] if isinstance(sandbox["ports"][0], str) else sandbox["ports"][0]["published"]
    )
    proxy_port = services["proxy"]["ports"][0]
    assert str(origin.port) == str(proxy_port.split(":")[0] if isinstance(proxy_port, str) else proxy_port["published"])
    assert origin.scheme == "http" and settings["SECURE_SSL_REDIRECT"] == "false"
    assert settings["ALLOWED_HOSTS"].split(",")[0] == origin.hostname == app.hostname

    # Those settings load in production mode as the web container would read them.
    env = production_env(**settings)
    show = "import django; django.setup(); from django.conf import settings as s; print(s.ALLOWED_HOSTS, s.SECURE_SSL_REDIRECT)"
    loaded = subprocess.run(
        [sys.executable, "-c", show],
        cwd=PROJECT_DIR,
        env={**env, "DJANGO_SETTINGS_MODULE": "dashboard.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert loaded.stdout.split() == ["['localhost']", "False"]


def test_the_sandbox_key_step_works_in_the_sandbox_container(tmp_path):
    # The docs' `docker-compose exec sandbox python manage.py sandbox_keys --db ...`,
    # run here with the sandbox container's environment (production mode, as compose sets it).
    yaml = pytest.importorskip("yaml")
    result = compose("--profile", "sandbox", "config")
    assert result.returncode == 0, result.stderr
    sandbox = yaml.safe_load(result.stdout)["services"]["sandbox"]
    env = {name: os.environ[name] for name in ("PATH", "HOME") if name in os.environ}
    env.update({name: str(value) for name, value in sandbox["environment"].items()})
    assert env["CONSOLE_ENV"] == "production"
    step = sandbox_steps()[1][2].split()
    arguments = step[step.index("manage.py") + 1 : step.index("--db")]

    def sandbox_keys(environment: dict[str, str]) -> subprocess.CompletedProcess:
        command = [sys.executable, "manage.py", *arguments, "--db", str(tmp_path / "sandbox.sqlite3")]
        return subprocess.run(command, cwd=PROJECT_DIR, env=environment, capture_output=True, text=True, timeout=120)

    minted = sandbox_keys(env)
    assert minted.returncode == 0, minted.stderr[-2000:]
    assert minted.stdout.strip().startswith("svc_sk_")

    # What the step met before: the web's production settings have no developer commands.
    without = sandbox_keys({name: value for name, value in env.items() if name != "CONSOLE_DEVTOOLS"})
    assert without.returncode != 0 and "Unknown command" in without.stderr


def test_every_service_has_a_healthcheck_and_the_one_shot_says_it_has_none():
    yaml = pytest.importorskip("yaml")
    result = compose("--profile", "sandbox", "config")
    assert result.returncode == 0, result.stderr

    services = yaml.safe_load(result.stdout)["services"]

    for name, service in services.items():
        if name == "migrate":
            # Exits when done: its exit code is what web, worker and beat wait for.
            # docker-compose 1.x prints `disable: true` as test: [NONE], the v2 plugin as is.
            assert service["healthcheck"] in ({"disable": True}, {"test": ["NONE"]})
            continue
        test = service["healthcheck"]["test"]
        assert test[0] in ("CMD", "CMD-SHELL") and len(test) > 1, name
    # Beat's check reads the file its loop touches (dashboard/beat_guard.py).
    beat = services["beat"]
    assert beat["environment"]["BEAT_ALIVE_FILE"] in beat["healthcheck"]["test"][-1]


def test_web_scales_behind_the_bundled_proxy_which_is_the_one_published_port():
    yaml = pytest.importorskip("yaml")
    result = compose("config")
    assert result.returncode == 0, result.stderr

    services = yaml.safe_load(result.stdout)["services"]

    # A fixed host port on web would collide at --scale web=2.
    assert "ports" not in services["web"]
    # (The sandbox, on request only, publishes its own.)
    published = [name for name, service in services.items() if service.get("ports") and not service.get("profiles")]
    assert published == ["proxy"]
    ports = services["proxy"]["ports"]
    # docker-compose 1.x prints "8000:8080", the compose v2 plugin a mapping.
    port = ports[0]
    published, target = (port["published"], port["target"]) if isinstance(port, dict) else port.split(":")
    assert (str(published), str(target)) == ("8000", "8080")
    mounts = [
        volume if isinstance(volume, str) else f"{volume['source']}:{volume['target']}"
        for volume in services["proxy"]["volumes"]
    ]
    assert any(mount.startswith(str(CADDYFILE)) and ":/etc/caddy/Caddyfile" in mount for mount in mounts), mounts
    assert services["proxy"]["depends_on"]["web"]["condition"] == "service_healthy"
    # The proxy appends the client's address: login throttling counts per person, not per proxy.
    assert services["web"]["environment"]["TRUSTED_PROXY_COUNT"] == "1"
    assert services["web"]["environment"]["WEB_PORT"] == "8000"


def test_the_proxy_config_is_valid_and_fails_over_between_every_web_replica():
    assert caddy("validate", "--adapter", "caddyfile", "--config", str(CADDYFILE)).returncode == 0

    adapted = caddy("adapt", "--adapter", "caddyfile", "--config", str(CADDYFILE))
    assert adapted.returncode == 0, adapted.stderr
    servers = json.loads(adapted.stdout)["apps"]["http"]["servers"]
    site = next(server for server in servers.values() if server["listen"] == [":8080"])
    proxy = next(
        handler for route in site["routes"] for handler in route["handle"] if handler["handler"] == "reverse_proxy"
    )

    # Every replica Docker's DNS names `web`, asked again as they come and go.
    assert proxy["dynamic_upstreams"] == {"source": "a", "name": "web", "port": "8000", "refresh": 5_000_000_000}
    # A web that refuses the connection (restarting) is skipped and the request tried on another.
    assert proxy["load_balancing"]["try_duration"] >= 10_000_000_000
    assert proxy["health_checks"]["passive"]["fail_duration"] > 0
    # The healthcheck's own port is never the published one.
    health = next(server for server in servers.values() if server["listen"] == [":8081"])
    assert health["routes"][0]["match"] == [{"path": ["/healthz"]}]


def test_an_empty_postgres_password_stops_compose_instead_of_a_default():
    result = compose("config", "-q", env={"POSTGRES_PASSWORD": ""})

    assert result.returncode != 0
    assert "set POSTGRES_PASSWORD in .env" in result.stderr
