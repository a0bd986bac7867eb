"""Tenants are provisioned, tokens are bounded: organisations exist for the API only once registered with the
issuers they trust; token dates are numbers and lifetimes bounded; production insists on https."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

import pytest
from django.core.management import CommandError, call_command

from core.authentication import key_set_cache
from tests.conftest import admin_connect, memory_body, register_organization
from tests.support import ISSUER, Api, mint

SECOND_ISSUER = "http://second-hospital.test"


def _count(sql: str, *params) -> int:
    with admin_connect() as conn:
        return conn.execute(sql, params).fetchone()[0]


def _memories(api: Api, patient) -> int:
    return api.get(f"/v1/patients/{patient}/memories").status_code


@pytest.mark.django_db
def test_a_token_for_an_unregistered_organisation_is_refused_and_leaves_no_trace(world, keyring):
    stranger = uuid.uuid4()
    patient = uuid.uuid4()
    api = Api(mint(keyring, sub="p", org_id=stranger, patient_id=patient))
    r = api.get(f"/v1/patients/{patient}/memories")
    assert r.status_code == 403 and r.json()["code"] == "unknown_organization", r.content
    r = api.post(f"/v1/patients/{patient}/consents", {"purpose": "appointment_scheduling"})
    assert r.status_code == 403 and r.json()["code"] == "unknown_organization"
    assert _count("SELECT count(*) FROM organization WHERE id = %s", stranger) == 0
    assert _count("SELECT count(*) FROM audit_event WHERE organization_id = %s", stranger) == 0
    assert _count("SELECT count(*) FROM patient_consent WHERE organization_id = %s", stranger) == 0


@pytest.mark.django_db
def test_each_organisation_trusts_only_its_own_issuers(world, keyring, settings, jwks_server):
    settings.OIDC_TRUSTED_ISSUERS = [
        {"issuer": ISSUER, "jwks_url": jwks_server.url, "audience": "anamnesis-api"},
        {"issuer": SECOND_ISSUER, "jwks_url": jwks_server.url + "?second", "audience": "second-api"},
    ]
    second_org = uuid.uuid4()
    register_organization(second_org, SECOND_ISSUER)
    patient = uuid.uuid4()
    # the second hospital's provider, its own JWKS URL and audience, for its own organisation
    ok = Api(mint(keyring, sub="p", org_id=second_org, patient_id=patient, issuer=SECOND_ISSUER,
                  audience="second-api"))
    assert _memories(ok, patient) == 200
    # the same provider naming the first hospital's organisation: that organisation does not trust it
    r = Api(mint(keyring, sub="p", org_id=world.org, patient_id=patient, issuer=SECOND_ISSUER,
                 audience="second-api")).get(f"/v1/patients/{patient}/memories")
    assert r.status_code == 403 and r.json()["code"] == "unknown_organization"
    # and the first provider cannot speak for the second hospital
    r = Api(mint(keyring, sub="p", org_id=second_org, patient_id=patient)).get(f"/v1/patients/{patient}/memories")
    assert r.status_code == 403 and r.json()["code"] == "unknown_organization"
    # an issuer the deployment does not know at all is an invalid token, and audiences are per issuer
    assert _memories(Api(mint(keyring, sub="p", org_id=second_org, patient_id=patient,
                              issuer="http://unknown.test")), patient) == 401
    assert _memories(Api(mint(keyring, sub="p", org_id=second_org, patient_id=patient, issuer=SECOND_ISSUER)),
                     patient) == 401
    assert key_set_cache(jwks_server.url + "?second").url.endswith("?second")


def _actors(world) -> set[str]:
    """Who the audit trail names (as the patient reads it: "who used my information")."""
    return {e["actor_sub"] for e in world.patient(world.patient_a).get("/v1/audit-events").json()["items"]}


def _two_issuers(settings, jwks_server, **second) -> None:
    settings.OIDC_TRUSTED_ISSUERS = [
        {"issuer": ISSUER, "jwks_url": jwks_server.url, "audience": "anamnesis-api"},
        {"issuer": SECOND_ISSUER, "jwks_url": jwks_server.url + "?second", "audience": "anamnesis-api", **second},
    ]


@pytest.mark.django_db
def test_a_subject_is_someone_only_at_their_own_issuer(world, keyring, settings, jwks_server):
    """One organisation trusting two providers: the second's ``nurse-9`` is not the first's ``nurse-9`` (OIDC
    subjects are unique per issuer), so it inherits neither their grants nor their receipts; it is named
    ``<issuer>#nurse-9`` wherever the service names people. A bare subject posing as a namespaced one is refused."""
    _two_issuers(settings, jwks_server)
    register_organization(world.org, ISSUER, SECOND_ISSUER)
    cid = world.consent(world.patient_a)
    assert world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories",
                                               memory_body(cid)).status_code == 201
    world.grant(world.patient_a, "nurse-9", "appointment_scheduling")
    first = Api(mint(keyring, sub="nurse-9", org_id=world.org))
    second = Api(mint(keyring, sub="nurse-9", org_id=world.org, issuer=SECOND_ISSUER))
    path = f"/v1/patients/{world.patient_a}/memories"
    assert len(first.get(path).json()["items"]) == 1
    r = second.get(path)
    assert r.status_code == 200 and r.json()["items"] == [], "the first provider's nurse-9 holds the grant"
    assert f"{SECOND_ISSUER}#nurse-9" in _actors(world)
    # a grant to the second provider's user, by its namespaced name, works
    world.grant(world.patient_a, f"{SECOND_ISSUER}#nurse-9", "appointment_scheduling")
    assert len(second.get(path).json()["items"]) == 1
    # the first provider cannot mint that name for one of its own users
    forged = Api(mint(keyring, sub=f"{SECOND_ISSUER}#nurse-9", org_id=world.org))
    assert forged.get(path).status_code == 401
    # agents too: the second provider's scheduling agent is named with its issuer, and cannot be forged
    agent = Api(mint(keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                     issuer=SECOND_ISSUER, extra={"act": {"sub": "booking-bot"}}))
    assert agent.get(path).status_code == 200
    events = world.patient(world.patient_a).get("/v1/audit-events").json()["items"]
    assert f"{SECOND_ISSUER}#booking-bot" in {e["agent_client_id"] for e in events}
    forged_agent = Api(mint(keyring, sub="x", org_id=world.org, patient_id=world.patient_a,
                            extra={"act": {"sub": f"{SECOND_ISSUER}#booking-bot"}}))
    assert forged_agent.get(path).status_code == 401
    # a patient's receipts are theirs at their own provider only
    assert world.patient(world.patient_a).request("DELETE", path).status_code == 200
    other_alice = Api(mint(keyring, sub=f"patient-{world.patient_a}", org_id=world.org, issuer=SECOND_ISSUER))
    r = other_alice.get(f"/v1/patients/{world.patient_a}/deletions")
    assert r.status_code == 200 and r.json()["items"] == [], r.content


