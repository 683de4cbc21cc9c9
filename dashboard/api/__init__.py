"""The one transport to the remote service (see client.py for the choices).

from dashboard.api import ServiceClient, Page, ApiResponse, ServerSentEvent
from dashboard.api import errors
"""

from dashboard.api import errors
from dashboard.api.client import ApiResponse, ServiceClient
from dashboard.api.pagination import Page
from dashboard.api.sse import ServerSentEvent

__all__ = ["ApiResponse", "Page", "ServerSentEvent", "ServiceClient", "errors"]
