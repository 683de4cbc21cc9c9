"""A tiny OpenID Connect provider for the single sign-on tests, served over
real HTTP on a free port (mozilla-django-oidc calls it with `requests`):
authorization (redirects back at once with a code), token (an RS256-signed
ID token with the nonce), userinfo and JWKS endpoints. The signing key is
generated per provider; `claims` is what userinfo says about the person."""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

CLIENT_ID = "console-test"
CLIENT_SECRET = "stub-client-secret"
KID = "stub-key-1"


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        pass


@dataclass
class StubProvider:
    claims: dict[str, Any]
    base_url: str = ""
    private_key: Any = field(default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048))
    # The key JWKS publishes: the signing key's unless a test forges tokens.
    jwks_key: Any = None
    codes: dict[str, str] = field(default_factory=dict)  # code -> nonce
    tokens: set[str] = field(default_factory=set)
    calls: list[str] = field(default_factory=list)
    # Claims the ID token carries beyond the standard ones (Entra ID puts `groups` or `roles` there).
    id_token_claims: dict[str, Any] = field(default_factory=dict)

    def endpoints(self) -> dict[str, str]:
        return {
            "OIDC_OP_AUTHORIZATION_ENDPOINT": f"{self.base_url}/authorize",
            "OIDC_OP_TOKEN_ENDPOINT": f"{self.base_url}/token",
            "OIDC_OP_USER_ENDPOINT": f"{self.base_url}/userinfo",
            "OIDC_OP_JWKS_ENDPOINT": f"{self.base_url}/jwks",
        }

    def __call__(self, environ, start_response):
        path = environ["PATH_INFO"]
        self.calls.append(path)
        query = {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
        if path == "/authorize":
            assert query["client_id"] == CLIENT_ID and query["response_type"] == "code"
            code = secrets.token_urlsafe(16)
            self.codes[code] = query.get("nonce", "")
            location = f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}"
            start_response("302 Found", [("Location", location)])
            return [b""]
        if path == "/token":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            form = {k: v[0] for k, v in parse_qs(environ["wsgi.input"].read(length).decode()).items()}
            if form.get("client_secret") != CLIENT_SECRET or form.get("code") not in self.codes:
                return self._json(start_response, "400 Bad Request", {"error": "invalid_grant"})
            nonce = self.codes.pop(form["code"])
            access_token = secrets.token_urlsafe(24)
            self.tokens.add(access_token)
            now = int(time.time())
            id_token = jwt.encode(
                {
                    "iss": self.base_url,
                    "aud": CLIENT_ID,
                    "sub": self.claims["sub"],
                    "email": self.claims.get("email"),
                    "nonce": nonce,
                    "iat": now,
                    "exp": now + 300,
                    **self.id_token_claims,
                },
                self.private_key,
                algorithm="RS256",
                headers={"kid": KID},
            )
            return self._json(
                start_response,
                "200 OK",
                {"access_token": access_token, "id_token": id_token, "token_type": "Bearer", "expires_in": 300},
            )
        if path == "/userinfo":
            token = environ.get("HTTP_AUTHORIZATION", "").removeprefix("Bearer ")
            if token not in self.tokens:
                return self._json(start_response, "401 Unauthorized", {"error": "invalid_token"})
            return self._json(start_response, "200 OK", self.claims)
        if path == "/.well-known/openid-configuration":
            return self._json(
                start_response,
                "200 OK",
                {
                    "issuer": self.base_url,
                    "authorization_endpoint": f"{self.base_url}/authorize",
                    "token_endpoint": f"{self.base_url}/token",
                    "userinfo_endpoint": f"{self.base_url}/userinfo",
                    "jwks_uri": f"{self.base_url}/jwks",
                },
            )
        if path == "/jwks":
            published = self.jwks_key or self.private_key
            jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(published.public_key()))
            return self._json(start_response, "200 OK", {"keys": [{**jwk, "kid": KID, "alg": "RS256", "use": "sig"}]})
        return self._json(start_response, "404 Not Found", {"error": "not_found"})

    @staticmethod
    def _json(start_response, status: str, body: dict[str, Any]):
        start_response(status, [("Content-Type", "application/json")])
        return [json.dumps(body).encode()]


@contextmanager
def running_provider(claims: dict[str, Any]) -> Iterator[StubProvider]:
    provider = StubProvider(claims=claims)
    server: WSGIServer = make_server("127.0.0.1", 0, provider, handler_class=QuietHandler)
    provider.base_url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()
