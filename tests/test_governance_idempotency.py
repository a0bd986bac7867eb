"""Safe retries: an Idempotency-Key on a creating POST answers the first response again, refuses other data with
409, belongs to its caller, commits with the creation, and is swept after its retention."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from django.db import connection
from django.urls import get_resolver
from django.utils import timezone

from core.api import ScopedAPIView
from core.identity import ACTOR_PATIENT, Identity, identity_context
from tests.conftest import admin_connect, in_directory, memory_body
from tests.support import Api, run_threads
from tests.test_governance_agents import agent_for

K = {"Idempotency-Key": "retry-1"}

# POSTs that change the state of something that exists (no new resource) or carry their own key mechanism.
NOT_CREATING = {"ConsentRevokeView", "GrantRevokeView", "MemoryQuarantineView", "MemoryReleaseView",
                "MemoryConfirmView", "MemoryRejectView", "SessionEndView", "WorkflowOperationRetryView",
                # records what staff learnt, checked against the workflow's version; the same resolution again
                # answers the operation as it is (Idempotent-Replayed), another is 409 operation_not_resolvable
                "WorkflowOperationResolveView",
                # workflow operations: payload-bound Idempotency-Key of their own (workflows.services), same
                # semantics (same request -> same operation, other data -> 409 idempotency_key_reused)
                "WorkflowOperationsView"}


def _count(sql: str, *params, org=None, patient=None):
    """Read as the patient (RLS) on the test's own connection: the rows of a rolled-back test are not committed."""
    if patient is None:
        with admin_connect() as conn:
            return conn.execute(sql, params).fetchone()[0]
    me = Identity(org_id=org, actor_sub=f"patient-{patient}", patient_self_id=patient, actor_kind=ACTOR_PATIENT)
    with identity_context(me), connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def _memories(world, patient=None) -> int:
    patient = patient or world.patient_a
    return _count("SELECT count(*) FROM patient_memory WHERE patient_id = %s", patient, org=world.org,
                  patient=patient)


def _views():
    def walk(patterns):
        for p in patterns:
            if hasattr(p, "url_patterns"):
                yield from walk(p.url_patterns)
            else:
                cls = getattr(p.callback, "view_class", None)
                if cls is not None and issubclass(cls, ScopedAPIView):
                    yield cls
    return set(walk(get_resolver().url_patterns))


def test_every_creating_post_takes_an_idempotency_key():
    missing = [v.__name__ for v in _views()
               if hasattr(v, "post") and not v.idempotent_create and v.__name__ not in NOT_CREATING]
    assert missing == [], f"POST views that create something must declare idempotent_create: {missing}"


