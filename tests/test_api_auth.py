"""Bearer tokens: the attack matrix, identity-provider outages, scopes, and views that forget their scopes."""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from django.urls import get_resolver

from core.api import ScopedAPIView
from tests.conftest import memory_body
from tests.fakes.dribbling import DribblingServer
from tests.support import Api, mint

pytestmark = pytest.mark.django_db


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def _path(world) -> str:
    return f"/v1/patients/{world.patient_a}/memories"


def test_a_valid_token_is_accepted(world):
    r = world.patient(world.patient_a).get(_path(world))
    assert r.status_code == 200, r.content
    assert r.json() == {"items": [], "next_cursor": None}


def test_es256_tokens_are_accepted(world, keyring):
    token = mint(keyring, sub="p", org_id=world.org, patient_id=world.patient_a, alg="ES256")
    assert Api(token).get(_path(world)).status_code == 200


def _attack_tokens(world, keyring) -> dict[str, str]:
    good = dict(org_id=world.org, patient_id=world.patient_a, sub="patient-a")
    valid = mint(keyring, **good)
    header, payload, signature = valid.split(".")
    claims = jwt.decode(valid, options={"verify_signature": False})
    tampered = _b64({**claims, "patient_id": str(world.patient_b)})
    public_pem = keyring.rsa.public_key().public_bytes(serialization.Encoding.PEM,
                                                       serialization.PublicFormat.SubjectPublicKeyInfo)
    hs256_header = _b64({"alg": "HS256", "typ": "JWT", "kid": keyring.rsa_kid})
    import hashlib
    import hmac

    signing_input = f"{hs256_header}.{payload}".encode()
    hs256_sig = base64.urlsafe_b64encode(hmac.new(public_pem, signing_input, hashlib.sha256).digest()).rstrip(
        b"=").decode()
    return {
        "expired": mint(keyring, **good, exp_in=-3600, iat_offset=-7200),
        "not yet valid (iat in the future)": mint(keyring, **good, iat_offset=3600, exp_in=7200),
        "not yet valid (nbf in the future)": mint(keyring, **good, extra={"nbf": int(time.time()) + 3600}),
        "wrong issuer": mint(keyring, **good, issuer="http://evil.test"),
        "wrong audience": mint(keyring, **good, audience="another-api"),
        "alg none": _b64({"alg": "none", "typ": "JWT"}) + "." + payload + ".",
        "HS256 signed with the public key": f"{hs256_header}.{payload}.{hs256_sig}",
        "unknown kid": mint(keyring, **good, kid="rotated-away"),
        "missing sub": mint(keyring, org_id=world.org, patient_id=world.patient_a, sub=None),
        "missing org_id": mint(keyring, sub="x", patient_id=world.patient_a),
        "malformed org_id": mint(keyring, sub="x", org_id="not-a-uuid"),
        "malformed patient_id": mint(keyring, sub="x", org_id=world.org, patient_id="123"),
        # Python's UUID parser reads these too; no identity provider writes them
        "org_id in braces": mint(keyring, sub="x", org_id="{" + str(world.org) + "}"),
        "org_id as urn:uuid": mint(keyring, sub="x", org_id=f"urn:uuid:{world.org}"),
        "patient_id without dashes": mint(keyring, sub="x", org_id=world.org, patient_id=world.patient_a.hex),
        "scope split by a tab": mint(keyring, **good, scope="memory:read\tmemory:write"),
        "scope split by a newline": mint(keyring, **good, scope="memory:read\nmemory:write"),
        "tampered payload": f"{header}.{tampered}.{signature}",
        "missing exp": mint(keyring, **good, drop=("exp",)),
        "missing iat": mint(keyring, **good, drop=("iat",)),
        "embedded jwk header": mint(keyring, **good, headers={"jwk": {"kty": "RSA"}}),
        "jku header": mint(keyring, **good, headers={"jku": "http://evil.test/jwks"}),
        "garbage": "not.a.token",
        "RS256 token naming the EC key": mint(keyring, **good, alg="RS256", kid=keyring.ec_kid),
    }


