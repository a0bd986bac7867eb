"""Erase-all reaches every copy: long-term memories, live and ended conversations, finished workflows' state and
settled operations' payloads; what reconciliation needs is kept and the receipt says so. The retention sweep
redacts old workflow values on its own."""

from __future__ import annotations

import uuid

import pytest
from django.core.management import call_command

from tests.conftest import database_contains, memory_body
from tests.support import PATIENT_SCOPES, Api, mint

SUBMIT = "submit_prior_authorization"
SECRET_MEMBER = "MEMBER-ZX81-QUOKKA"
SECRET_NOTE = "kangaroo-referral-note"


def delete(api: Api, path: str):
    return api.client.delete(path, **api._headers(None))


def finished_prior_authorization(api: Api, patient_id) -> dict:
    """A workflow cancelled while its submission was pending: terminal, with a settled (cancelled) operation."""
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(patient_id)}).json()
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
        "expected_version": 1, "next_step": SUBMIT, "state_patch": {"note": SECRET_NOTE},
        "request_operation": {"kind": SUBMIT, "payload": {"member_ref": SECRET_MEMBER, "diagnosis_code": "E11.9",
                                                        "referral_id": "REF-1", "medication_code": "860975"}}})
    assert r.status_code == 200, r.content
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint",
                 {"expected_version": 2, "next_step": "cancelled", "state_patch": {}})
    assert r.status_code == 200, r.content
    return r.json()


def in_progress_prior_authorization(api: Api, patient_id) -> dict:
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(patient_id)}).json()
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
        "expected_version": 1, "next_step": SUBMIT, "state_patch": {"step_note": "pending-wombat"},
        "request_operation": {"kind": SUBMIT, "payload": {"member_ref": "MEMBER-PENDING-1", "diagnosis_code": "E11.9",
                                                        "referral_id": "REF-2", "medication_code": "860975"}}})
    assert r.status_code == 200, r.content
    return r.json()


def test_erase_all_reaches_sessions_and_workflows_and_names_every_kind_of_copy(committed_db, world):
    api = world.patient(world.patient_a)
    cid = world.consent(world.patient_a)
    assert api.post(f"/v1/patients/{world.patient_a}/memories", memory_body(cid)).status_code == 201
    live = api.post("/v1/sessions", {"patient_id": str(world.patient_a),
                                     "purpose": "appointment_scheduling"}).json()["session"]
    r = api.post(f"/v1/sessions/{live['session_id']}/turns", {"role": "user", "content": "tuesdays are platypus"})
    assert r.status_code == 201, r.content
    done = finished_prior_authorization(api, world.patient_a)
    pending = in_progress_prior_authorization(api, world.patient_a)
    # another patient's conversation is untouched
    other = world.patient(world.patient_b)
    other_session = other.post("/v1/sessions", {"patient_id": str(world.patient_b),
                                                "purpose": "appointment_scheduling"}).json()["session"]

    assert database_contains(SECRET_MEMBER) and database_contains("platypus")  # committed, before erasure
    r = delete(api, f"/v1/patients/{world.patient_a}/memories")
    assert r.status_code == 200, r.content
    receipt = r.json()
    kinds = {section["kind"]: section for section in receipt["other_copies"]}
    assert set(kinds) == {"conversation_sessions", "workflows"}
    assert {t["target"] for t in receipt["representations"]} >= {"postgres"}
    sessions = kinds["conversation_sessions"]["erased"]
    assert [s["session_id"] for s in sessions] == [live["session_id"]] and sessions[0]["was_live"]
    assert sessions[0]["turns"] == 1
    erased = kinds["workflows"]["erased"]
    assert {(e["workflow_id"], e["copy"]) for e in erased} == {
        (done["workflow_id"], "operation_payload"), (done["workflow_id"], "workflow_state"),
        # the queued submission is withdrawn, never sent after the erasure, so its payload goes too
        (pending["workflow_id"], "operation_payload")}
    retained = kinds["workflows"]["retained"]
    assert [(r["workflow_id"], r["reason"]) for r in retained] == [(pending["workflow_id"], "workflow_in_progress")]
    assert "idempotency key" in kinds["workflows"]["note"]

    # the values are gone from the database itself, the live session is gone, the other patient's is not
    assert database_contains("platypus") == []
    assert database_contains(SECRET_MEMBER) == []
    assert database_contains(SECRET_NOTE) == []
    assert api.get(f"/v1/sessions/{live['session_id']}").status_code == 404
    assert other.get(f"/v1/sessions/{other_session['session_id']}").status_code == 200
    # reconciliation still works from what was kept
    ops = api.get(f"/v1/workflows/{done['workflow_id']}/operations").json()["items"]
    assert ops[0]["status"] == "cancelled" and ops[0]["idempotency_key"]
    # the receipt is listed with the others
    receipts = api.get(f"/v1/patients/{world.patient_a}/deletions").json()["items"]
    assert receipts[0]["other_copies"] == receipt["other_copies"]


