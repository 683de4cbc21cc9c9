"""The console's URLs, plus what only the benchmarks serve: a trivial view
(the floor any view pays under the console's middleware) and the admin peer's
throwaway admin site."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from bench.peer.admin import peer_site


def trivial(request: HttpRequest) -> HttpResponse:
    return HttpResponse(b"ok", content_type="text/plain")


urlpatterns = [
    path("bench/trivial", trivial, name="bench_trivial"),
    path("bench/admin/", peer_site.urls),
    path("", include("dashboard.urls")),
]