def test_a_request_without_credentials_is_challenged_without_an_error_code(world, client):
    """RFC 6750 section 3.1: a request with no credentials is answered ``WWW-Authenticate: Bearer`` with no error
    code (it said ``error="invalid_token"``, as for a token refused); one whose token is refused keeps the code."""
    for path in (_path(world), f"/v1/patients/{world.patient_a}/memories/{uuid.uuid4()}", "/v1/grants"):
        r = client.get(path)
        assert r.status_code == 401 and r.json()["code"] == "invalid_token" and r["WWW-Authenticate"] == "Bearer"
    refused = client.get(_path(world), HTTP_AUTHORIZATION="Bearer not-a-jwt")
    assert refused.status_code == 401 and refused["WWW-Authenticate"] == 'Bearer error="invalid_token"'


def test_token_attack_matrix_is_refused_with_401(world, keyring):
    failures = {}
    for name, token in _attack_tokens(world, keyring).items():
        r = Api(token).get(_path(world))
        if r.status_code != 401 or r.json().get("code") != "invalid_token":
            failures[name] = (r.status_code, r.content[:200])
        else:
            assert r["WWW-Authenticate"].startswith("Bearer")
    assert failures == {}


def test_missing_or_malformed_authorization_header_is_401(world):
    client = Api(None)
    assert client.get(_path(world)).status_code == 401
    r = client.client.get(_path(world), HTTP_AUTHORIZATION="Basic dXNlcjpwYXNz")
    assert r.status_code == 401 and r.json()["code"] == "invalid_token"


def test_identity_provider_down_is_503_never_401(world, identity_provider):
    identity_provider.available = False
    r = world.patient(world.patient_a).get(_path(world))
    assert r.status_code == 503
    assert r.json()["code"] == "identity_provider_unavailable"
    assert int(r["Retry-After"]) >= 1, "as every 503, it says when to come back"


def test_unreachable_jwks_host_is_503(world, settings):
    settings.OIDC_JWKS_URL = "http://127.0.0.1:9/jwks"  # discard port: nothing listens
    r = world.patient(world.patient_a).get(_path(world))
    assert r.status_code == 503 and r.json()["code"] == "identity_provider_unavailable"


def test_a_jwks_endpoint_dribbling_its_answer_is_503_within_its_timeouts(world, settings):
    """httpx's timeout bounds each read, not the fetch: a JWKS endpoint sending its key set a byte every 0.05 s
    (each well within the 0.5 s timeout) held the request, and every other one waiting for the set, for the whole
    answer (about 5 s here). The fetch now ends within its connect and read timeouts together, as the provider's
    outage."""
    with DribblingServer(json.dumps({"keys": []}).encode()) as jwks:
        _assert_outage_within(world, settings, f"{jwks.url}/jwks", timeout=0.5, seconds=2.5)


def _assert_outage_within(world, settings, jwks_url: str, *, timeout: float, seconds: float) -> None:
    """A request whose key set comes from ``jwks_url`` is the provider's outage (503) within ``seconds``."""
    settings.OIDC_JWKS_URL = jwks_url
    settings.OIDC_JWKS_TIMEOUT_SECONDS = timeout
    started = time.monotonic()
    r = world.patient(world.patient_a).get(_path(world))
    assert r.status_code == 503 and r.json()["code"] == "identity_provider_unavailable"
    assert time.monotonic() - started < seconds