@pytest.mark.django_db
def test_the_same_key_and_body_answer_the_first_response_again(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    path = f"/v1/patients/{world.patient_a}/memories"
    first = api.post(path, memory_body(cid), headers=K)
    again = api.post(path, memory_body(cid), headers=K)
    assert first.status_code == again.status_code == 201, again.content
    assert again.content == first.content and again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert _memories(world) == 1
    # another body under the same key is refused and changes nothing
    r = api.post(path, memory_body(cid, time="11:00"), headers=K)
    assert r.status_code == 409 and r.json()["code"] == "idempotency_key_reused"
    assert _memories(world) == 1
    # a new key is a new request
    assert api.post(path, memory_body(cid, time="11:00"), headers={"Idempotency-Key": "retry-2"}).status_code == 201
    assert _memories(world) == 2
    # the stored response is not readable in the table
    stored = _count("SELECT string_agg(encode(response_body, 'escape'), '') FROM idempotency_record",
                    org=world.org, patient=world.patient_a)
    assert stored and "10:00" not in stored and str(world.patient_a) not in stored


@pytest.mark.django_db
def test_the_same_json_with_its_keys_in_another_order_or_other_whitespace_is_the_same_request(world):
    """A retry that serialises the same object differently (another client library, another dict order, pretty
    printed, other escapes) is the same request: it replays the first answer, it is not 409 idempotency_key_reused."""
    import json

    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    path = f"/v1/patients/{world.patient_a}/memories"
    body = memory_body(cid)
    first = api.post(path, raw=json.dumps(body), headers=K)
    assert first.status_code == 201, first.content
    reordered = dict(reversed(list(body.items())))
    reordered["fact"] = dict(reversed(list(body["fact"].items())))
    for raw in (json.dumps(reordered), json.dumps(body, indent=2), json.dumps(body, separators=(",", ":")),
                json.dumps(body, ensure_ascii=False), " " + json.dumps(reordered, sort_keys=True) + "\n"):
        again = api.post(path, raw=raw, headers=K)
        assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true", again.content
        assert again.content == first.content
    assert _memories(world) == 1
    # a different value is still a different request, however it is spelt
    for other in ({**body, "memory_type": "communication_preference"},
                  {**body, "fact": {**body["fact"], "time": "11:00"}}):
        r = api.post(path, raw=json.dumps(other, indent=1), headers=K)
        assert r.status_code == 409 and r.json()["code"] == "idempotency_key_reused", r.content
    assert _memories(world) == 1


def test_a_record_stored_with_the_hash_of_the_bodys_bytes_still_replays_those_bytes(committed_db, world):
    """Records stored before JSON bodies were compared by their value hold the hash of the bytes as sent: the
    same bytes still replay (an in-flight retry across the change), another spelling of them is 409 as it was."""
    import json

    from core.idempotency import request_hash

    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    path = f"/v1/patients/{world.patient_a}/memories"
    raw = json.dumps(memory_body(cid), indent=2)
    assert api.post(path, raw=raw, headers=K).status_code == 201
    legacy = request_hash(method="POST", path=path, body=raw.encode())
    with admin_connect() as conn:  # as stored before the change
        assert conn.execute("UPDATE idempotency_record SET request_hash = %s WHERE idempotency_key = %s",
                            (legacy, K["Idempotency-Key"])).rowcount == 1
    again = api.post(path, raw=raw, headers=K)
    assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true", again.content
    assert api.post(path, raw=json.dumps(memory_body(cid)), headers=K).status_code == 409
    assert _memories(world) == 1


@pytest.mark.django_db
def test_keys_belong_to_their_caller(world):
    path_a = f"/v1/patients/{world.patient_a}/consents"
    path_b = f"/v1/patients/{world.patient_b}/consents"
    body = {"purpose": "appointment_scheduling"}
    a = world.patient(world.patient_a).post(path_a, body, headers=K)
    b = world.patient(world.patient_b).post(path_b, body, headers=K)
    assert a.status_code == b.status_code == 201
    assert a.json()["consent_record_id"] != b.json()["consent_record_id"]
    # the same subject in another organisation is another caller too
    c = world.patient(world.patient_a, org=world.other_org).post(path_a, body, headers=K)
    assert c.status_code == 201 and c.json()["consent_record_id"] != a.json()["consent_record_id"]


@pytest.mark.django_db
def test_an_agent_and_the_patient_it_acts_for_are_different_callers(world):
    """An agent carries the patient's own subject, but its writes are proposals and the patient's are not: a key
    one of them used is not the other's (nor another agent's) to replay, nor to be refused as reused."""
    cid = world.consent(world.patient_a)
    path = f"/v1/patients/{world.patient_a}/memories"
    agent = agent_for(world, world.patient_a)
    proposed = agent.post(path, memory_body(cid, "earliest_time", "09:30"), headers=K)
    assert proposed.status_code == 201 and proposed.json()["status"] == "proposed", proposed.content
    # the patient's own write under that key is recorded as hers, not answered with the agent's proposal
    own = world.patient(world.patient_a).post(path, memory_body(cid, "earliest_time", "09:30"), headers=K)
    assert own.status_code == 201 and "Idempotent-Replayed" not in own.headers, own.content
    assert own.json()["memory"]["source"] == "patient_stated"
    assert own.json()["memory"]["memory_id"] != proposed.json()["memory"]["memory_id"]
    # another agent of the same patient: its own new request, not 409 for a key it never used
    other = agent_for(world, world.patient_a, act="reminder-agent").post(
        path, memory_body(cid, "latest_time", "17:00"), headers=K)
    assert other.status_code == 201 and "Idempotent-Replayed" not in other.headers, other.content
    # each caller still gets its own answer again
    again = agent.post(path, memory_body(cid, "earliest_time", "09:30"), headers=K)
    assert again.headers["Idempotent-Replayed"] == "true" and again.content == proposed.content


@pytest.mark.django_db
def test_a_failed_request_stores_nothing_and_the_key_can_be_used_once_fixed(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    path = f"/v1/patients/{world.patient_a}/memories"
    bad = api.post(path, {**memory_body(cid), "fact": {"kind": "earliest_time", "time": "25:00"}}, headers=K)
    assert bad.status_code == 422
    assert _count("SELECT count(*) FROM idempotency_record", org=world.org, patient=world.patient_a) == 0
    assert api.post(path, memory_body(cid), headers=K).status_code == 201


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["", "x" * 101, "has space", "é", "a/b"])
def test_malformed_keys_are_refused(world, key):
    cid = world.consent(world.patient_a)
    r = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories", memory_body(cid),
                                            headers={"Idempotency-Key": key})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "Idempotency-Key"
    assert _memories(world) == 0


