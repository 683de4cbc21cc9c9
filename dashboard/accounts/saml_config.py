"""The djangosaml2 configuration (SAML_CONFIG) from the console's SAML settings,
pure: dashboard/settings.py builds it at start, and the tests build one for an
identity provider of their own. Nothing here imports pysaml2 or Django, so a
console without SAML never loads the library.

The console is a service provider that signs nothing and asks for signed
assertions: an assertion (or the response around it) the identity provider
did not sign with the key in its metadata is refused.
"""

from __future__ import annotations

import shutil
from typing import Any

BINDING_HTTP_POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
NAMEID_FORMAT_EMAILADDRESS = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"
# Where the console answers (dashboard/accounts/saml.py, under /accounts/).
ACS_PATH = "/accounts/saml/acs/"
METADATA_PATH = "/accounts/saml/metadata/"


def saml_metadata_source(where: str) -> dict[str, Any]:
    """pysaml2's metadata source for SAML_IDP_METADATA: an http(s) address is
    read remotely (kept an hour by dashboard/accounts/saml.py), anything else
    is a file path."""
    if where.startswith(("https://", "http://")):
        return {"remote": [{"url": where}]}
    return {"local": [where]}


def saml_config_build(*, base_url: str, entity_id: str, idp_metadata: str, provider_name: str) -> dict[str, Any]:
    """SAML_CONFIG for pysaml2's SPConfig: `base_url` is the console's address
    (CONSOLE_BASE_URL), `entity_id` the SP's entity id (its metadata address
    when empty)."""
    base_url = base_url.rstrip("/")
    return {
        "entityid": entity_id or f"{base_url}{METADATA_PATH}",
        "xmlsec_binary": shutil.which("xmlsec1") or "/usr/bin/xmlsec1",
        # Attributes pysaml2 has no map for (Entra ID's claim URIs, "groups") are kept under their names.
        "allow_unknown_attributes": True,
        "service": {
            "sp": {
                "name": f"Workspace Console ({provider_name})",
                "name_id_format": NAMEID_FORMAT_EMAILADDRESS,
                "endpoints": {"assertion_consumer_service": [(f"{base_url}{ACS_PATH}", BINDING_HTTP_POST)]},
                # Only answers to a sign-in the console started (no IdP-initiated sign-in: its replay is harder to stop).
                "allow_unsolicited": False,
                "authn_requests_signed": False,
                "logout_requests_signed": False,
                # Okta signs the response and the assertion, Entra ID the assertion by default: either is enough.
                "want_response_signed": False,
                "want_assertions_signed": False,
                "want_assertions_or_response_signed": True,
            },
        },
        "metadata": saml_metadata_source(idp_metadata),
        "debug": False,
    }