def test_a_jwks_endpoint_sending_without_end_is_503_at_once_and_not_read_whole(world, settings):
    """A key set is a few kilobytes. An endpoint that answers 200 and then sends without end was read whole until
    the fetch's deadline (2 x the timeout), about 300 MB a second into the worker's memory, to fail then; the
    fetch now stops past core.authentication.MAX_KEY_SET_BYTES, as the provider's outage, at once."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    sent = []

    class Endless(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            chunk = b" " * 65536
            try:
                self.wfile.write(b'{"keys": [')
                while True:
                    self.wfile.write(chunk)
                    sent.append(len(chunk))
            except OSError:
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Endless)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        _assert_outage_within(world, settings, f"http://127.0.0.1:{server.server_address[1]}/jwks", timeout=2.0,
                              seconds=1.5)
        time.sleep(0.2)
        assert sum(sent) < 32 * 1024 * 1024  # what the sockets' buffers hold, not what the deadline allows
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("document", [{"keys": None}, {"keys": 5}, {"keys": "abc"}, {"keys": {}}, [1], "keys", {}])
def test_a_jwks_answer_that_is_no_key_set_is_the_providers_outage(world, settings, document):
    """An answer that holds no key set (``keys`` null, a number, no list at all) was a 500 for ``null`` and
    numbers, and an empty set (every token 401) for the rest; it is the provider's failure, like an error status:
    503, and a set kept from before still served."""
    with DribblingServer(json.dumps(document).encode(), interval=0) as jwks:
        _assert_outage_within(world, settings, f"{jwks.url}/jwks", timeout=2.0, seconds=3.0)


@pytest.mark.parametrize("unusable", [{"kty": "RSA", "kid": "x", "n": "AQAB", "e": "AQAB", "alg": "none"},
                                      {"kty": "oct", "kid": "x"}, {"kty": "EC", "kid": "x", "crv": 5}])
def test_a_key_set_with_a_key_we_cannot_read_serves_its_other_keys(world, keyring, settings, unusable):
    """A key PyJWT cannot build (``"alg": "none"``, an ``oct`` key without ``k``) made the whole fetch a 500; it is
    left out, and tokens signed by the set's other keys are accepted."""
    document = keyring.jwks()
    document["keys"].insert(0, unusable)
    with DribblingServer(json.dumps(document).encode(), interval=0) as jwks:
        settings.OIDC_JWKS_URL = f"{jwks.url}/jwks"
        assert world.patient(world.patient_a).get(_path(world)).status_code == 200


def test_key_set_is_cached_and_unknown_kid_refetch_is_rate_limited(world, keyring, identity_provider, settings):
    settings.OIDC_JWKS_MIN_REFETCH_SECONDS = 60
    from core.authentication import key_set_cache

    key_set_cache().clear()
    api = world.patient(world.patient_a)
    before = identity_provider.hits
    for _ in range(5):
        assert api.get(_path(world)).status_code == 200
    assert identity_provider.hits - before == 1
    for i in range(5):
        assert Api(mint(keyring, sub="x", org_id=world.org, kid=f"random-{i}")).get(_path(world)).status_code == 401
    assert identity_provider.hits - before == 1, "random key ids must not trigger a fetch each"


def test_a_key_set_past_its_time_is_kept_while_its_provider_is_down_and_no_longer(world, keyring, identity_provider,
                                                                                   settings):
    """The provider's JWKS endpoint goes down after the key set was fetched. Within OIDC_JWKS_STALE_SECONDS past
    the set's cache time, the keys it last published still verify tokens (one verified before, and one never
    seen), and the endpoint is asked again at most once per OIDC_JWKS_MIN_REFETCH_SECONDS, not on every request.
    Past that, the outage is 503 (never 401); once the provider answers again, so does the API."""
    settings.OIDC_JWKS_CACHE_SECONDS = 0.2
    settings.OIDC_JWKS_STALE_SECONDS = 1.0
    settings.OIDC_JWKS_MIN_REFETCH_SECONDS = 60
    known = world.patient(world.patient_a)
    assert known.get(_path(world)).status_code == 200
    fetched = time.monotonic()
    identity_provider.available = False
    asked = identity_provider.hits
    time.sleep(0.3)  # past the cache time, within the grace
    assert known.get(_path(world)).status_code == 200
    unseen = Api(mint(keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                      scope="memory:read"))
    for _ in range(3):
        assert unseen.get(_path(world)).status_code == 200
        assert known.get(_path(world)).status_code == 200
    assert identity_provider.hits == asked + 1, "one refresh tried, then the stale set served without asking"
    assert time.monotonic() - fetched < 1.2, "the requests above ran within the grace"

    time.sleep(max(0.0, fetched + 1.3 - time.monotonic()))  # past the grace
    for api in (known, unseen):
        r = api.get(_path(world))
        assert r.status_code == 503 and r.json()["code"] == "identity_provider_unavailable"

    identity_provider.available = True
    time.sleep(1.1)  # a failure is answered as such for a second, without asking again
    assert known.get(_path(world)).status_code == 200


