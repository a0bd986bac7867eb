"""The development and test identity provider: ``oidc-provider-mock`` (a real OpenID Connect provider built on
Authlib: authorisation-code flow, RS256-signed ID tokens, JWKS, end_session), set up with the demo accounts.

Two settings of ours on top of the package, both through its public ``init_app`` and Authlib's documented hooks:

* access tokens are JWTs (RFC 9068: ``typ`` ``at+jwt``), signed by the provider's own key with the API's claims
  (``iss aud sub iat exp org_id patient_id scope``, and an agent's ``act`` and ``purpose_of_use``), so a demo
  agent can call the API with a token from the same provider the portal logs in with; the package alone issues
  opaque access tokens;
* Werkzeug's interactive debugger, which the package switches on, is switched off again.

What it does not do (and production providers must): it accepts any client id and secret, and it does not check
PKCE code verifiers (our portal sends S256 challenges all the same). Never run it in production: :func:`build_app`
refuses when ``ANAMNESIS_ENV=production``.
"""

from __future__ import annotations

import json
import os
import secrets
import time
import uuid
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx

DEMO_ORG = "00000000-0000-4000-8000-00000000c0de"
ALICE = "00000000-0000-4000-8000-0000000a11ce"
BOB = "00000000-0000-4000-8000-000000000b0b"
# A patient's rights over the API as in the portal: view, correct, delete and export (export:read); staff export
# with a grant. An agent's token carries the patient's scopes, and the API refuses it an export all the same
PATIENT_API_SCOPES = ("memory:read memory:write consent:read consent:write audit:read workflow:read workflow:write "
                      "patient:read export:read")
STAFF_API_SCOPES = ("memory:read memory:write consent:read consent:write workflow:read workflow:write patient:read "
                    "export:read")
ADMIN_API_SCOPES = ("grant:write consent:read audit:read workflow:reconcile workflow:reconcile:org patient:read "
                    "patient:write memory:read memory_type:write")

# sub -> claims. The sub is what a person types (or clicks) on the provider's sign-in page.
DEMO_USERS: dict[str, dict] = {
    "alice": {"name": "Alice (demo patient)", "role": "patient", "org_id": DEMO_ORG, "patient_id": ALICE,
              "scope": PATIENT_API_SCOPES},
    "bob": {"name": "Bob (demo patient)", "role": "patient", "org_id": DEMO_ORG, "patient_id": BOB,
            "scope": PATIENT_API_SCOPES},
    "nurse-demo": {"name": "Nurse (demo)", "role": "staff", "org_id": DEMO_ORG, "scope": STAFF_API_SCOPES},
    "admin-demo": {"name": "Administrator (demo)", "role": "org_admin", "org_id": DEMO_ORG,
                   "scope": ADMIN_API_SCOPES},
    "auditor-demo": {"name": "Auditor (demo)", "role": "auditor", "org_id": DEMO_ORG, "scope": "audit:read"},
}
# A demo agent acting for Alice (no role: the portal refuses it; the API accepts its access token). Its tokens carry
# the RFC 8693 ``act`` claim, so the API treats it as an agent, never as Alice: what it records is a proposal.
# The demo agent books appointments: its token names that one purpose of use, so each read it makes names it too.
DEMO_AGENT = {"scheduling-agent": {"org_id": DEMO_ORG, "patient_id": ALICE, "scope": PATIENT_API_SCOPES,
                                   "act": {"sub": "scheduling-agent"}, "purpose_of_use": "appointment_scheduling"}}


def _refuse_in_production() -> None:
    if os.environ.get("ANAMNESIS_ENV", "development") == "production":
        raise RuntimeError("the development identity provider never runs with ANAMNESIS_ENV=production")


