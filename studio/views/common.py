"""Small pieces the Studio's views share."""

from __future__ import annotations

from django.http import HttpRequest

from dashboard.api import errors
from dashboard.web.remote_errors import RemoteErrorView, describe_remote_error


def box_for(request: HttpRequest, exc: errors.ApiError) -> RemoteErrorView:
    """A message box for a read that failed inside a page (a pane, a picker):
    the rest of the page stands; Retry reloads the page."""
    box = describe_remote_error(request, exc)
    box.retry = "link"
    box.retry_url = request.get_full_path()
    return box
