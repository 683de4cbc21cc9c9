"""The one signed call (dashboard/signed_calls.py), at the transport
(respx): outside development the name is resolved and checked, and the call
goes to the very address that was checked, the name kept for Host and TLS
(SNI), so a name answering a private address a moment later cannot reach
inside; a name with any inside address is refused; redirects are not followed."""

from __future__ import annotations

import httpx
import pytest
import respx

from dashboard import signed_calls
from dashboard.signed_calls import AddressRefused, CallProblem, address_check, post_signed

PUBLIC = "93.184.215.14"


def test_the_call_goes_to_the_address_checked_with_the_name_kept(monkeypatch):
    monkeypatch.setattr(signed_calls, "_addresses", lambda host: [PUBLIC])
    with respx.mock(assert_all_called=True) as mock:
        route = mock.post(f"https://{PUBLIC}:8443/hooks/x").mock(return_value=httpx.Response(204))
        answer = post_signed(
            "https://hooks.example.com:8443/hooks/x", body=b"{}", headers={}, timeout=1, allow_private=False
        )
    assert answer.status == 204
    request = route.calls.last.request
    assert request.headers["host"] == "hooks.example.com:8443"
    assert request.extensions["sni_hostname"] == "hooks.example.com"


@pytest.mark.parametrize("inside", ["127.0.0.1", "10.0.0.8", "169.254.169.254", "::1", "fd00::1", "::ffff:10.0.0.1"])
def test_a_name_with_any_inside_address_is_refused_before_any_call(monkeypatch, inside):
    monkeypatch.setattr(signed_calls, "_addresses", lambda host: [PUBLIC, inside])
    with respx.mock(assert_all_called=False) as mock:
        route = mock.route().mock(return_value=httpx.Response(200))
        with pytest.raises(CallProblem, match="inside the console's own network"):
            post_signed("https://hooks.example.com/x", body=b"{}", headers={}, timeout=1, allow_private=False)
        with pytest.raises(AddressRefused):
            address_check("https://hooks.example.com/x", allow_http=False, allow_private=False)
    assert not route.called


def test_a_redirect_is_an_answer_not_followed():
    with respx.mock(assert_all_called=True) as mock:
        mock.post("https://hooks.example.com/x").mock(
            return_value=httpx.Response(302, headers={"Location": "http://169.254.169.254/"})
        )
        answer = post_signed("https://hooks.example.com/x", body=b"{}", headers={}, timeout=1)
    assert answer.status == 302


def test_a_name_that_is_not_found_is_said_so(monkeypatch):
    with pytest.raises(AddressRefused, match="could not be found"):
        address_check("https://no-such-host.invalid/x", allow_http=False, allow_private=False)