@pytest.mark.django_db
def test_two_providers_may_share_their_users_when_configured_to(world, keyring, settings, jwks_server):
    _two_issuers(settings, jwks_server, subject_namespace="")
    register_organization(world.org, ISSUER, SECOND_ISSUER)
    world.consent(world.patient_a)
    world.grant(world.patient_a, "nurse-9", "appointment_scheduling")
    second = Api(mint(keyring, sub="nurse-9", org_id=world.org, issuer=SECOND_ISSUER))
    assert second.get(f"/v1/patients/{world.patient_a}/consents").status_code == 200
    assert "nurse-9" in _actors(world) and f"{SECOND_ISSUER}#nurse-9" not in _actors(world)


@pytest.mark.django_db
@pytest.mark.parametrize("claims", [
    {"exp": "9999999999"}, {"iat": "1700000000"}, {"nbf": "1700000000"}, {"exp": True}, {"iat": None},
    {"exp": 1e400}, {"nbf": [1]},
])
def test_token_dates_must_be_numbers(world, keyring, claims):
    r = Api(mint(keyring, sub="p", org_id=world.org, patient_id=world.patient_a, extra=claims)).get(
        f"/v1/patients/{world.patient_a}/memories")
    assert r.status_code == 401 and r.json()["code"] == "invalid_token", (claims, r.content)