@pytest.mark.parametrize("key,stored", [("k" * 100, True), ("a.b:c_d-9", True), ("k" * 101, False), ("", False),
                                        ("has space", False), ("a/b", False)])
def test_the_database_holds_only_well_formed_keys(key, stored):
    """The table's own check, as the superuser (no RLS) in a transaction rolled back: the same keys as the API's."""
    with admin_connect() as conn, conn.transaction(force_rollback=True):
        insert = ("INSERT INTO idempotency_record (organization_id, actor_sub, idempotency_key, request_hash, "
                  "response_status, response_body) VALUES (gen_random_uuid(), 'nurse-1', %s, repeat('a', 64), 201, "
                  "'\\x00')")
        if stored:
            conn.execute(insert, [key])
        else:
            with pytest.raises(psycopg.errors.CheckViolation):
                conn.execute(insert, [key])


@pytest.mark.django_db
def test_every_creating_endpoint_replays(world):
    in_directory(world.org, world.patient_a)
    admin = world.admin()
    patient = world.patient(world.patient_a)
    calls = [
        (admin, "/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": "nurse-9",
                               "purpose": "appointment_scheduling", "expires_at": None}),
        (patient, "/v1/workflows", {"workflow_type": "appointment_booking", "patient_id": str(world.patient_a)}),
        (patient, "/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"}),
    ]
    world.consent(world.patient_a)
    for api, path, body in calls:
        key = {"Idempotency-Key": f"k-{uuid.uuid4()}"}
        first, again = api.post(path, body, headers=key), api.post(path, body, headers=key)
        assert first.status_code in (200, 201), (path, first.content)
        assert (again.status_code, again.content) == (first.status_code, first.content), path
    sid = patient.post("/v1/sessions", {"patient_id": str(world.patient_a),
                                        "purpose": "appointment_scheduling"}).json()["session"]["session_id"]
    turn = {"role": "user", "content": "I would like an appointment after 10 please"}
    first = patient.post(f"/v1/sessions/{sid}/turns", turn, headers=K)
    again = patient.post(f"/v1/sessions/{sid}/turns", turn, headers=K)
    assert first.status_code == 201 and again.content == first.content
    assert _count("SELECT count(*) FROM conversation_turn WHERE session_id = %s", sid, org=world.org,
                  patient=world.patient_a) == 1


def test_concurrent_requests_with_one_key_create_once(committed_db, world):
    cid = world.consent(world.patient_a)
    path = f"/v1/patients/{world.patient_a}/memories"

    def post(_):
        r = world.patient(world.patient_a).post(path, memory_body(cid), headers={"Idempotency-Key": "race"})
        return r.status_code, r.content

    results = run_threads(4, post)
    assert {status for status, _ in results} == {201} and len({body for _, body in results}) == 1, results
    assert _memories(world) == 1


def test_sweep_removes_keys_after_their_retention_only(committed_db, world):
    from django.core.management import call_command

    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    path = f"/v1/patients/{world.patient_a}/memories"
    assert api.post(path, memory_body(cid), headers={"Idempotency-Key": "old"}).status_code == 201
    assert api.post(path, memory_body(cid, time="11:00"), headers={"Idempotency-Key": "new"}).status_code == 201
    with admin_connect() as conn:
        conn.execute("UPDATE idempotency_record SET created_at = now() - interval '25 hours' "
                     "WHERE idempotency_key = 'old'")
        conn.execute("UPDATE idempotency_record SET created_at = now() - interval '23 hours' "
                     "WHERE idempotency_key = 'new'")
    call_command("sweep_idempotency_keys")
    assert _count("SELECT count(*) FROM idempotency_record WHERE idempotency_key = 'old'") == 0
    assert _count("SELECT count(*) FROM idempotency_record WHERE idempotency_key = 'new'") == 1
    # the swept key is free again; the kept one still replays
    assert api.post(path, memory_body(cid, time="11:00"), headers={"Idempotency-Key": "new"}).status_code == 201
    assert _memories(world) == 2


