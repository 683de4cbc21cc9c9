"""`*_FILE` secrets (dashboard/envfile.py): any setting may be given as the
path of a file holding it, as Docker and Kubernetes mount secrets."""

from __future__ import annotations

import json
import subprocess
import sys

from cryptography.fernet import Fernet

from tests.helpers import PROJECT_DIR
from tests.ops.support import production_env

# Prints the settings the files feed, as a container's process would read them.
SHOW = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'secret': s.SECRET_KEY, 'keys': s.KEY_ENCRYPTION_KEYS, "
    "'db': s.DATABASES['default']['PASSWORD'], 'host': s.DATABASES['default']['HOST'], "
    "'broker': s.CELERY_BROKER_URL}))"
)


def settings_with(env: dict[str, str]) -> subprocess.CompletedProcess:
    env = {**env, "DJANGO_SETTINGS_MODULE": "dashboard.settings"}
    return subprocess.run(
        [sys.executable, "-c", SHOW], cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=60
    )


def test_settings_read_each_secret_from_the_file_its_FILE_variable_names(tmp_path):
    secret_key = "file-" + Fernet.generate_key().decode() + Fernet.generate_key().decode()
    new_key, old_key = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    files = {
        # `echo value > file` and `kubectl create secret --from-file` end with a line break.
        "SECRET_KEY": secret_key + "\n",
        "KEY_ENCRYPTION_KEYS": f"{new_key},{old_key}\n",
        "DATABASE_URL": "postgres://console:s3cret-from-file@db.internal:5432/console\r\n",
        "CELERY_BROKER_URL": "redis://:broker-pass@redis.internal:6379/0",
    }
    env = production_env()
    for name, value in files.items():
        path = tmp_path / name.lower()
        path.write_text(value)
        env[f"{name}_FILE"] = str(path)
    # The file wins over a plain variable of the same name (the image's or .env's default).
    env["DATABASE_URL"] = "postgres://console:from-the-environment@elsewhere:5432/console"

    result = settings_with(env)

    assert result.returncode == 0, result.stderr[-2000:]
    read = json.loads(result.stdout)
    assert read == {
        "secret": secret_key,
        "keys": [new_key, old_key],
        "db": "s3cret-from-file",
        "host": "db.internal",
        "broker": "redis://:broker-pass@redis.internal:6379/0",
    }


def test_a_FILE_variable_naming_a_missing_file_stops_the_start_naming_the_path_only(tmp_path):
    missing = tmp_path / "not-mounted" / "secret_key"
    env = production_env(SECRET_KEY="a-value-that-must-not-be-printed-" + "x" * 40, SECRET_KEY_FILE=str(missing))

    result = settings_with(env)

    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("django.core.exceptions.ImproperlyConfigured: SECRET_KEY_FILE names ")
    assert str(missing) in last_line and "No such file" in last_line
    assert "a-value-that-must-not-be-printed" not in result.stderr