@pytest.mark.django_db
def test_token_lifetime_is_bounded(world, keyring, settings):
    def status(**kw):
        return Api(mint(keyring, sub="p", org_id=world.org, patient_id=world.patient_a, **kw)).get(
            f"/v1/patients/{world.patient_a}/memories").status_code

    assert status(exp_in=3600) == 200
    assert status(exp_in=3601) == 401
    assert status(exp_in=100 * 365 * 86400) == 401
    settings.OIDC_MAX_TOKEN_LIFETIME_SECONDS = 600
    assert status(exp_in=900) == 401
    assert status(exp_in=600) == 200


@pytest.mark.django_db
@pytest.mark.parametrize("sub", ["nurse\x00", "a\ud800b",
                                 # control characters: a subject is printed in audit trails (it was a 500)
                                 "nurse\tdemo", "nurse\ndemo", "a\rb", "a\x1bb", "a\x7fb", "a\x85b",
                                 # invisible or direction-changing: "\u202eecila" shows as "alice"
                                 "ali\u2028ce", "\u202eecila", "ali\u200bce", "\ufeffalice"])
def test_unstorable_characters_in_claims_are_an_invalid_token(world, keyring, sub):
    r = Api(mint(keyring, sub=sub, org_id=world.org)).get(f"/v1/patients/{world.patient_a}/memories")
    assert r.status_code == 401 and r.json()["code"] == "invalid_token"
    r = Api(mint(keyring, sub="nurse", org_id=world.org, scope="memory:read\x00")).get(
        f"/v1/patients/{world.patient_a}/memories")
    assert r.status_code == 401


@pytest.mark.django_db
def test_only_a_registry_administrator_lists_and_registers_organisations(world, keyring):
    with_scope = Api(mint(keyring, sub="ops", org_id=world.org, scope="organization:admin"))
    # the scope alone, from a tenant's provider, is not enough: the tenant sees its own row, registers nothing
    r = with_scope.get("/v1/organizations")
    assert r.status_code == 200 and [o["id"] for o in r.json()["items"]] == [str(world.org)]
    new = uuid.uuid4()
    r = with_scope.post("/v1/organizations", {"id": str(new), "name": "Elsewhere", "trusted_issuers": [ISSUER]})
    assert r.status_code == 403, r.content
    assert _count("SELECT count(*) FROM organization WHERE id = %s", new) == 0
    assert Api(mint(keyring, sub="ops", org_id=world.org)).get("/v1/organizations").status_code == 403

    operator_org = uuid.uuid4()
    register_organization(operator_org, administrator=True)
    operator = Api(mint(keyring, sub="ops", org_id=operator_org, scope="organization:admin"))
    r = operator.post("/v1/organizations", {"id": str(new), "name": "St Elsewhere", "trusted_issuers": [ISSUER]})
    assert r.status_code == 201, r.content
    assert r.json()["trusted_issuers"] == [ISSUER] and r.json()["administrator"] is False
    listed = {o["id"] for o in operator.get("/v1/organizations").json()["items"]}
    assert {str(world.org), str(world.other_org), str(new)} <= listed
    # newest first, a page at a time: the next page goes on from the last one given
    first = operator.get("/v1/organizations?limit=1").json()
    assert len(first["items"]) == 1 and first["next_cursor"]
    second = operator.get(f"/v1/organizations?limit=1&cursor={first['next_cursor']}").json()
    assert len(second["items"]) == 1 and second["items"][0]["id"] != first["items"][0]["id"]
    assert second["items"][0]["created_at"] <= first["items"][0]["created_at"]
    assert operator.get("/v1/organizations?cursor=nonsense").status_code == 422
    # the new tenant's tokens are admitted at once
    patient = uuid.uuid4()
    assert _memories(Api(mint(keyring, sub="p", org_id=new, patient_id=patient)), patient) == 200
    again = operator.post("/v1/organizations", {"id": str(new), "name": "x", "trusted_issuers": [ISSUER]})
    assert again.status_code == 409
    for bad in ({"trusted_issuers": []}, {"trusted_issuers": ["ftp://x"]}, {"trusted_issuers": [ISSUER],
                                                                             "administrator": True}):
        r = operator.post("/v1/organizations", bad)
        assert r.status_code == 422 and r.json()["code"] == "validation_error", (bad, r.content)