@pytest.mark.django_db
@pytest.mark.parametrize("one", [False, True])
def test_a_deletion_with_a_body_is_422_and_deletes_nothing(world, one):
    """Deletions take no body: a careless client's ``{"memory_ids": [...]}`` on erase-all (or a reason on one
    memory's deletion) was ignored, so asking to delete one memory erased every one. It is 422 naming the field;
    without a body, or with an empty one, they delete as before."""
    api = world.patient(world.patient_a)
    cid = world.consent(world.patient_a)
    path = f"/v1/patients/{world.patient_a}/memories"
    first = api.post(path, memory_body(cid, "earliest_time", "09:00")).json()["memory_id"]
    kept = api.post(path, memory_body(cid, "latest_time", "17:00")).json()["memory_id"]
    target = f"{path}/{first}" if one else path
    r = api.request("DELETE", target, {"memory_ids": [first]})
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("memory_ids", "unknown_field")]
    assert {m["memory_id"] for m in api.get(path).json()["items"]} == {first, kept}
    assert api.get(f"/v1/patients/{world.patient_a}/deletions").json()["items"] == []
    r = api.request("DELETE", target, {})
    assert r.status_code == 200, r.content
    assert set(r.json()["memory_ids"]) == ({first} if one else {first, kept})


@pytest.mark.django_db
def test_erase_all_twice_is_harmless(world):
    api = world.patient(world.patient_a)
    finished_prior_authorization(api, world.patient_a)
    assert delete(api, f"/v1/patients/{world.patient_a}/memories").status_code == 200
    second = delete(api, f"/v1/patients/{world.patient_a}/memories").json()
    assert all(section["erased"] == [] for section in second["other_copies"])
    # each request is in the patient's history as itself, naming its receipt
    events = api.get("/v1/audit-events").json()["items"]
    erasures = [e for e in events if e["action"] == "memory.erase_all"]
    assert len(erasures) == 2 and {e["outcome"] for e in erasures} == {"success"}
    assert erasures[0]["resource_id"] == second["deletion_id"] and erasures[0]["resource_type"] == "deletion"


@pytest.mark.django_db
def test_a_staff_erasure_says_which_purposes_it_did_not_reach(world):
    """A staff member reaches the purposes they hold grants for: the receipt says what it left, never reading as
    if everything went (the patient's communication memory stays, and the receipt names that purpose)."""
    a = world.patient_a
    patient = world.patient(a)
    for purpose, body in (("appointment_scheduling", None), ("communication", {
            "memory_type": "communication_preference", "fact": {"kind": "channel", "channel": "sms"},
            "consent_purpose": "communication"})):
        cid = world.consent(a, purpose)
        created = patient.post(f"/v1/patients/{a}/memories", {**(body or memory_body(cid)), "consent_record_id": cid})
        assert created.status_code == 201, created.content
    world.grant(a, "nurse-2", "appointment_scheduling")
    receipt = delete(world.staff("nurse-2"), f"/v1/patients/{a}/memories").json()
    unreached = [r for r in receipt["retained"] if r.get("reason") == "outside_callers_access"]
    assert len(unreached) == 1 and "communication" in unreached[0]["purposes"]
    assert "appointment_scheduling" not in unreached[0]["purposes"]
    left = patient.get(f"/v1/patients/{a}/memories").json()["items"]
    assert [m["consent_purpose"] for m in left] == ["communication"]
    # the patient's own request reaches every purpose, and says nothing of the kind
    mine = delete(patient, f"/v1/patients/{a}/memories").json()
    assert not [r for r in mine["retained"] if r.get("reason") == "outside_callers_access"]


