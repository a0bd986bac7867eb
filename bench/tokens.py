"""Identity for benchmarks: a signing key, a JWKS server on loopback that publishes it, and patients' tokens.

The service under test validates these tokens as it validates any provider's (``OIDC_JWKS_URL``,
``OIDC_ISSUER``, ``OIDC_AUDIENCE``), and admits an organisation's tokens only when the organisation trusts the
issuer (core.gate): :func:`register_organization` does what the operator does.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

# The issuer that benchmark databases' organisation rows and seed fingerprints name: changing it would make every
# seeded database (kept with --reuse) look foreign.
ISSUER = "http://idp.test"
AUDIENCE = "anamnesis-api"
PATIENT_SCOPES = "memory:read memory:write workflow:read workflow:write consent:read consent:write audit:read"
HOST = "127.0.0.1"


class SigningKey:
    """One RS256 key, published by :class:`JwksServer` under ``kid``."""

    def __init__(self, kid: str = "bench-rsa-1") -> None:
        self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = kid

    def jwks(self) -> dict:
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.private.public_key()))
        jwk.update(kid=self.kid, use="sig", alg="RS256")
        return {"keys": [jwk]}


class JwksServer:
    """The key's JWKS over real HTTP on loopback; ``hits`` counts the service's fetches (a benchmark reports them:
    the service should fetch once, then cache)."""

    def __init__(self, key: SigningKey) -> None:
        self.hits = 0
        body = json.dumps(key.jwks()).encode()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                outer.hits += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer((HOST, 0), Handler)
        self.url = f"http://{HOST}:{self.httpd.server_address[1]}/jwks"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def mint(key: SigningKey, *, sub: str, org_id: str | uuid.UUID, patient_id: str | uuid.UUID | None = None,
         scope: str = PATIENT_SCOPES, exp_in: int = 300) -> str:
    """A signed access token for ``sub`` in ``org_id`` (a patient's when ``patient_id`` is given)."""
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + exp_in, "org_id": str(org_id),
              "scope": scope}
    if patient_id is not None:
        claims["patient_id"] = str(patient_id)
    return jwt.encode(claims, key.private, algorithm="RS256", headers={"kid": key.kid})


def configure_identity_provider(url: str) -> None:
    """Point this process's settings at the JWKS (for requests served in-process, through Django's test client)."""
    from django.conf import settings

    settings.OIDC_JWKS_URL = url
    settings.OIDC_ISSUER = ISSUER
    settings.OIDC_AUDIENCE = AUDIENCE


def register_organization(org: uuid.UUID) -> None:
    """Register an organisation that trusts :data:`ISSUER`, as the operator does (owner role, committed)."""
    import psycopg
    from django.conf import settings

    with psycopg.connect(settings.DB_TOPOLOGY.owner.conninfo(), autocommit=True) as conn:
        conn.execute("INSERT INTO organization (id, name, created_at, trusted_issuers, administrator) "
                     "VALUES (%s, '', now(), %s, false) ON CONFLICT (id) DO UPDATE SET "
                     "trusted_issuers = EXCLUDED.trusted_issuers, administrator = EXCLUDED.administrator",
                     [org, [ISSUER]])