@pytest.mark.django_db
@pytest.mark.parametrize("caller", ["patient", "agent for a patient", "agent for staff"])
def test_a_patient_or_an_agent_is_no_registry_administrator_whatever_its_scopes(world, keyring, caller):
    """Which providers an organisation trusts decides who can speak for its people: a person of the operator's
    organisation decides it, never a patient's token, nor an AI agent's (which a prompt could steer), even one
    holding ``organization:admin``. Both were served as administrators: they listed every organisation and its
    issuers and registered new ones. Now 403 as for grants (``agent_cannot_grant`` for an agent acting for staff),
    and nothing registered."""
    operator_org = uuid.uuid4()
    register_organization(operator_org, administrator=True)
    claims = {"patient": {"patient_id": uuid.uuid4()},
              "agent for a patient": {"patient_id": uuid.uuid4(), "extra": {"act": {"sub": "intake-agent"}}},
              "agent for staff": {"extra": {"act": {"sub": "intake-agent"}}}}[caller]
    api = Api(mint(keyring, sub="ops", org_id=operator_org, scope="organization:admin", **claims))
    listed = api.get("/v1/organizations")
    assert listed.status_code == 403, listed.content
    assert listed.json()["code"] == ("agent_cannot_grant" if caller == "agent for staff" else "forbidden")
    new = uuid.uuid4()
    r = api.post("/v1/organizations", {"id": str(new), "name": "Rogue", "trusted_issuers": ["https://idp.evil.test"]})
    assert r.status_code == 403, r.content
    assert _count("SELECT count(*) FROM organization WHERE id = %s", new) == 0
    # the operator's staff still administer the registry
    operator = Api(mint(keyring, sub="ops", org_id=operator_org, scope="organization:admin"))
    assert operator.get("/v1/organizations").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["St\u202eesle", "St\u0007Else", "St\u200bElse", "St\u2028Else"])
def test_an_organisation_name_people_cannot_read_is_refused_and_nothing_registered(world, keyring, name):
    """An organisation's name is one line of visible text, as a patient's or staff member's: a control, invisible
    or direction character is 422 ``unstorable_character`` and no organisation is registered."""
    operator_org = uuid.uuid4()
    register_organization(operator_org, administrator=True)
    operator = Api(mint(keyring, sub="ops", org_id=operator_org, scope="organization:admin"))
    new = uuid.uuid4()
    r = operator.post("/v1/organizations", {"id": str(new), "name": name, "trusted_issuers": [ISSUER]})
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("name", "unstorable_character")]
    assert _count("SELECT count(*) FROM organization WHERE id = %s", new) == 0


def test_register_organization_command_admits_the_organisation(committed_db, keyring):
    org, patient = uuid.uuid4(), uuid.uuid4()
    api = Api(mint(keyring, sub="p", org_id=org, patient_id=patient))
    assert _memories(api, patient) == 403
    call_command("register_organization", str(org), "--name", "Clinic", "--issuer", "http://other.test")
    assert _memories(api, patient) == 403  # registered, but not for this issuer
    call_command("register_organization", str(org), "--issuer", ISSUER)
    assert _memories(api, patient) == 200
    assert _count("SELECT trusted_issuers FROM organization WHERE id = %s", org) == ["http://other.test", ISSUER]


_PRODUCTION_ENV = {"ANAMNESIS_ENV": "production", "DJANGO_SECRET_KEY": "k" * 50, "DJANGO_ALLOWED_HOSTS": "api.test",
                   "DATABASE_URL": "postgresql://app@db.test/anamnesis",
                   "DATABASE_OWNER_URL": "postgresql://owner@db.test/anamnesis",
                   "OIDC_RP_CLIENT_SECRET": "s", "MEMORY_ENCRYPTION_KEYS": "k1:" + "A" * 44,
                   "MEMORY_ATTRIBUTE_KEY": "a", "MCP_RESOURCE_URL": "https://api.test/mcp"}