def test_a_refreshed_key_set_keeps_the_tokens_it_verified_until_their_key_goes(world, keyring, identity_provider,
                                                                              settings):
    """A refresh that finds a key published unchanged keeps the very key object, so the tokens it verified stay
    remembered (not verified again every cache period); a key the provider no longer publishes under that id
    ends them at the next refresh."""
    from core.authentication import key_set_cache, verified_tokens

    settings.OIDC_JWKS_CACHE_SECONDS = 0.2
    token = mint(keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                 scope="memory:read")
    assert Api(token).get(_path(world)).status_code == 200
    remembered = verified_tokens.get(token)
    key = key_set_cache().get(keyring.rsa_kid)
    asked = identity_provider.hits
    time.sleep(0.3)
    assert verified_tokens.get(token) is remembered  # looked up after the refresh it set off
    assert identity_provider.hits == asked + 1 and key_set_cache().get(keyring.rsa_kid) is key

    old_kid = keyring.rsa_kid
    keyring.rsa_kid = "rotated-3"
    try:
        time.sleep(0.3)
        assert verified_tokens.get(token) is None
        r = Api(token).get(_path(world))
        assert r.status_code == 401 and r.json()["code"] == "invalid_token"
    finally:
        keyring.rsa_kid = old_kid


def test_a_slow_refresh_holds_no_request_that_has_a_usable_key_set(committed_db, world, keyring, identity_provider,
                                                                   settings):
    """The provider is slow to answer the refresh one request set off: every other request goes on with the set
    it has (it does not queue behind the fetch), and the slow one is answered when the provider is."""
    import threading

    settings.OIDC_JWKS_CACHE_SECONDS = 0.2
    first, second = world.patient(world.patient_a), world.patient(world.patient_b)
    assert first.get(_path(world)).status_code == 200
    assert second.get(f"/v1/patients/{world.patient_b}/memories").status_code == 200
    time.sleep(0.3)
    identity_provider.answering.clear()
    asked = identity_provider.hits
    answers: list[int] = []
    slow = threading.Thread(target=lambda: answers.append(first.get(_path(world)).status_code))
    slow.start()
    try:
        deadline = time.monotonic() + 10
        while identity_provider.hits == asked:  # the refresh has reached the provider, which holds it
            assert time.monotonic() < deadline
            time.sleep(0.01)
        for _ in range(3):
            assert second.get(f"/v1/patients/{world.patient_b}/memories").status_code == 200
        assert slow.is_alive() and not answers, "the refreshing request is still waiting for the provider"
    finally:
        identity_provider.answering.set()
        slow.join(10)
    assert answers == [200] and identity_provider.hits == asked + 1


def test_tokens_naming_unknown_keys_do_not_queue_behind_a_provider_that_failed_and_is_being_asked_again(
        world, keyring, identity_provider, settings):
    """A token naming a key id the set lacks refetches the set (at most once per OIDC_JWKS_MIN_REFETCH_SECONDS),
    and other such tokens used to wait for that fetch. With the provider failing and then holding the next fetch
    until its deadline, anyone could send tokens naming random key ids (no valid signature needed) and hold every
    worker thread for the whole deadline, once per refetch period, for an answer that was the failure all along.
    Once the provider has failed, a fetch under way is not waited for: those tokens are refused at once, while
    tokens of known keys go on with the kept set."""
    import threading

    settings.OIDC_JWKS_MIN_REFETCH_SECONDS = 0.2
    settings.OIDC_JWKS_TIMEOUT_SECONDS = 2.0
    known = world.patient(world.patient_a)
    assert known.get(_path(world)).status_code == 200

    def unknown(i: int) -> Api:
        return Api(mint(keyring, sub="x", org_id=world.org, kid=f"random-{i}"))

    identity_provider.available = False
    time.sleep(0.3)
    assert unknown(0).get(_path(world)).status_code == 503  # asked, and it failed
    time.sleep(0.3)
    identity_provider.answering.clear()  # the next fetch is held until its deadline
    asked = identity_provider.hits
    held = threading.Thread(target=lambda: unknown(1).get(_path(world)))
    held.start()
    try:
        deadline = time.monotonic() + 10
        while identity_provider.hits == asked:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        for i in range(2, 5):
            started = time.monotonic()
            r = unknown(i).get(_path(world))
            assert r.status_code == 401 and r.json()["code"] == "invalid_token"
            assert time.monotonic() - started < 1.0, "it waited for the fetch under way"
        assert known.get(_path(world)).status_code == 200
        assert held.is_alive(), "the fetch is still held by the provider"
    finally:
        identity_provider.answering.set()
        held.join(10)


