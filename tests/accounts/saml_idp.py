"""A SAML 2.0 identity provider in the test process (pysaml2's Server), for
the SAML sign-in tests: its signing key and certificate are generated per
provider (cryptography), its metadata is a file the console is given, and it
trusts the console's metadata as the console serves it. `answer` reads the
console's AuthnRequest from the redirect and makes the signed Response a real
provider would post back."""

from __future__ import annotations

import base64
import datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from saml2 import BINDING_HTTP_REDIRECT
from saml2.config import IdPConfig
from saml2.metadata import create_metadata_string
from saml2.saml import NAMEID_FORMAT_EMAILADDRESS, NameID
from saml2.server import Server
from saml2.xmldsig import DIGEST_SHA256, SIG_RSA_SHA256

ENTITY_ID = "https://idp.test/metadata"
SSO_URL = "https://idp.test/sso"
PASSWORD_CONTEXT = "urn:oasis:names:tc:SAML:2.0:ac:classes:Password"


def key_and_certificate(folder: Path, name: str) -> tuple[Path, Path]:
    """A fresh RSA key and a self-signed certificate for it, as PEM files."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    key_file, cert_file = folder / f"{name}.key", folder / f"{name}.crt"
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return key_file, cert_file


class InProcessIdP:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        key_file, cert_file = key_and_certificate(folder, "idp")
        self.config: dict[str, Any] = {
            "entityid": ENTITY_ID,
            "xmlsec_binary": "/usr/bin/xmlsec1",
            "key_file": str(key_file),
            "cert_file": str(cert_file),
            "service": {
                "idp": {
                    "endpoints": {"single_sign_on_service": [(SSO_URL, BINDING_HTTP_REDIRECT)]},
                    "name_id_format": [NAMEID_FORMAT_EMAILADDRESS],
                    "policy": {
                        "default": {
                            "lifetime": {"minutes": 5},
                            "attribute_restrictions": None,
                            "name_form": "urn:oasis:names:tc:SAML:2.0:attrname-format:basic",
                        }
                    },
                }
            },
            "metadata": {},
        }
        loaded = IdPConfig()
        loaded.load(dict(self.config))
        self.metadata_path = folder / "idp-metadata.xml"
        self.metadata_path.write_bytes(create_metadata_string(None, config=loaded, valid=1, sign=False))
        self.server: Server | None = None
        self.requests_seen = 0

    def trust(self, sp_metadata: str) -> None:
        """Know the console (its metadata, as served)."""
        config = IdPConfig()
        config.load({**self.config, "metadata": {"inline": [sp_metadata]}})
        self.server = Server(config=config)

    def answer(
        self, location: str, *, email: str, groups: list[str], signer: InProcessIdP | None = None
    ) -> dict[str, str]:
        """The form the person's browser posts back to the console's ACS for
        the AuthnRequest in `location` (the console's redirect): a Response
        signed by this provider, or by `signer` (a forger with another key)."""
        assert self.server is not None, "trust() the console first"
        query = parse_qs(urlsplit(location).query)
        assert location.startswith(SSO_URL)
        request = self.server.parse_authn_request(query["SAMLRequest"][0], BINDING_HTTP_REDIRECT)
        self.requests_seen += 1
        args = self.server.response_args(request.message)
        server = self.server if signer is None else signer.server
        assert server is not None
        response = server.create_authn_response(
            {"email": [email], "groups": groups, "givenName": ["Dana"], "sn": ["Scully"]},
            userid=email,
            name_id=NameID(format=NAMEID_FORMAT_EMAILADDRESS, text=email),
            authn={"class_ref": PASSWORD_CONTEXT},
            sign_assertion=True,
            sign_response=True,
            sign_alg=SIG_RSA_SHA256,
            digest_alg=DIGEST_SHA256,
            **args,
        )
        return {
            "SAMLResponse": base64.b64encode(str(response).encode()).decode(),
            "RelayState": query.get("RelayState", [""])[0],
        }