def withdrawn(response) -> bool:
    return (response.status_code == 409 and response.json()["code"] == "idempotent_response_withdrawn"
            and "Idempotent-Replayed" not in response.headers)


@pytest.mark.django_db
def test_deleting_a_memory_or_erasing_a_patient_withdraws_every_stored_response_about_them(world):
    """A stored response may hold a value: once the value is deleted, a retry with the same key is told the answer
    was withdrawn (409), for the patient's own keys and for every other caller's (a nurse's context pack). It never
    replays the value, and a retry of the creation does not create the deleted memory again."""
    a = world.patient_a
    cid = world.consent(a)
    patient = world.patient(a)
    world.grant(a, "nurse-1", "appointment_scheduling")
    nurse = world.staff("nurse-1")
    body = memory_body(cid, time="07:15")
    created = patient.post(f"/v1/patients/{a}/memories", body, headers={"Idempotency-Key": "pn-1"})
    assert created.status_code == 201
    pack_body = {"question": "when can the patient come in?", "purpose": "appointment_scheduling"}
    pack = nurse.post(f"/v1/patients/{a}/context", pack_body, headers={"Idempotency-Key": "ctx-1"})
    assert pack.status_code == 200 and "07:15" in pack.content.decode()
    receipt = patient.client.delete(f"/v1/patients/{a}/memories/{created.json()['memory_id']}",
                                    HTTP_AUTHORIZATION=f"Bearer {patient.token}").json()
    assert receipt["stored_responses_removed"] == 2
    again = nurse.post(f"/v1/patients/{a}/context", pack_body, headers={"Idempotency-Key": "ctx-1"})
    assert withdrawn(again) and "07:15" not in again.content.decode()
    retried = patient.post(f"/v1/patients/{a}/memories", body, headers={"Idempotency-Key": "pn-1"})
    assert withdrawn(retried)
    assert patient.get(f"/v1/patients/{a}/memories").json()["items"] == []  # not created again
    # another request under the same key is still another request
    assert patient.post(f"/v1/patients/{a}/memories", memory_body(cid, time="08:00"),
                        headers={"Idempotency-Key": "pn-1"}).json()["code"] == "idempotency_key_reused"
    # a new key is a new request
    assert patient.post(f"/v1/patients/{a}/memories", body, headers={"Idempotency-Key": "pn-2"}).status_code == 201
    # erase-all: a turn's stored response (the session and its slots) is not given back either
    sid = patient.post("/v1/sessions", {"patient_id": str(a), "purpose": "appointment_scheduling"},
                       headers={"Idempotency-Key": "s-1"}).json()["session"]["session_id"]
    turn = {"role": "user", "content": "Not on Wednesdays please"}
    assert patient.post(f"/v1/sessions/{sid}/turns", turn, headers={"Idempotency-Key": "t-1"}).status_code == 201
    erased = patient.client.delete(f"/v1/patients/{a}/memories", HTTP_AUTHORIZATION=f"Bearer {patient.token}")
    assert erased.status_code == 200 and erased.json()["stored_responses_removed"] >= 3  # pack, session, turn
    replay = patient.post(f"/v1/sessions/{sid}/turns", turn, headers={"Idempotency-Key": "t-1"})
    assert withdrawn(replay) and "Wednesdays" not in replay.content.decode()


