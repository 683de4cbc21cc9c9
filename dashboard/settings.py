"""Console settings: every value comes from the environment through one
`environ.Env()`, each with an embedded default so that a fresh machine runs
with nothing installed (SQLite, a filesystem broker, the local sandbox).

Set CONSOLE_ENV=production for a hosted deployment: DEBUG is off, secrets must
come from the environment, and `manage.py check --deploy` passes.
"""

from __future__ import annotations

from pathlib import Path

import environ

from dashboard.envfile import ensure_env_file

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()

CONSOLE_ENV = env.str("CONSOLE_ENV", default="development")
PRODUCTION = CONSOLE_ENV == "production"

if not PRODUCTION:
    ensure_env_file(BASE_DIR / ".env")
    VAR_DIR.mkdir(exist_ok=True)
# Real environment variables win over the file.
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DJANGO_DEBUG", default=not PRODUCTION)
SECRET_KEY = env.str("SECRET_KEY")
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=[] if PRODUCTION else ["localhost", "127.0.0.1", "[::1]", "testserver"]
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# Fernet keys for stored API keys, newest first. Never derived from SECRET_KEY.
KEY_ENCRYPTION_KEYS = env.list("KEY_ENCRYPTION_KEYS")

# The remote service. The default is the local sandbox started by `make run`.
# SANDBOX_PORT moves the local sandbox (and so this default) off 8100.
SANDBOX_BASE_URL = f"http://127.0.0.1:{env.int('SANDBOX_PORT', default=8100)}"
SERVICE_BASE_URL = env.str("SERVICE_BASE_URL", default=SANDBOX_BASE_URL).rstrip("/")
SERVICE_APP_URL = env.str("SERVICE_APP_URL", default=f"{SANDBOX_BASE_URL}/app").rstrip("/")
SERVICE_TIMEOUT = env.float("SERVICE_TIMEOUT", default=30.0)
SERVICE_SLOW_TIMEOUT = env.float("SERVICE_SLOW_TIMEOUT", default=800.0)
SERVICE_MAX_RETRIES = env.int("SERVICE_MAX_RETRIES", default=2)
SERVICE_CONNECT_TIMEOUT = env.float("SERVICE_CONNECT_TIMEOUT", default=5.0)
# A longer Retry-After is not slept inside a web request: RateLimitedError says "try again in N s".
SERVICE_RETRY_AFTER_CAP = env.float("SERVICE_RETRY_AFTER_CAP", default=10.0)
# All the reads of one web request together, retries and their waits included: a hung
# service gives the error page after this long. Writes, workers and pollers keep their timeouts.
SERVICE_READ_BUDGET = env.float("SERVICE_READ_BUDGET", default=10.0)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "template_partials",
    "csp",
    "dashboard",
    "dashboard.keys",
    "dashboard.live",
    "studio",
    "agents",
    "objects",
]
if not PRODUCTION:
    # `manage.py bootstrap`, `runsandbox`, `sandbox_keys`: developer machines only.
    INSTALLED_APPS.append("devtools")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "dashboard.middleware.HtmxLoginRedirectMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "dashboard.web.workspace.WorkspaceMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "dashboard.web.remote_errors.RemoteErrorMiddleware",
]

ROOT_URLCONF = "dashboard.urls"
WSGI_APPLICATION = "dashboard.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "dashboard.web.context_processors.console",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'console.sqlite3'}"),
}
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # `make run` writes from web threads, the worker and beat at once: WAL lets
    # readers go on during a write, and the timeout waits for the write lock
    # instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A cache shared by every process: object definitions are cached per
# workspace and dropped on edit, which must be seen by all web workers.
# `locmem://` (used by `make test` and the team docs) is an alias of django-environ's `locmemcache://`.
environ.Env.CACHE_SCHEMES.setdefault("locmem", "django.core.cache.backends.locmem.LocMemCache")
CACHES = {"default": env.cache("CACHE_URL", default=f"filecache://{VAR_DIR / 'cache'}")}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
if not PRODUCTION:
    # WhiteNoise warns on every start when STATIC_ROOT is missing; in development
    # it serves from the finders, so an empty folder is enough.
    STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# Celery: Redis in production; an embedded filesystem broker on a fresh machine.
# "localhost" only silences kombu's "No hostname was supplied" warning; the folders below are what count.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://localhost//")
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    _broker_dir.mkdir(parents=True, exist_ok=True)
    # kombu needs the same existing folder for in and out, in every process.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir),
        "data_folder_out": str(_broker_dir),
        "processed_folder": str(_broker_dir),
        # Exchange tables for worker control; the default is ./control in the working directory.
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_BEAT_TICK_SECONDS = env.float("CELERY_BEAT_TICK_SECONDS", default=2.0)

# Security. Production mode passes `manage.py check --deploy` with no warnings.
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the body's hx-headers, not the cookie.
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        # Thumbnails and Studio images come from the remote service; outside
        # production also from a local sandbox on any port (tests pick free ones).
        "img-src": ["'self'", "data:", "https:", SERVICE_BASE_URL]
        + ([] if PRODUCTION else ["http://127.0.0.1:*", "http://localhost:*"]),
        "connect-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
        "base-uri": ["'self'"],
    }
}

# Logs never carry an API key: a filter masks anything shaped like one.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact_keys": {"()": "dashboard.logging.RedactApiKeys"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact_keys"]},
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"httpx": {"level": "WARNING"}, "httpcore": {"level": "WARNING"}},
}
