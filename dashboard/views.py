from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/home.html")


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:  # replaced by the foundation work
    return HttpResponse("ok")
