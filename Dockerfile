# The console image: web (gunicorn), worker and beat (Celery) all run it.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    CONSOLE_ENV=production \
    WEB_HOST=0.0.0.0 \
    WEB_PORT=8000

WORKDIR /app

# pg_dump and pg_restore for `manage.py backup` / `restore` (docs/operations.md,
# "Backup"): they must be at least as new as the PostgreSQL server. xmlsec1: pysaml2 signs and
# checks SAML sign-in messages with it (dashboard/accounts/saml.py).
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-client xmlsec1 \
 && rm -rf /var/lib/apt/lists/*

# Dependencies first (from pyproject.toml), so code changes reuse this layer.
# Only [project] dependencies: the extras (`run`: the embedded brokers and
# SQLAlchemy; `test`) are for developer machines and CI, never the image
# (tests/ops/test_image.py).
# Optional extras operators choose by name, none by default:
# `docker-compose build --build-arg CONSOLE_EXTRAS=otel` adds OpenTelemetry
# (docs/operations.md, "Error reporting and traces").
ARG CONSOLE_EXTRAS=""
COPY pyproject.toml ./
RUN python -c "import os, tomllib; d = tomllib.load(open('pyproject.toml', 'rb')); chosen = [r for name in os.environ.get('CONSOLE_EXTRAS', '').split() for r in d['project']['optional-dependencies'][name]]; print('\n'.join(d['project']['dependencies'] + chosen))" > /tmp/requirements.txt \
 && pip install -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt

COPY . .

# Hashed, compressed static files for WhiteNoise's manifest storage. The
# secrets here exist only for this build step; the real ones come from the
# environment at run time.
RUN CELERY_BROKER_URL=redis://build-only \
    SECRET_KEY=collectstatic-only \
    KEY_ENCRYPTION_KEYS=$(python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())") \
    python manage.py collectstatic --noinput --verbosity 0

RUN useradd --create-home --uid 10001 console \
 && mkdir -p /app/var/imports /app/var/zips \
 && chown -R console:console /app/var
USER console

EXPOSE 8000
CMD ["gunicorn", "-c", "gunicorn.conf.py"]