def test_workflow_sweep_redacts_after_retention_and_is_idempotent(committed_db, world, settings):
    api = world.patient(world.patient_a)
    done = finished_prior_authorization(api, world.patient_a)
    settings.WORKFLOW_OPERATION_PAYLOAD_RETENTION_DAYS = 1
    settings.WORKFLOW_FINISHED_STATE_RETENTION_DAYS = 1
    call_command("sweep_workflows")
    assert database_contains(SECRET_MEMBER) != []  # not yet due
    settings.WORKFLOW_OPERATION_PAYLOAD_RETENTION_DAYS = 0
    settings.WORKFLOW_FINISHED_STATE_RETENTION_DAYS = 0
    from workflows.retention import workflow_sweep

    assert workflow_sweep() == {"operations_lapsed": 0, "operation_payloads": 1, "workflow_states": 1}
    assert workflow_sweep() == {"operations_lapsed": 0, "operation_payloads": 0, "workflow_states": 0}
    assert database_contains(SECRET_MEMBER) == [] and database_contains(SECRET_NOTE) == []
    wf = api.get(f"/v1/workflows/{done['workflow_id']}").json()
    assert wf["current_step"] == "cancelled" and wf["state"] == {"_redacted": True}


@pytest.mark.django_db
def test_settled_payload_may_only_be_redacted_never_rewritten(world):
    from django.db import IntegrityError, transaction

    from workflows.models import Operation

    api = world.patient(world.patient_a)
    done = finished_prior_authorization(api, world.patient_a)
    from core.identity import ACTOR_PATIENT, Identity, identity_context

    me = Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a,
                  actor_kind=ACTOR_PATIENT)
    with identity_context(me):
        with pytest.raises(IntegrityError), transaction.atomic():
            Operation.objects.filter(workflow_id=done["workflow_id"]).update(payload={"member_ref": "other"})
        assert Operation.objects.filter(workflow_id=done["workflow_id"]).update(payload={"_redacted": True}) == 1


@pytest.mark.django_db
def test_deleting_one_memory_clears_the_conversation_tool_results_that_copied_it(world):
    from tests.test_conversations_api import context, say, start

    a = world.patient_a
    cid = world.consent(a, purpose="communication")
    patient = world.patient(a)
    created = patient.post(f"/v1/patients/{a}/memories", {
        "memory_type": "caregiver_contact", "consent_purpose": "communication", "consent_record_id": cid,
        "fact": {"name": "Zebulon Quixotic", "relationship": "sibling", "phone": "+48 555 123 987",
                 "may_be_told": ["appointments"]}})
    assert created.status_code == 201, created.content
    memory_id = created.json()["memory_id"]
    sid = start(patient, a)["session"]["session_id"]
    say(patient, sid, "Please call my brother if I'm late")
    say(patient, sid, "", role="tool", tool_name="memory.lookup", tool_result={"contact": "zebulon quixotic"})
    say(patient, sid, "", role="tool", tool_name="memory.lookup", tool_result={"ref": memory_id})
    say(patient, sid, "", role="tool", tool_name="scheduling.offers", tool_result={"slot": "thu-1430 Friday"})
    receipt = patient.client.delete(f"/v1/patients/{a}/memories/{memory_id}", **patient._headers(None)).json()
    (copies,) = receipt["other_copies"]
    assert copies["kind"] == "conversation_tool_results" and copies["erased"] == [{"session_id": sid,
                                                                                      "turns": [2, 3]}]
    text = str(context(patient, sid))
    assert "uixotic" not in text and memory_id not in text
    assert "thu-1430" in text and "call my brother" in text  # the rest of the conversation stays


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Maximilian", "Анна", "Zoë"])
def test_deleting_a_preferred_name_clears_the_tool_results_that_hold_the_name_alone(world, name):
    """A name of one word is what a lookup hands an agent: deleting the memory clears the tool results that hold
    it (a short name, or one in another script, was no needle: only text with a space or a digit was), and leaves
    those that hold only words of a closed vocabulary or other text."""
    from tests.test_conversations_api import context, say, start

    a = world.patient_a
    cid = world.consent(a, purpose="communication")
    patient = world.patient(a)
    created = patient.post(f"/v1/patients/{a}/memories", {
        "memory_type": "preferred_name", "consent_purpose": "communication", "consent_record_id": cid,
        "fact": {"preferred_name": name, "pronouns": "they/them"}})
    assert created.status_code == 201, created.content
    sid = start(patient, a)["session"]["session_id"]
    say(patient, sid, "", role="tool", tool_name="memory.lookup", tool_result={"call_them": name.upper()})
    say(patient, sid, "", role="tool", tool_name="memory.lookup", tool_result={"pronouns": "they/them"})
    say(patient, sid, "", role="tool", tool_name="scheduling.offers", tool_result={"slot": "thu-1430 Friday"})
    receipt = patient.client.delete(f"/v1/patients/{a}/memories/{created.json()['memory_id']}",
                                    **patient._headers(None)).json()
    (copies,) = receipt["other_copies"]
    assert copies["erased"] == [{"session_id": sid, "turns": [1]}], copies
    text = str(context(patient, sid))
    assert name.upper() not in text and "thu-1430" in text


