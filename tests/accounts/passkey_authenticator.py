"""A software authenticator for the passkey tests: answers the console's
WebAuthn options as a browser with a platform authenticator would (the JSON
that static/js/passkeys.js posts), with a real P-256 key, "none"
attestation and a signature counter, so py_webauthn checks real signatures.
Options to answer with a wrong origin, a counter set back, or without user
verification, to see each refused."""

from __future__ import annotations

import hashlib
import json
import os
import struct
from base64 import urlsafe_b64encode
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40


def b64url(data: bytes) -> str:
    return urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class SoftAuthenticator:
    def __init__(self, *, origin: str = "http://testserver") -> None:
        self.origin = origin
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.sign_count = 0
        self.user_handle = ""
        self.rp_id = ""

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": challenge, "origin": origin or self.origin, "crossOrigin": False}
        ).encode()

    def _cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})

    def create(self, options: dict[str, Any] | str, *, origin: str | None = None) -> str:
        """The answer to navigator.credentials.create() with these options."""
        options = json.loads(options) if isinstance(options, str) else options
        self.rp_id = options["rp"]["id"]
        self.user_handle = options["user"]["id"]
        attested = bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + self._cose_key()
        auth_data = (
            hashlib.sha256(self.rp_id.encode()).digest()
            + bytes([UP | UV | AT])
            + struct.pack(">I", self.sign_count)
            + attested
        )
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        return json.dumps(
            {
                "id": b64url(self.credential_id),
                "rawId": b64url(self.credential_id),
                "type": "public-key",
                "response": {
                    "clientDataJSON": b64url(client_data),
                    "attestationObject": b64url(attestation),
                    "transports": ["internal"],
                },
                "clientExtensionResults": {},
            }
        )

    def get(
        self,
        options: dict[str, Any] | str,
        *,
        origin: str | None = None,
        verified: bool = True,
        counter: int | None = None,
        user_handle: str | None = None,
    ) -> str:
        """The answer to navigator.credentials.get(): the counter goes up by
        one unless `counter` says what to send."""
        options = json.loads(options) if isinstance(options, str) else options
        self.sign_count = self.sign_count + 1 if counter is None else counter
        rp_id = options.get("rpId") or self.rp_id
        auth_data = (
            hashlib.sha256(rp_id.encode()).digest()
            + bytes([UP | (UV if verified else 0)])
            + struct.pack(">I", self.sign_count)
        )
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signature = self.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return json.dumps(
            {
                "id": b64url(self.credential_id),
                "rawId": b64url(self.credential_id),
                "type": "public-key",
                "response": {
                    "clientDataJSON": b64url(client_data),
                    "authenticatorData": b64url(auth_data),
                    "signature": b64url(signature),
                    "userHandle": self.user_handle if user_handle is None else user_handle,
                },
                "clientExtensionResults": {},
            }
        )
