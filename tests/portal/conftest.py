"""Portal test support: the real development identity provider (oidc-provider-mock) in a thread, users whose
claims each test sets with ``PUT /users/{sub}``, and a real login through the authorisation-code flow."""

from __future__ import annotations

import logging
import threading
import time
import types
import uuid
from urllib.parse import urlparse

import httpx
import pytest
from django.test import Client

from core.authentication import key_set_cache
from demo import devidp
from tests.conftest import register_organization
from tests.support import AUDIENCE, ISSUER

PORTAL_CLIENT_ID = "anamnesis-portal"


@pytest.fixture(autouse=True)
def counter_windows_start_with_the_test(monkeypatch):
    """The shared counters count in fixed windows (a minute for sign-ins): a test whose requests straddled a
    window's end saw the count start again, and its 429 never came (once in a fresh-check). The counters' clock runs
    from the start of the current minute as the test begins, at the real pace: every window that is a whole number
    of minutes has at least 59 s left, and Retry-After stays a true count of seconds."""
    import core.gate

    began = time.monotonic()
    minute = time.time() // 60 * 60 + 0.5
    monkeypatch.setattr(core.gate, "time", types.SimpleNamespace(time=lambda: minute + time.monotonic() - began))


@pytest.fixture(scope="session")
def dev_idp():
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = devidp.make_server("127.0.0.1", 0, audience=AUDIENCE, users={})
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def point_at_idp(settings, base: str, *, api_too: bool = False, world=None) -> None:
    settings.OIDC_OP_ISSUER = base
    settings.OIDC_OP_AUTHORIZATION_ENDPOINT = f"{base}/oauth2/authorize"
    settings.OIDC_OP_TOKEN_ENDPOINT = f"{base}/oauth2/token"
    settings.OIDC_OP_USER_ENDPOINT = f"{base}/userinfo"
    settings.OIDC_OP_JWKS_ENDPOINT = f"{base}/jwks"
    settings.OIDC_OP_END_SESSION_ENDPOINT = f"{base}/oauth2/end_session"
    settings.OIDC_RP_CLIENT_ID = PORTAL_CLIENT_ID
    # The test's organisations trust the provider too (as the demo's does): portal sessions are admitted like
    # API tokens, by the registry.
    if world is not None:
        for org in (world.org, world.other_org):
            register_organization(org, ISSUER, base)
    if not api_too:
        return  # the API keeps trusting the test key ring, so World's helpers arrange data as usual
    # The API trusts the same provider: its access tokens are JWTs for the API's audience.
    settings.OIDC_ISSUER = base
    settings.OIDC_JWKS_URL = f"{base}/jwks"
    settings.OIDC_AUDIENCE = AUDIENCE
    key_set_cache().clear()


class People:
    """Demo-like people of one test's organisation, registered at the provider."""

    def __init__(self, base: str, world) -> None:
        self.base = base
        self.org = world.org
        self.tag = uuid.uuid4().hex[:8]  # subs unique per test: the provider is shared by the session

    def _put(self, sub: str, claims: dict) -> str:
        devidp.put_users(self.base, {sub: claims})
        return sub

    def patient(self, patient_id: uuid.UUID, name: str = "Patient") -> str:
        return self._put(f"patient-{self.tag}-{patient_id}", {
            "name": name, "role": "patient", "org_id": str(self.org), "patient_id": str(patient_id),
            "scope": devidp.PATIENT_API_SCOPES})

    def staff(self, name: str = "nurse") -> str:
        return self._put(f"{name}-{self.tag}", {"name": name.title(), "role": "staff", "org_id": str(self.org),
                                                 "scope": devidp.STAFF_API_SCOPES})

    def admin(self, name: str = "admin") -> str:
        return self._put(f"{name}-{self.tag}", {"name": "Administrator", "role": "org_admin",
                                                 "org_id": str(self.org), "scope": devidp.ADMIN_API_SCOPES})

    def auditor(self) -> str:
        return self._put(f"auditor-{self.tag}", {"name": "Auditor", "role": "auditor", "org_id": str(self.org),
                                                  "scope": "audit:read"})

    def raw(self, sub: str, claims: dict) -> str:
        return self._put(f"{sub}-{self.tag}", claims)

    def access_token(self, sub: str) -> str:
        return devidp.agent_access_token(self.base, sub)


@pytest.fixture
def people(dev_idp, world, settings) -> People:
    point_at_idp(settings, dev_idp, world=world)
    return People(dev_idp, world)


def login(client: Client, base: str, sub: str, *, next_url: str | None = None):
    """A real authorisation-code flow: our /oidc/authenticate/ -> the provider's sign-in page (as ``sub``) ->
    our callback, which exchanges the code and verifies the ID token. Returns the callback's response."""
    start = client.get("/oidc/authenticate/" + (f"?next={next_url}" if next_url else ""))
    assert start.status_code == 302, start.status_code
    authorize = start["Location"]
    assert authorize.startswith(base + "/oauth2/authorize?")
    answer = httpx.post(authorize, data={"sub": sub}, follow_redirects=False, timeout=5)
    assert answer.status_code in (302, 303), answer.text[:300]
    back = urlparse(answer.headers["location"])
    return client.get(f"{back.path}?{back.query}")


@pytest.fixture
def signed_in(people, dev_idp):
    """signed_in(sub) -> a Django test client logged in as that provider subject."""

    def make(sub: str) -> Client:
        client = Client()
        response = login(client, dev_idp, sub)
        assert response.status_code == 302, response.content[:500]
        return client

    return make