def _import_settings(**extra) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OIDC_", "DATABASE_", "ANAMNESIS_"))}
    env.update(_PRODUCTION_ENV, **extra)
    return subprocess.run([sys.executable, "-c", "import config.settings"], env=env, capture_output=True,
                          text=True, timeout=60, cwd=os.path.dirname(os.path.dirname(__file__)))


@pytest.mark.parametrize("extra", [
    {},
    {"OIDC_ISSUER": "http://idp.hospital.test", "OIDC_JWKS_URL": "https://idp.hospital.test/jwks"},
    {"OIDC_ISSUER": "https://idp.hospital.test", "OIDC_JWKS_URL": "http://idp.hospital.test/jwks"},
    {"OIDC_TRUSTED_ISSUERS": '[{"issuer": "https://a.test", "jwks_url": "http://a.test/jwks"}]'},
    # the portal's provider too: its token endpoint gets the client secret; with the API's issuers named in
    # OIDC_TRUSTED_ISSUERS alone, the portal's endpoints were left at the development provider's, http://127.0.0.1
    {"OIDC_ISSUER": "https://idp.hospital.test", "OIDC_JWKS_URL": "https://idp.hospital.test/jwks",
     "OIDC_OP_TOKEN_ENDPOINT": "http://idp.hospital.test/token"},
    {"OIDC_TRUSTED_ISSUERS": '[{"issuer": "https://a.test", "jwks_url": "https://a.test/jwks"}]'},
])
def test_production_refuses_to_start_without_https_issuers(extra):
    result = _import_settings(**extra)
    assert result.returncode != 0 and "OIDC" in result.stderr, result.stderr[-500:]


def test_production_starts_with_https_issuers():
    result = _import_settings(OIDC_ISSUER="https://idp.hospital.test", OIDC_JWKS_URL="https://idp.hospital.test/jwks")
    assert result.returncode == 0, result.stderr[-800:]
    result = _import_settings(OIDC_TRUSTED_ISSUERS='[{"issuer": "https://a.test", "jwks_url": "https://a.test/jwks"}]',
                              OIDC_OP_ISSUER="https://a.test", OIDC_OP_JWKS_ENDPOINT="https://a.test/jwks")
    assert result.returncode == 0, result.stderr[-800:]
    assert time.time()


@pytest.mark.django_db
def test_a_second_issuers_verified_token_is_kept_and_dropped_with_its_issuer(world, keyring, settings, jwks_server):
    """A token of any trusted issuer is verified once and then served from the cache, checked against its own
    issuer's key set (it was checked against the first issuer's, so another issuer's tokens were verified anew on
    every request); once the deployment stops trusting that issuer, the kept verification goes with it."""
    from core.authentication import InvalidToken, identity_from_token, verified_tokens

    _two_issuers(settings, jwks_server)
    second_org = uuid.uuid4()
    register_organization(second_org, SECOND_ISSUER)
    patient = uuid.uuid4()
    token = mint(keyring, sub="p", org_id=second_org, patient_id=patient, issuer=SECOND_ISSUER)
    verified_tokens.clear()
    first = identity_from_token(token)
    assert first.actor_sub == f"{SECOND_ISSUER}#p"
    assert identity_from_token(token) is first  # kept, not verified again
    assert _memories(Api(token), patient) == 200
    settings.OIDC_TRUSTED_ISSUERS = [{"issuer": ISSUER, "jwks_url": jwks_server.url, "audience": "anamnesis-api"}]
    with pytest.raises(InvalidToken):
        identity_from_token(token)
    assert _memories(Api(token), patient) == 401


@pytest.mark.parametrize("reserved", ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"])
def test_register_organization_command_refuses_the_nil_and_max_uuids(committed_db, reserved):
    """The API refuses the nil and max UUIDs as an organisation's id (422 reserved); the operator's command
    registered them: it ends with an error saying why, and nothing is registered."""
    with pytest.raises(CommandError, match="nil and max UUIDs"):
        call_command("register_organization", reserved, "--issuer", ISSUER)
    assert _count("SELECT count(*) FROM organization WHERE id = %s", uuid.UUID(reserved)) == 0
