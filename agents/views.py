from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "agents/index.html")


@require_GET
def approvals(request: HttpRequest) -> HttpResponse:
    return render(request, "agents/approvals.html")
