"""Test support: a real JWKS over HTTP, real signed tokens, and an HTTP client speaking as one caller."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from django.conf import settings
from django.test import Client

ISSUER = "http://idp.test"
AUDIENCE = "anamnesis-api"
ALL_SCOPES = ("memory:read memory:write workflow:read workflow:write consent:read consent:write grant:write "
              "audit:read")
PATIENT_SCOPES = "memory:read memory:write workflow:read workflow:write consent:read consent:write audit:read"


class KeyRing:
    def __init__(self) -> None:
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.rsa_kid = "test-rsa-1"
        self.ec_kid = "test-ec-1"

    def jwks(self) -> dict:
        rsa_jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.rsa.public_key()))
        rsa_jwk.update(kid=self.rsa_kid, use="sig", alg="RS256")
        ec_jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.ec.public_key()))
        ec_jwk.update(kid=self.ec_kid, use="sig", alg="ES256")
        return {"keys": [rsa_jwk, ec_jwk]}


class JwksServer:
    """A real HTTP server publishing the key ring; can be stopped to simulate an identity-provider outage, or held
    (``answering`` cleared: each request waits until it is set again) to simulate a slow one."""

    def __init__(self, keys: KeyRing) -> None:
        self.keys = keys
        self.hits = 0
        self.available = True
        self.answering = threading.Event()
        self.answering.set()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                outer.hits += 1
                outer.answering.wait(30)
                if not outer.available:
                    self.send_response(503)
                    self.end_headers()
                    return
                body = json.dumps(outer.keys.jwks()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/jwks"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def mint(keys: KeyRing, *, sub: str | None = "staff-1", org_id: str | uuid.UUID | None = None,
         patient_id: str | uuid.UUID | None = None, scope: str = ALL_SCOPES, alg: str = "RS256",
         kid: str | None = None, exp_in: int = 300, iat_offset: int = 0, issuer: str = ISSUER,
         audience: str | list[str] = AUDIENCE, drop: tuple[str, ...] = (), extra: dict | None = None,
         headers: dict | None = None, act: str | dict | None = None, azp: str | None = None,
         client_id: str | None = None) -> str:
    """A signed access token. ``act`` (an agent's id, or a whole RFC 8693 ``act`` object), ``azp`` and
    ``client_id`` make agents' tokens."""
    now = int(time.time())
    claims = {"iss": issuer, "aud": audience, "sub": sub, "iat": now + iat_offset, "exp": now + exp_in,
              "org_id": str(org_id) if org_id is not None else None, "scope": scope}
    if patient_id is not None:
        claims["patient_id"] = str(patient_id)
    if act is not None:
        claims["act"] = {"sub": act} if isinstance(act, str) else act
    if azp is not None:
        claims["azp"] = azp
    if client_id is not None:
        claims["client_id"] = client_id
    claims.update(extra or {})
    for name in drop:
        claims.pop(name, None)
    claims = {k: v for k, v in claims.items() if v is not None or k in (extra or {})}
    if alg == "ES256":
        key, kid = keys.ec, kid or keys.ec_kid
    else:
        key, kid = keys.rsa, kid or keys.rsa_kid
    return jwt.encode(claims, key, algorithm=alg, headers={"kid": kid, **(headers or {})})


class Api:
    """Drives the API over Django's HTTP stack (middleware, DRF, RLS) as one caller."""

    def __init__(self, token: str | None) -> None:
        self.token = token
        self.client = Client()

    def _headers(self, extra: dict | None) -> dict:
        h = {}
        if self.token is not None:
            h["HTTP_AUTHORIZATION"] = f"Bearer {self.token}"
        for k, v in (extra or {}).items():
            h["HTTP_" + k.upper().replace("-", "_")] = v
        return h

    def get(self, path: str, params: dict | None = None, headers: dict | None = None):
        return self.client.get(path, params or {}, **self._headers(headers))

    def post(self, path: str, body=None, headers: dict | None = None, raw: bytes | str | None = None):
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return self.client.post(path, data=data, content_type="application/json", **self._headers(headers))

    def request(self, method: str, path: str, body=None, headers: dict | None = None):
        data = json.dumps(body) if body is not None else ""
        return self.client.generic(method, path, data=data, content_type="application/json",
                                   **self._headers(headers))


def propose_many(keys: KeyRing, *, org_id: uuid.UUID, patient_id: uuid.UUID, consent_id: str, count: int) -> list[str]:
    """``count`` distinct proposals waiting for review for the patient, oldest first, made by as many agents acting
    for the patient as the cap per proposer (50) needs: more than a page of the proposals list."""
    made = []
    for i in range(count):
        agent, n = divmod(i, 40)
        api = Api(mint(keys, sub=f"patient-{patient_id}", org_id=org_id, patient_id=patient_id,
                       scope=PATIENT_SCOPES, act=f"proposer-agent-{agent}"))
        time_of_day = f"{6 + n // 6:02d}:{n % 6}0"
        r = api.post(f"/v1/patients/{patient_id}/memories/proposals", {
            "memory_type": "scheduling_preference", "fact": {"kind": "earliest_time", "time": time_of_day},
            "consent_purpose": "appointment_scheduling", "consent_record_id": consent_id, "source_ref": f"turn:{i}"})
        assert r.status_code == 201, r.content
        made.append(r.json()["memory_id"])
    return made


def remember_many(*, org_id: uuid.UUID, patient_id: uuid.UUID, consent_id: str, count: int) -> list[str]:
    """``count`` current scheduling preferences of the patient, each its own attribute (``earliest_time_000``, ...),
    written straight to the table as the patient: more than a page of the memory list. Their ids, in the list's
    order."""
    from datetime import UTC, datetime, timedelta

    from core.identity import ACTOR_PATIENT, Identity, identity_context
    from memory.models import Memory

    me = Identity(org_id=org_id, actor_sub=f"patient-{patient_id}", patient_self_id=patient_id,
                  scopes=frozenset({"memory:read", "memory:write"}), actor_kind=ACTOR_PATIENT)
    now = datetime.now(UTC)
    with identity_context(me):
        made = Memory.objects.bulk_create([
            Memory(organization_id=org_id, patient_id=patient_id, memory_class="preference",
                   memory_type="scheduling_preference", attribute=f"earliest_time_{i:03d}",
                   fact={"kind": "earliest_time", "time": "09:00"}, state="active", source="patient_stated",
                   policy_revision="x", consent_purpose="appointment_scheduling", consent_record_id=consent_id,
                   valid_from=now - timedelta(minutes=1), expires_at=now + timedelta(days=1), created_by=me.actor_sub)
            for i in range(count)])
    return [str(m.memory_id) for m in made]


def configure_identity_provider(url: str) -> None:
    settings.OIDC_JWKS_URL = url
    settings.OIDC_ISSUER = ISSUER
    settings.OIDC_AUDIENCE = AUDIENCE



def run_threads(count: int, target) -> list:
    """Run ``target(i)`` for i in range(count) in as many threads, released together; their results, in the order
    they finished. An exception in any thread fails the test. Each thread closes its own database connections
    (real commits: committed_db)."""
    from django.db import connections

    barrier = threading.Barrier(count)
    results: list = []
    errors: list = []

    def worker(i):
        try:
            barrier.wait(timeout=10)
            results.append(target(i))
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    return results


# A date and time as the service writes them: ISO 8601 (JSON, logs, FHIR) and the pages' "4 Dec 2026, 06:41".
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
                        r"|\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}")


def without_timestamps(text: str) -> str:
    """``text`` without its dates and times, for asserting that a fact's time of day ("06:41") is not in it: a
    timestamp holds the same five characters whenever the test runs in that minute."""
    return _TIMESTAMP.sub("<time>", text)