def test_a_new_signing_key_is_picked_up_on_unknown_kid(world, keyring, identity_provider):
    from core.authentication import key_set_cache

    api = world.patient(world.patient_a)
    assert api.get(_path(world)).status_code == 200
    old_kid = keyring.rsa_kid
    keyring.rsa_kid = "rotated-2"
    try:
        token = mint(keyring, sub="p", org_id=world.org, patient_id=world.patient_a)
        assert Api(token).get(_path(world)).status_code == 200
    finally:
        keyring.rsa_kid = old_kid
        key_set_cache().clear()


def test_missing_scope_is_403_insufficient_scope(world):
    """RFC 6750 section 3: the challenge of a 403 insufficient_scope names the scopes the operation needs (it named
    none, leaving a client nothing to ask its provider for)."""
    api = world.patient(world.patient_a, scope="memory:read")
    r = api.post(_path(world), {"memory_type": "scheduling_preference"})
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"
    assert r["WWW-Authenticate"] == 'Bearer error="insufficient_scope", scope="memory:write"'
    assert world.patient(world.patient_a, scope="").get(_path(world)).status_code == 403


def test_a_missing_scope_is_audited_in_the_patients_history_as_other_refusals_are(world):
    """A refusal before any handler ran (the token is genuine, its scopes do not reach the action) is in the
    patient's history like every other 403: a nurse's directory token tried to read the memories."""
    r = world.staff("nurse-7", scope="patient:read").get(_path(world))
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"
    history = world.patient(world.patient_a).get("/v1/audit-events", {"patient_id": str(world.patient_a)}).json()
    assert [(e["action"], e["outcome"], e["reason"]) for e in history["items"] if e["actor_sub"] == "nurse-7"] == [
        ("memory.list", "denied", "insufficient_scope")]


def _api_views():
    def walk(patterns, prefix=""):
        for p in patterns:
            if hasattr(p, "url_patterns"):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            else:
                yield prefix + str(p.pattern), p

    for route, pattern in walk(get_resolver().url_patterns):
        view_class = getattr(pattern.callback, "view_class", None)
        if view_class is not None and route.startswith("v1/") and route not in ("v1/schema", "v1/docs"):
            yield route, view_class


def test_every_api_view_declares_scopes_for_every_method_it_serves():
    views = list(_api_views())
    assert len(views) >= 8
    for route, view_class in views:
        assert issubclass(view_class, ScopedAPIView), route
        methods = [m.upper() for m in ("get", "post", "put", "patch", "delete") if hasattr(view_class, m)]
        declared = view_class.required_scopes
        for method in methods:
            scopes = declared.get(method) if isinstance(declared, dict) else declared
            assert scopes, f"{route} {method} declares no scopes"


def test_a_view_without_scopes_cannot_even_be_defined():
    with pytest.raises(TypeError, match="required_scopes"):
        type("Forgetful", (ScopedAPIView,), {"get": lambda self, request: None})


def test_patient_token_for_one_patient_cannot_read_another(world):
    world.consent(world.patient_b)
    r = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_b}/memories")
    assert r.status_code == 200 and r.json()["items"] == []


def test_correlation_id_is_echoed_or_generated(world):
    api = world.patient(world.patient_a)
    r = api.get(_path(world), headers={"X-Request-ID": "abc-123"})
    assert r["X-Request-ID"] == "abc-123"
    r = api.get(_path(world), headers={"X-Request-ID": "bad id with spaces"})
    assert uuid.UUID(r["X-Request-ID"])