def _jwt_access_token_generator(audience: str, max_age: timedelta):
    import flask
    import jwt as pyjwt

    def generate(client, grant_type, user, scope):
        storage = flask.g.oidc_provider_mock_storage
        key = storage.jwk.as_dict(is_private=True)
        private = pyjwt.algorithms.RSAAlgorithm.from_jwk(json.dumps(key))
        now = int(time.time())
        claims = {"iss": flask.request.host_url.rstrip("/"), "aud": audience, "sub": user.sub,
                  "client_id": client.get_client_id(), "iat": now, "exp": now + int(max_age.total_seconds()),
                  "jti": str(uuid.uuid4())}
        for name in ("org_id", "patient_id", "scope", "role", "act", "purpose_of_use"):
            if user.claims.get(name) is not None:
                claims[name] = user.claims[name]
        return pyjwt.encode(claims, private, algorithm="RS256", headers={"kid": key["kid"], "typ": "at+jwt"})

    return generate


def build_app(*, audience: str = "anamnesis-api", users: dict[str, dict] | None = None,
              token_max_age: timedelta = timedelta(minutes=15)):
    """The provider as a WSGI (Flask) app, with the demo users unless ``users`` is given."""
    _refuse_in_production()
    os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")  # plain http on 127.0.0.1 only

    import flask
    import oidc_provider_mock
    import werkzeug.debug
    from oidc_provider_mock import User, init_app

    # The package's sign-in and sign-out pages are templates of its own package.
    app = flask.Flask("anamnesis_dev_idp", template_folder=Path(oidc_provider_mock.__file__).parent / "templates")
    app.config["OAUTH2_ACCESS_TOKEN_GENERATOR"] = _jwt_access_token_generator(audience, token_max_age)
    people = {**DEMO_USERS, **DEMO_AGENT} if users is None else users
    init_app(app, require_nonce=False, issue_refresh_token=False, access_token_max_age=token_max_age,
             user_claims=[User(sub=sub, claims=dict(claims)) for sub, claims in people.items()])
    app.secret_key = secrets.token_bytes(16)
    app.debug = False
    if isinstance(app.wsgi_app, werkzeug.debug.DebuggedApplication):
        app.wsgi_app = app.wsgi_app.app
    return app


def make_server(host: str = "127.0.0.1", port: int = 8001, **kwargs):
    """A threaded Werkzeug server for the provider (``serve_forever()`` to run, ``shutdown()`` to stop)."""
    import werkzeug.serving

    return werkzeug.serving.make_server(host, port, build_app(**kwargs), threaded=True)


def put_users(base_url: str, users: dict[str, dict], timeout: float = 5.0) -> None:
    """Set (or change) users' claims on a running provider: ``PUT /users/{sub}``."""
    for sub, claims in users.items():
        httpx.put(f"{base_url}/users/{sub}", json=claims, timeout=timeout).raise_for_status()


def sign_in(base_url: str, sub: str, *, client_id: str, redirect_uri: str, scope: str = "openid",
            extra: Iterable[tuple[str, str]] = (), timeout: float = 5.0) -> str:
    """Drive the provider's sign-in page as ``sub`` (what a person does with a click) and return the redirect
    URL carrying the authorisation code. For tests and the demo agent; browsers do this themselves."""
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "scope": scope,
              "state": secrets.token_urlsafe(16), **dict(extra)}
    response = httpx.post(f"{base_url}/oauth2/authorize", params=params, data={"sub": sub}, timeout=timeout,
                          follow_redirects=False)
    if response.status_code not in (302, 303):
        raise RuntimeError(f"the provider did not issue a code (HTTP {response.status_code})")
    return response.headers["location"]


def agent_access_token(base_url: str, sub: str = "scheduling-agent", *, client_id: str = "demo-agent",
                       timeout: float = 5.0) -> str:
    """An API access token (JWT) for a demo account, issued by the provider: sign-in, then the code exchange."""


    redirect_uri = "http://127.0.0.1/agent-callback"
    location = sign_in(base_url, sub, client_id=client_id, redirect_uri=redirect_uri, timeout=timeout)
    code = parse_qs(urlparse(location).query)["code"][0]
    response = httpx.post(f"{base_url}/oauth2/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "client_id": client_id,
        "client_secret": "demo-agent-secret"}, timeout=timeout)
    response.raise_for_status()
    return response.json()["access_token"]
