"""Rate limits per token subject and per organisation, counted in PostgreSQL (shared by every worker process),
answered with 429 problem+json and Retry-After."""

from __future__ import annotations

import uuid

import pytest

from tests.support import PATIENT_SCOPES, Api, mint

pytestmark = pytest.mark.django_db


@pytest.fixture
def limits(settings):
    settings.API_RATE_LIMIT_WINDOW_SECONDS = 3600
    settings.API_RATE_LIMIT_PER_SUBJECT = 3
    settings.API_RATE_LIMIT_PER_ORGANIZATION = 5
    return settings


def _get(api, world):
    return api.get(f"/v1/patients/{world.patient_a}/memories")


def test_a_subject_over_its_limit_gets_429_with_retry_after(world, limits):
    alice = world.patient(world.patient_a)
    assert [_get(alice, world).status_code for _ in range(3)] == [200, 200, 200]
    r = _get(alice, world)
    assert r.status_code == 429 and r["Content-Type"] == "application/problem+json"
    assert r.json()["code"] == "rate_limited"
    assert 1 <= int(r["Retry-After"]) <= 3600
    # a new token for the same subject is the same subject
    assert _get(world.patient(world.patient_a), world).status_code == 429
    # another subject of the organisation still has its own allowance
    assert world.patient(world.patient_b).get(f"/v1/patients/{world.patient_b}/memories").status_code == 200


def test_an_agent_acting_for_a_patient_spends_its_own_allowance_not_the_patients(world, limits):
    """An agent launched in the patient's context carries the patient's subject: a busy or looping agent must not
    lock the patient out of their own memory (nor one agent another)."""
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org,
                     patient_id=world.patient_a, scope=PATIENT_SCOPES, act="scheduling-agent"))
    assert [_get(agent, world).status_code for _ in range(4)] == [200, 200, 200, 429]
    assert _get(world.patient(world.patient_a), world).status_code == 200
    other_agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org,
                           patient_id=world.patient_a, scope=PATIENT_SCOPES, act="triage-agent"))
    assert _get(other_agent, world).status_code == 200


def test_an_organisation_over_its_limit_gets_429_for_every_subject(world, limits):
    statuses = []
    for n in range(6):
        api = world.staff(f"nurse-{n}")
        statuses.append(_get(api, world).status_code)
    # staff without grants see an empty list (200) until the organisation's five requests are spent
    assert statuses[:5] == [200] * 5 and statuses[5] == 429, statuses
    # other organisations are not affected
    other = world.patient(world.patient_a, org=world.other_org)
    assert _get(other, world).status_code == 200


def test_limits_can_be_switched_off(world, settings):
    settings.API_RATE_LIMIT_PER_SUBJECT = 0
    settings.API_RATE_LIMIT_PER_ORGANIZATION = 0
    alice = world.patient(world.patient_a)
    assert {_get(alice, world).status_code for _ in range(5)} == {200}


def test_counters_hold_no_identifiers(world, limits):
    from django.db import connection

    _get(world.patient(world.patient_a), world)
    with connection.cursor() as cursor:
        cursor.execute("SELECT string_agg(bucket, ' ') FROM api_rate_counter")
        buckets = cursor.fetchone()[0]
    assert buckets and str(world.org) not in buckets and str(world.patient_a) not in buckets


def test_refused_requests_count_against_the_limit_and_stop_being_audited_past_it(world, limits):
    """Guessing ids (every answer a 404) is throttled like any other work, and the append-only trail cannot be
    flooded: past the limit the answer is 429 and no audit row is written."""
    from core.identity import Identity, identity_context
    from core.models import AuditEvent

    guesser = world.staff("guesser")
    statuses = [guesser.get(f"/v1/patients/{world.patient_a}/memories/{uuid.uuid4()}").status_code
                for _ in range(5)]
    assert statuses == [404, 404, 404, 429, 429], statuses
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        rows = AuditEvent.objects.filter(organization_id=world.org, actor_sub="guesser").count()
    assert rows == 3