def test_no_answer_is_kept_by_a_cache(world):
    """Memories, exports and access history are personal data: every API answer, errors too, says no-store."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(_path(world), memory_body(cid)).status_code == 201
    for path, status in ((_path(world), 200), (f"{_path(world)}/search?q=morning", 200), ("/v1/audit-events", 200),
                         (f"/v1/patients/{world.patient_a}/consents", 200),
                         (f"/v1/patients/{world.patient_b}/memories/{uuid.uuid4()}", 404)):
        r = api.get(path)
        assert r.status_code == status and "no-store" in r["Cache-Control"], path
    r = Api("not-a-token").get(_path(world))
    assert r.status_code == 401 and "no-store" in r["Cache-Control"]


def test_a_host_we_do_not_serve_is_a_problem_document_for_the_api(world):
    r = Api(None).client.get(_path(world), HTTP_HOST="zebulon-quixfeather.evil")
    assert r.status_code == 400 and r["Content-Type"] == "application/problem+json"
    assert r.json()["code"] == "bad_request"


def test_keys_published_under_one_key_id_each_verify_the_tokens_they_signed(world, keyring, settings):
    """RFC 7517 4.5 lets a provider publish keys of different types under one ``kid`` (an RSA and an EC key held as
    alternatives). The key set kept the last key of each id, so tokens signed by the other were refused (401) and
    which one depended on the order of the set. A token is checked against the key of its id whose algorithm is
    the token's; a token whose signature no key of its id verifies is still refused."""
    document = keyring.jwks()
    for key in document["keys"]:
        key["kid"] = "shared"
    claims = dict(sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a, kid="shared")
    for order in (document["keys"], document["keys"][::-1]):
        with DribblingServer(json.dumps({"keys": order}).encode(), interval=0) as jwks:
            settings.OIDC_JWKS_URL = f"{jwks.url}/jwks"
            for alg in ("RS256", "ES256"):
                r = Api(mint(keyring, alg=alg, **claims)).get(_path(world))
                assert r.status_code == 200, (alg, r.content)
            forged = mint(keyring, alg="RS256", **claims)
            r = Api(forged[:-4] + ("AAAA" if not forged.endswith("AAAA") else "BBBB")).get(_path(world))
            assert r.status_code == 401 and r.json()["code"] == "invalid_token"


def test_a_token_for_several_audiences_is_accepted_only_from_an_authorized_party_we_know(world, keyring, settings):
    """OIDC Core 3.1.3.7: a token issued for several audiences must name the client it was issued to (``azp``), and
    that client must be one we trust. Any token listing our audience among others was accepted, whoever it was
    issued to: a token another service's client obtained for itself and us could be replayed here. A token for
    several audiences is now refused (401) unless its ``azp`` is one of our agents (``OIDC_AGENT_CLIENT_IDS``; not
    the portal's client, whose ID tokens are no access tokens); a token for our audience alone is accepted as
    ever, in a list too."""
    settings.OIDC_AGENT_CLIENT_IDS = frozenset({"booking-bot"})
    good = dict(org_id=world.org, patient_id=world.patient_a, sub="patient-a")
    both = ["anamnesis-api", "another-api"]
    refused = {
        "no azp": mint(keyring, **good, audience=both),
        "azp of a client we do not know": mint(keyring, **good, audience=both, azp="another-client"),
        "azp not a string": mint(keyring, **good, audience=both, extra={"azp": ["booking-bot"]}),
        "azp in another letter case": mint(keyring, **good, audience=both, azp="Booking-Bot"),
        "azp of the portal": mint(keyring, **good, audience=both, azp=settings.OIDC_RP_CLIENT_ID),
    }
    for name, token in refused.items():
        r = Api(token).get(_path(world))
        assert (r.status_code, r.json()["code"]) == (401, "invalid_token"), name
    for token in (mint(keyring, **good, audience=both, azp="booking-bot"),
                  mint(keyring, **good, audience=["anamnesis-api"]),
                  mint(keyring, **good, audience=["anamnesis-api", "anamnesis-api"]),
                  mint(keyring, **good, azp="another-client")):
        assert Api(token).get(_path(world)).status_code == 200