@pytest.mark.django_db
def test_answers_given_under_a_consent_or_grant_are_not_replayed_once_it_ends(world):
    a = world.patient_a
    cid = world.consent(a, purpose="communication")
    patient = world.patient(a)
    assert patient.post(f"/v1/patients/{a}/memories", {
        "memory_type": "communication_preference", "fact": {"kind": "channel", "channel": "sms"},
        "consent_purpose": "communication", "consent_record_id": cid}).status_code == 201
    grant = world.grant(a, "nurse-1", "communication")["grant_id"]
    nurse, agent = world.staff("nurse-1"), agent_for(world, a)
    ask = {"question": "how should we contact the patient, by text message?", "purpose": "communication"}
    for caller, key in ((nurse, "n-1"), (agent, "a-1")):
        first = caller.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": key})
        assert first.status_code == 200 and "text message" in first.content.decode()
        replayed = caller.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": key})
        assert replayed.headers["Idempotent-Replayed"] == "true" and replayed.json() == first.json()
    # the grant ends: the nurse's answer is withdrawn, the agent's (for the patient) is not
    admin = world.admin()
    assert admin.post(f"/v1/grants/{grant}/revoke", {}).status_code == 200
    assert withdrawn(nurse.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": "n-1"}))
    assert agent.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": "a-1"}).status_code == 200
    # the consent is withdrawn: nobody's answer is given again
    assert patient.post(f"/v1/patients/{a}/consents/{cid}/revoke").status_code == 200
    again = agent.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": "a-1"})
    assert withdrawn(again) and "text message" not in again.content.decode()


@pytest.mark.django_db
def test_an_answer_showing_memories_is_not_replayed_once_they_no_longer_read_so(world):
    """What ends by the clock or by another's act is not an event that withdraws answers: a context pack that
    showed a value is not given again once staff set the value aside, or once it lapsed (its validity or consent
    ran out); a retry is told the answer was withdrawn and learns nothing."""
    from memory.models import Memory

    a = world.patient_a
    cid = world.consent(a)
    patient = world.patient(a)
    world.grant(a, "nurse-1", "appointment_scheduling")
    nurse = world.staff("nurse-1")
    early = patient.post(f"/v1/patients/{a}/memories", memory_body(cid, time="07:15")).json()["memory_id"]
    late = patient.post(f"/v1/patients/{a}/memories", memory_body(cid, kind="latest_time",
                                                                  time="17:45")).json()["memory_id"]
    ask = {"question": "when can the patient come in?", "purpose": "appointment_scheduling"}
    first = nurse.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": "q-1"})
    assert first.status_code == 200 and "07:15" in first.content.decode()
    assert nurse.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": "q-1"}).status_code == 200
    r = nurse.post(f"/v1/patients/{a}/memories/{early}/quarantine", {"reason_code": "doubtful"})
    assert r.status_code == 200, r.content
    again = nurse.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": "q-1"})
    assert withdrawn(again) and "07:15" not in again.content.decode()
    # a value past its validity: the answer that showed it is not given again either
    second = nurse.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": "q-2"})
    assert second.status_code == 200 and "17:45" in second.content.decode()
    me = Identity(org_id=world.org, actor_sub=f"patient-{a}", patient_self_id=a, actor_kind=ACTOR_PATIENT)
    with identity_context(me):  # the clock moves on: the memory's validity ended a minute ago
        Memory.objects.filter(memory_id=late).update(valid_from=timezone.now() - timedelta(minutes=2),
                                                     valid_until=timezone.now() - timedelta(minutes=1))
    lapsed = nurse.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": "q-2"})
    assert withdrawn(lapsed) and "17:45" not in lapsed.content.decode()


def test_a_replay_is_refused_once_the_grant_it_was_given_under_expires_and_each_replay_is_audited(committed_db,
                                                                                                   world):
    """Committed: PostgreSQL's now() is the transaction's start, and the grant must run out between requests."""
    a = world.patient_a
    cid = world.consent(a)
    world.patient(a).post(f"/v1/patients/{a}/memories", memory_body(cid, time="07:15"))
    ends = datetime.now(UTC) + timedelta(seconds=3)
    world.grant(a, "nurse-1", "appointment_scheduling", expires_at=ends.isoformat())
    nurse = world.staff("nurse-1")
    ask = {"question": "when can the patient come in?", "purpose": "appointment_scheduling"}
    assert nurse.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": "k"}).status_code == 200
    assert nurse.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": "k"}).status_code == 200
    events = world.patient(a).get("/v1/audit-events", {"patient_id": str(a)}).json()["items"]
    assert [e["reason"] for e in events if e["action"] == "memory.context_pack"] == ["idempotent_replay", None]
    time.sleep(max(0.0, (ends - datetime.now(UTC)).total_seconds()) + 0.1)  # the grant runs out, unrevoked
    refused = nurse.post(f"/v1/patients/{a}/context", ask, headers={"Idempotency-Key": "k"})
    assert refused.status_code == 403 and refused.json()["code"] == "no_active_consent_or_access"
    assert "07:15" not in refused.content.decode()


@pytest.mark.django_db
def test_a_stored_answer_about_a_session_is_withdrawn_with_the_access_it_was_given_under(world):
    """Answers about a session (proposals, offers) name no patient: the session says whose they are."""
    a = world.patient_a
    world.consent(a)
    grant = world.grant(a, "nurse-1", "appointment_scheduling")["grant_id"]
    nurse = world.staff("nurse-1")
    sid = nurse.post("/v1/sessions", {"patient_id": str(a), "purpose": "appointment_scheduling"}
                     ).json()["session"]["session_id"]
    assert nurse.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "I always prefer after 11:00 from "
                                                                                "now on"}).status_code == 201
    path = f"/v1/sessions/{sid}/turns/1/propose"
    first = nurse.post(path, None, headers={"Idempotency-Key": "pr-1"})
    assert first.status_code == 201 and first.json()["proposed"], first.content
    assert nurse.post(path, None, headers={"Idempotency-Key": "pr-1"}).headers["Idempotent-Replayed"] == "true"
    events = world.patient(a).get("/v1/audit-events", {"patient_id": str(a)}).json()["items"]
    assert any(e["action"] == "conversation.propose" and e["reason"] == "idempotent_replay" for e in events)
    assert world.admin().post(f"/v1/grants/{grant}/revoke", {}).status_code == 200
    again = nurse.post(path, None, headers={"Idempotency-Key": "pr-1"})
    assert withdrawn(again) and "11:00" not in again.content.decode()


