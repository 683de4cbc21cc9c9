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

# Dependencies first (from pyproject.toml), so code changes reuse this layer.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt \
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
 && mkdir -p /app/var/imports \
 && chown -R console:console /app/var
USER console

EXPOSE 8000
CMD ["gunicorn", "-c", "gunicorn.conf.py"]