def test_a_refusal_by_the_gate_leaves_no_warning_in_the_logs(world, keyring, limits, caplog):
    """429 and 403 unknown_organization are raised by PostgreSQL in the statement that sets the identity, inside a
    pipeline: the statements queued behind it are skipped, as expected, and say nothing in the logs (a flood of
    refused requests would otherwise flood them with psycopg's "pipeline aborted", once per request)."""
    from tests.support import Api, mint

    alice = world.patient(world.patient_a)
    stranger = Api(mint(keyring, sub="p", org_id=uuid.uuid4(), patient_id=world.patient_a))
    assert [_get(alice, world).status_code for _ in range(3)] == [200, 200, 200]
    with caplog.at_level("DEBUG", logger="psycopg"):
        for _ in range(2):  # the second after the token is known to this process: the quick read's path
            assert _get(alice, world).status_code == 429
            assert _get(stranger, world).status_code == 403
            r = alice.post(f"/v1/patients/{world.patient_a}/consents", {"purpose": "appointment_scheduling"})
            assert r.status_code == 429, r.content
    assert [r.getMessage() for r in caplog.records if r.name.startswith("psycopg")] == []


def test_requests_refused_as_malformed_count_against_the_limit(world, limits):
    """A body the handler refuses (422, or 400 not JSON) did the identity's and the gate's work all the same: a
    stream of invalid requests meets the limits like any other, and past them is 429 too."""
    alice = world.patient(world.patient_a)
    path = f"/v1/patients/{world.patient_a}/memories"
    invalid = {"memory_type": "scheduling_preference", "fact": {"kind": "earliest_time", "time": "99:99"},
               "consent_purpose": "appointment_scheduling"}
    statuses = [alice.post(path, invalid).status_code, alice.post(path, raw="{not json").status_code,
                alice.post(path, invalid).status_code, alice.post(path, invalid).status_code]
    assert statuses == [422, 400, 422, 429], statuses
    assert _get(alice, world).status_code == 429


def test_requests_refused_for_their_query_string_count_against_the_limit(world, limits):
    """An unknown, repeated or empty query parameter, or a ``?format=`` the operation does not offer (422), is a
    request like any other: it meets the limits, and past them it is 429, not 422."""
    alice = world.patient(world.patient_a)
    path = f"/v1/patients/{world.patient_a}/memories"
    refused = [{"colour": "blue"}, {"format": "xml"}, {"memory_type": ["x", "y"]}, {"colour": "blue"}]
    statuses = [alice.get(path, params).status_code for params in refused]
    assert statuses == [422, 422, 422, 429], statuses
    assert _get(alice, world).status_code == 429


def test_a_refusal_whose_body_names_no_patient_we_can_store_is_counted_and_audited(world, limits):
    """A token without the scope posts a workflow or a conversation whose ``patient_id`` is no UUID (``"x"``, a
    number, a list): the 403's audit row took that value as the patient, the insert failed, and with it the count of
    the request, so such refusals were neither audited nor throttled (any number of them, never a 429). They are
    counted like any refusal (429 past the limit) and audited as the caller's refusal, without a patient."""
    limits.API_RATE_LIMIT_PER_ORGANIZATION = 0  # the auditor's read below is not held up by the organisation's
    api = Api(mint(world.keyring, sub="scopeless", org_id=world.org, scope="memory:read"))
    bodies = [("/v1/workflows", {"workflow_type": "insurance_check", "patient_id": "x"}),
              ("/v1/sessions", {"patient_id": 12, "purpose": "appointment_scheduling"}),
              ("/v1/workflows", {"workflow_type": "insurance_check", "patient_id": ["x"]})]
    statuses = [api.post(path, body).status_code for path, body in bodies]
    assert statuses == [403, 403, 403]
    assert api.post(*bodies[0]).status_code == 429
    auditor = Api(mint(world.keyring, sub="auditor", org_id=world.org, scope="audit:read"))
    trail = auditor.get("/v1/audit-events").json()["items"]
    assert [(e["action"], e["outcome"], e["reason"], e["patient_id"]) for e in trail
            if e["actor_sub"] == "scopeless"] == [("workflow.create", "denied", "insufficient_scope", None),
                                                  ("conversation.start", "denied", "insufficient_scope", None),
                                                  ("workflow.create", "denied", "insufficient_scope", None)]