@pytest.mark.django_db
def test_deleting_a_webhook_subscription_withdraws_its_stored_creation_answer(world):
    """A subscription's creation answer holds its signing secret. Once the subscription is deleted (by any of the
    organisation's administrators), a retry with the creation's key is told the answer was withdrawn (409): it
    neither gives the deleted subscription and its secret back nor creates it again, and the stored answer is gone
    from the database, not merely refused."""
    creator = Api(world.token(sub="webhook-admin", scope="webhook:admin"))
    colleague = Api(world.token(sub="webhook-admin-2", scope="webhook:admin"))
    body = {"url": "https://hooks.example.com/anamnesis", "event_types": ["consent.revoked"]}
    key = {"Idempotency-Key": "sub-1"}
    created = creator.post("/v1/event-subscriptions", body, headers=key)
    assert created.status_code == 201, created.content
    secret, sid = created.json()["secret"], created.json()["subscription_id"]
    assert creator.post("/v1/event-subscriptions", body, headers=key).headers["Idempotent-Replayed"] == "true"
    assert colleague.request("DELETE", f"/v1/event-subscriptions/{sid}").status_code == 204
    again = creator.post("/v1/event-subscriptions", body, headers=key)
    assert withdrawn(again) and secret not in again.content.decode() and sid not in again.content.decode()
    assert creator.get("/v1/event-subscriptions").json()["items"] == []  # not created again
    with identity_context(Identity(org_id=world.org, actor_sub="webhook-admin")), connection.cursor() as cursor:
        cursor.execute("SELECT response_body IS NULL FROM idempotency_record WHERE idempotency_key = 'sub-1'")
        assert cursor.fetchall() == [(True,)]


@pytest.mark.django_db
def test_revoking_a_grant_withdraws_its_stored_creation_answer(world):
    """A grant's creation answer shows it open. Once it is revoked, a retry with the creation's key is told the
    answer was withdrawn (409) instead of being shown the grant as open again, and grants nothing."""
    in_directory(world.org, world.patient_a)
    admin = world.admin()
    body = {"patient_id": str(world.patient_a), "actor_sub": "nurse-3", "purpose": "appointment_scheduling"}
    key = {"Idempotency-Key": "grant-1"}
    created = admin.post("/v1/grants", body, headers=key)
    assert created.status_code == 201, created.content
    assert admin.post(f"/v1/grants/{created.json()['grant_id']}/revoke", {}).status_code == 200
    assert withdrawn(admin.post("/v1/grants", body, headers=key))
    grants = admin.get("/v1/grants", {"patient_id": str(world.patient_a)}).json()["items"]
    assert [g["revoked_at"] is not None for g in grants] == [True]  # not granted again