@pytest.mark.django_db
def test_deleting_a_memory_clears_tool_results_holding_its_quoted_name_or_its_id_without_hyphens(world):
    """A name with quotation marks or a backslash in it is held in a tool result as it was written (as JSON it is
    escaped, and was no match), and a tool may hold the memory's id without hyphens: deleting the memory clears
    both; a tool result holding neither stays."""
    from tests.test_conversations_api import context, say, start

    a = world.patient_a
    cid = world.consent(a, purpose="communication")
    patient = world.patient(a)
    name = 'Robert "Bobcat" Q\\uinn'
    created = patient.post(f"/v1/patients/{a}/memories", {
        "memory_type": "preferred_name", "consent_purpose": "communication", "consent_record_id": cid,
        "fact": {"preferred_name": name, "pronouns": "they/them"}})
    assert created.status_code == 201, created.content
    memory_id = created.json()["memory_id"]
    sid = start(patient, a)["session"]["session_id"]
    say(patient, sid, "", role="tool", tool_name="memory.lookup", tool_result={"call_them": name})
    say(patient, sid, "", role="tool", tool_name="memory.lookup", tool_result={"ref": uuid.UUID(memory_id).hex})
    say(patient, sid, "", role="tool", tool_name="scheduling.offers", tool_result={"slot": "thu-1430 Friday"})
    receipt = patient.client.delete(f"/v1/patients/{a}/memories/{memory_id}", **patient._headers(None)).json()
    (copies,) = receipt["other_copies"]
    assert copies["erased"] == [{"session_id": sid, "turns": [1, 2]}], copies
    text = str(context(patient, sid))
    assert "Bobcat" not in text and uuid.UUID(memory_id).hex not in text and "thu-1430" in text


PARKING = {  # an organisation's preference that staff record and agents propose, the patient confirming
    "name": "parking_pref", "memory_class": "preference", "label": "Parking", "purposes": ["appointment_scheduling"],
    "writers": ["staff", "agent_proposal"], "supersession": ["spot"], "text": "Parking: {spot}",
    "schema": {"type": "object", "additionalProperties": False, "required": ["spot"],
               "properties": {"spot": {"enum": ["disabled_bay", "drop_off"]}}},
}


@pytest.mark.django_db
def test_a_patient_deletes_a_preference_they_confirmed_from_an_agents_proposal(world):
    """The patient confirmed it (it is theirs), then their deletion was 403 staff_only ("clinical facts are
    removed by the care team") and their erasure of everything kept it as retained."""
    assert world.staff("type-admin", scope="memory_type:write memory:read").post(
        "/v1/memory-types", PARKING).status_code == 201
    cid = world.consent(world.patient_a)
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                     scope=PATIENT_SCOPES, act="scheduling-agent"))
    me = world.patient(world.patient_a)
    path = f"/v1/patients/{world.patient_a}/memories"
    confirmed = []
    for spot in ("drop_off", "disabled_bay"):
        r = agent.post(path, {"memory_type": "parking_pref", "fact": {"spot": spot},
                              "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
        assert r.status_code == 201 and r.json()["status"] == "proposed", r.content
        assert me.post(f"{path}/{r.json()['memory_id']}/confirm", {}).status_code == 200
        confirmed.append(r.json()["memory_id"])
    r = delete(me, f"{path}/{confirmed[0]}")
    assert r.status_code == 200, r.content
    assert r.json()["memory_ids"] == [confirmed[0]]
    receipt = delete(me, path).json()
    assert receipt["retained"] == [] and receipt["memory_ids"] == [confirmed[1]], receipt
    assert me.get(path).json()["items"] == []
