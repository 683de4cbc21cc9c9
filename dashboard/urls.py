from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from dashboard import views
from dashboard.assistants import views as assistant_views
from dashboard.console_api.api import console_api_urls
from dashboard.frame.key_gate import keyless_urls
from dashboard.home import views as home_views
from dashboard.metrics import views as metrics_views
from dashboard.palette import views as palette_views
from dashboard.people import language
from dashboard.reach import views_push
from dashboard.system import views as system_views

urlpatterns = [
    path("", home_views.home, name="home"),
    path("home/running", home_views.running, name="home_running"),
    path("home/getting-started", home_views.getting_started_toggle, name="home_getting_started"),
    path("home/needs-you", home_views.needs_you, name="home_needs_you"),
    path("home/sections", home_views.sections, name="home_sections"),
    path("healthz", views.healthz, name="healthz"),
    # static/js's strings in a language other than English (dashboard/people/language.py).
    path("i18n/<str:language>/<str:version>.js", language.javascript_catalog, name="javascript_catalog"),
    # The command palette's results (Ctrl/Cmd-K; dashboard/palette).
    path("palette/", palette_views.palette, name="palette"),
    # Probes (no login): the process answers; the console can do its work (dashboard/health.py).
    path("livez", system_views.livez, name="livez"),
    path("readyz", system_views.readyz, name="readyz"),
    path("system/", include("dashboard.system.urls")),
    # Web Push's service worker (root scope) and the web app manifest, fetched by the browser (no login).
    path("sw.js", views_push.service_worker, name="service_worker"),
    path("manifest.webmanifest", views_push.manifest, name="manifest"),
    # Prometheus' scrape (dashboard/metrics): 404 unless configured, then a token or an allowed address.
    path("metrics", metrics_views.metrics, name="metrics"),
    # The state read from the database, the same from every web: scraped once (dashboard/metrics/scrape.py).
    path("metrics/state", metrics_views.metrics_state, name="metrics_state"),
    path("accounts/", include("dashboard.accounts.urls")),
    # The sign-in policy and a person's second-factor reset: People pages served by dashboard.accounts.
    path("people/", include("dashboard.accounts.urls_policy")),
    # Directory provisioning (SCIM): its tokens, for Administrators (dashboard/directory).
    path("people/directory/", include("dashboard.directory.urls")),
    path("people/", include("dashboard.people.urls")),
    path("", include("dashboard.keys.urls")),
    path("live/", include("dashboard.live.urls")),
    path("inbox/", include("dashboard.inbox.urls")),
    path("notifications/", include("dashboard.reach.urls")),
    path("events/", include("dashboard.events.urls")),
    path("audit/", include("dashboard.audit.urls")),
    path("studio/", include("studio.urls")),
    path("", include("agents.urls")),
    path("objects/", include("objects.urls")),
    # The console's own API for scripts and assistants (personal access tokens; dashboard/console_api).
    path("api/v1/", console_api_urls()),
    # The console's MCP server for assistants (a personal access token; dashboard/assistants, docs/assistants.md).
    path("api/mcp", assistant_views.mcp, name="mcp"),
    path("assistants/", include("dashboard.assistants.urls")),
    # SCIM 2.0 for a company directory (a directory token, no session; dashboard/directory, docs/operations.md).
    path("scim/v2/", include("dashboard.directory.urls_scim")),
    path("account/tokens/", include("dashboard.tokens.urls")),
    # The console's own accounts and keys, for its staff whatever their key.
    path("admin/", keyless_urls(admin.site.urls)),
]

# The server error page names the request id (dashboard/observability/views.py).
handler500 = "dashboard.observability.views.server_error"
# An address under /api/ that is no route answers the API's one error body (dashboard/console_api).
handler404 = "dashboard.console_api.api.not_found"

if settings.OIDC_ENABLED:
    # Single sign-on; the library is imported only when it is configured.
    urlpatterns += [path("accounts/", include("dashboard.accounts.oidc"))]

if settings.SAML_ENABLED:
    # SAML 2.0 sign-in; the library is imported only when it is configured.
    urlpatterns += [path("accounts/", include("dashboard.accounts.saml"))]