def _from(api: Api, path: str, address: str):
    return api.client.get(path, REMOTE_ADDR=address, **api._headers(None))


def test_failed_authentications_from_one_address_are_429_past_its_allowance_and_lock_out_nobody_else(
        world, keyring, limits):
    """A bad, expired or missing token (401) and a token of an organisation not registered for its issuer (403)
    cost the service a verification or a look-up each, and were never counted: a client could send them without
    end. They are counted per client address (an IPv6 client by its /64); past the allowance those failures are
    429 ``rate_limited`` with ``Retry-After``, while a valid token from the same address (colleagues behind one
    NAT address) is served, and failures from another address are still answered as they are."""
    limits.API_AUTH_FAILURES_PER_ADDRESS = 4
    path = f"/v1/patients/{world.patient_a}/memories"
    expired = Api(mint(keyring, sub="p", org_id=world.org, patient_id=world.patient_a, exp_in=-600))
    stranger = Api(mint(keyring, sub="p", org_id=uuid.uuid4(), patient_id=world.patient_a))
    attacker = "2001:db8:7:1::5"
    statuses = [_from(Api("not-a-jwt"), path, attacker).status_code, _from(expired, path, attacker).status_code,
                _from(Api(None), path, attacker).status_code, _from(stranger, path, "2001:db8:7:1::9").status_code]
    assert statuses == [401, 401, 401, 403], statuses
    for api in (Api("not-a-jwt"), stranger, Api(None)):
        r = _from(api, path, "2001:db8:7:1:ffff::1")  # the same /64
        assert r.status_code == 429 and r.json()["code"] == "rate_limited", r.content
        assert 1 <= int(r["Retry-After"]) <= 3600
    assert _from(world.patient(world.patient_a), path, attacker).status_code == 200
    assert _from(Api("not-a-jwt"), path, "198.51.100.20").status_code == 401
    limits.API_AUTH_FAILURES_PER_ADDRESS = 0  # switched off
    assert _from(Api("not-a-jwt"), path, attacker).status_code == 401


def test_behind_trusted_proxies_each_client_spends_its_own_allowance_of_failed_authentications(world, limits):
    """Behind a reverse proxy every request came from the proxy's address, so all its clients shared one allowance
    of failed authentications: one client's bad tokens got everyone else's 401s turned into 429s. The proxies
    named in ``TRUSTED_PROXIES`` (addresses or networks) are seen through: the client is the last address
    X-Forwarded-For names that is not one of them (each proxy appends the address it saw; what lies left of that
    the client wrote itself). By default none is named and the header is never believed: a client writing one
    spends its own address's allowance all the same."""
    limits.API_AUTH_FAILURES_PER_ADDRESS = 2
    limits.TRUSTED_PROXIES = ["10.9.0.0/24", "2001:db8:99::1"]
    path = f"/v1/patients/{world.patient_a}/memories"

    def via(peer: str, forwarded_for: str) -> int:
        return Api("not-a-jwt").client.get(path, REMOTE_ADDR=peer, HTTP_X_FORWARDED_FOR=forwarded_for).status_code

    assert [via("10.9.0.5", "203.0.113.7") for _ in range(3)] == [401, 401, 429]
    assert via("10.9.0.5", "203.0.113.8") == 401  # another client of the same proxy
    assert via("10.9.0.6", "203.0.113.9, 203.0.113.7") == 429  # its own entries on the left change nothing
    assert via("2001:db8:99::1", "203.0.113.7, 10.9.0.77") == 429  # through two trusted hops
    assert via("10.9.0.5", "[2001:db8:5:5::1]:4711") == 401  # a proxy writing the port too
    assert via("10.9.0.5", "garbage") == 401  # unreadable: the proxy's own address (its allowance is untouched)
    assert via("192.0.2.60", "10.9.0.5") == 401  # not from a proxy: the header is not believed
    limits.TRUSTED_PROXIES = []
    assert [via("192.0.2.61", f"198.51.100.{n}") for n in range(3)] == [401, 401, 429]
