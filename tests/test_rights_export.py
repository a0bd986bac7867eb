"""A patient's copy of everything held about them, as JSON and as an HL7 FHIR R4 Bundle, streamed; FHIR import of
care context. Through the HTTP API as the patient and as staff."""

from __future__ import annotations

import http.client
import json
import socket
from datetime import datetime, timedelta
from time import sleep

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone
from fhir.resources.R4B.bundle import Bundle

from core.identity import Identity, identity_context
from core.models import AuditEvent
from rights.fhir import MODELS
from tests.conftest import memory_body
from tests.support import PATIENT_SCOPES, Api, mint, without_timestamps
from tests.test_conversations_lifecycle import travel

EXPORT_SCOPES = PATIENT_SCOPES + " export:read"
STAFF_SCOPES = "memory:read memory:write workflow:read workflow:write consent:read export:read"
SUBMIT = "submit_prior_authorization"
B_SECRET_TIME = "07:45"
B_SECRET_TURN = "only wednesdays for the narwhal"


def allergy_resource(patient_id, rid="ehr-allergy-1", version="1", substance="Penicillin G"):
    return {"resourceType": "AllergyIntolerance", "id": rid, "meta": {"versionId": version},
            "clinicalStatus": {"coding": [{
                "system": "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical", "code": "active"}]},
            "code": {"coding": [{"system": "http://snomed.info/sct", "code": "764146007", "display": substance}]},
            "patient": {"reference": f"Patient/{patient_id}"},
            "reaction": [{"manifestation": [{"text": "hives"}], "severity": "moderate"}]}


def medication_resource(patient_id, rid="ehr-med-7", version="3"):
    return {"resourceType": "MedicationStatement", "id": rid, "meta": {"versionId": version}, "status": "active",
            "medicationCodeableConcept": {"text": "warfarin"}, "subject": {"reference": f"Patient/{patient_id}"},
            "reasonCode": [{"text": "atrial fibrillation"}], "note": [{"text": "monitoring: INR"}]}


def fhir_import(api: Api, patient_id, resource, review_by="2031-01-01T00:00:00Z"):
    return api.post(f"/v1/patients/{patient_id}/fhir-import", {"resource": resource, "review_by": review_by})


def export(api: Api, patient_id, fmt: str | None = None, status: int = 200):
    response = api.get(f"/v1/patients/{patient_id}/export", {"format": fmt} if fmt else None)
    assert response.status_code == status, getattr(response, "content", b"")
    if status != 200:
        return response.json()
    assert response.streaming
    return json.loads(b"".join(response.streaming_content))


def seed_patient(world, pid, *, clinician: str = "clinician") -> dict:
    """Everything a patient can have: preferences (current, superseded, proposed, deleted), care context
    imported from FHIR, a consent, grants, a context-pack release, a conversation with a turn, a workflow."""
    world.grant(pid, clinician, "care_coordination")
    world.grant(pid, clinician, "appointment_scheduling")
    nurse = world.staff(clinician, scope=STAFF_SCOPES)
    me = world.patient(pid, scope=EXPORT_SCOPES)
    cid = world.consent(pid)
    path = f"/v1/patients/{pid}/memories"
    assert me.post(path, memory_body(cid, "earliest_time", "09:00")).status_code == 201
    assert me.post(path, memory_body(cid, "earliest_time", "10:00")).status_code == 201  # supersedes 09:00
    doomed = me.post(path, memory_body(cid, "latest_time", "17:00")).json()["memory_id"]
    assert me.client.delete(f"{path}/{doomed}", **me._headers(None)).status_code == 200
    r = me.post(f"{path}/proposals", {"memory_type": "scheduling_preference",
                                      "fact": {"kind": "excluded_days", "days": ["friday"]},
                                      "consent_purpose": "appointment_scheduling", "consent_record_id": cid,
                                      "source_ref": "turn:1"})
    assert r.status_code == 201, r.content
    assert fhir_import(nurse, pid, allergy_resource(pid)).status_code == 201
    assert fhir_import(nurse, pid, medication_resource(pid)).status_code == 201
    r = nurse.post(f"/v1/patients/{pid}/context", {"question": "what time can we book her appointment?",
                                                    "purpose": "appointment_scheduling"})
    assert r.status_code == 200, r.content
    session = me.post("/v1/sessions", {"patient_id": str(pid), "purpose": "appointment_scheduling"}).json()
    sid = session["session"]["session_id"]
    assert me.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "mornings suit me"}).status_code == 201
    wf = me.post("/v1/workflows", {"workflow_type": "appointment_booking", "patient_id": str(pid)}).json()
    return {"nurse": nurse, "me": me, "consent_id": cid, "session_id": sid, "workflow_id": wf["workflow_id"],
            "deleted_memory": doomed}


def seed_other_patient(world):
    pid = world.patient_b
    other = world.patient(pid, scope=EXPORT_SCOPES)
    cid = world.consent(pid)
    assert other.post(f"/v1/patients/{pid}/memories", memory_body(cid, "earliest_time", B_SECRET_TIME)
                      ).status_code == 201
    sid = other.post("/v1/sessions", {"patient_id": str(pid), "purpose": "appointment_scheduling"}
                     ).json()["session"]["session_id"]
    assert other.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": B_SECRET_TURN}).status_code == 201
    return other


@pytest.mark.django_db
def test_json_export_holds_every_kind_of_record_and_nothing_of_another_patient(world):
    seeded = seed_patient(world, world.patient_a)
    seed_other_patient(world)
    body = export(seeded["me"], world.patient_a)
    assert body["format"] == "anamnesis-export/1" and body["patient"]["patient_id"] == str(world.patient_a)
    states = sorted(m["state"] for m in body["memories"])
    assert states == ["active", "active", "active", "proposed", "superseded"]
    facts = {m["fact"]["kind"]: m["fact"] for m in body["memories"] if m["state"] != "superseded"}
    assert facts["allergy"] == {"kind": "allergy", "substance": "Penicillin G", "reaction": "hives",
                                "severity": "moderate"}
    assert facts["long_term_indication"]["medication"] == "warfarin"
    assert {e["event_type"] for e in body["lifecycle_events"]} >= {"confirmed", "superseded", "proposed", "deleted"}
    assert [c["consent_record_id"] for c in body["consents"]] == [seeded["consent_id"]]
    assert {g["actor_sub"] for g in body["grants"]} == {"clinician"}
    assert len(body["releases"]) == 1 and body["release_members"]
    assert [d["memory_ids"] for d in body["deletion_receipts"]] == [[seeded["deleted_memory"]]]
    assert [s["session_id"] for s in body["conversation_sessions"]] == [seeded["session_id"]]
    assert [t["content"] for t in body["conversation_turns"]] == ["mornings suit me"]
    assert [w["workflow_id"] for w in body["workflows"]] == [seeded["workflow_id"]]
    assert body["workflow_transitions"]
    actions = {a["action"] for a in body["access_history"]}
    assert {"memory.create", "memory.delete", "memory.context_pack", "patient.export"} <= actions
    text = json.dumps(body)
    assert str(world.patient_b) not in text and B_SECRET_TIME not in text and "narwhal" not in text


@pytest.mark.django_db
def test_fhir_export_is_a_valid_r4_bundle_with_every_resource_kind(world):
    seeded = seed_patient(world, world.patient_a)
    seed_other_patient(world)
    bundle = export(seeded["me"], world.patient_a, "fhir")
    Bundle.model_validate(bundle)  # the whole Bundle, every entry's resource with it
    resources = [entry["resource"] for entry in bundle["entry"]]
    for resource in resources:  # and each on its own, as a receiving system would
        MODELS[resource["resourceType"]].model_validate(resource)
    kinds = {r["resourceType"] for r in resources}
    assert kinds == {"Patient", "Consent", "Provenance", "AuditEvent", "AllergyIntolerance", "MedicationStatement",
                     "Basic"}
    consent = next(r for r in resources if r["resourceType"] == "Consent")
    assert {c["code"] for c in consent["provision"]["purpose"]} == {"appointment_scheduling", "PATADMIN"}
    assert consent["provision"]["period"]["start"]
    allergy = next(r for r in resources if r["resourceType"] == "AllergyIntolerance")
    assert allergy["code"]["text"] == "Penicillin G" and allergy["reaction"][0]["severity"] == "moderate"
    prefs = [r for r in resources if r["resourceType"] == "Basic"]
    assert all(r["meta"]["profile"] == ["https://anamnesis.dev/fhir/StructureDefinition/anamnesis-preference"]
               for r in prefs)
    # every memory has its Provenance, and the deleted one's history is still there (by identifier only)
    provenance_targets = [t for r in resources if r["resourceType"] == "Provenance" for t in r["target"]]
    assert any(t.get("identifier", {}).get("value") == seeded["deleted_memory"] for t in provenance_targets)
    assert any(r["resourceType"] == "AuditEvent" and r["subtype"][0]["code"] == "patient.export"
               for r in resources)
    text = json.dumps(bundle)
    assert str(world.patient_b) not in text and B_SECRET_TIME not in text


@pytest.mark.django_db
def test_staff_export_and_refusals(world):
    seeded = seed_patient(world, world.patient_a)
    body = export(seeded["nurse"], world.patient_a)
    assert len(body["memories"]) == 5 and body["access_history"] == []  # staff see access history with audit:read
    # another patient, a stranger, a missing scope, a bad format
    other = world.patient(world.patient_b, scope=EXPORT_SCOPES)
    assert export(other, world.patient_a, status=403)["code"] == "no_active_consent_or_access"
    stranger = world.staff("stranger", scope=STAFF_SCOPES)
    assert export(stranger, world.patient_a, status=403)["code"] == "no_active_consent_or_access"
    no_scope = world.patient(world.patient_a)
    assert export(no_scope, world.patient_a, status=403)["code"] == "insufficient_scope"
    assert export(seeded["me"], world.patient_a, "xml", status=422)["errors"][0]["field"] == "format"


@pytest.mark.django_db
def test_the_demo_patients_and_nurse_export_over_the_api_as_in_the_portal(world):
    """The demo's patients (and its nurse, with a grant) download their export in the portal, but their API tokens
    lacked ``export:read``: the same export over the API was 403 ``insufficient_scope``. The demo agent acting for
    a patient is refused as every agent is."""
    from demo import devidp

    seed_patient(world, world.patient_a)
    me = world.patient(world.patient_a, scope=devidp.PATIENT_API_SCOPES)
    assert len(export(me, world.patient_a)["memories"]) == 5
    nurse = world.staff("clinician", scope=devidp.STAFF_API_SCOPES)  # seed_patient's, with its grants
    assert len(export(nurse, world.patient_a)["memories"]) == 5
    agent = Api(world.token(sub="patient-a", patient_id=world.patient_a, org_id=world.org,
                            scope=devidp.PATIENT_API_SCOPES, act={"sub": "scheduling-agent"}))
    assert export(agent, world.patient_a, status=403)["code"] == "agent_cannot_export"


@pytest.mark.django_db
def test_the_format_the_caller_names_wins_over_its_accept_header(world):
    """``?format=json`` with ``Accept: application/fhir+json`` (a client's default header) was 406: the format
    named in the query is exactly what the caller asked for, and is what it gets, either way round."""
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    path = f"/v1/patients/{world.patient_a}/export"
    for fmt, accept, media_type in (("json", "application/fhir+json", "application/json"),
                                    ("fhir", "application/json", "application/fhir+json")):
        r = me.get(path, {"format": fmt}, headers={"Accept": accept})
        assert r.status_code == 200, (fmt, r.status_code)
        assert r["Content-Type"].startswith(media_type), (fmt, r["Content-Type"])
        body = json.loads(b"".join(r.streaming_content))
        assert (body.get("resourceType") == "Bundle") is (fmt == "fhir"), fmt


@pytest.mark.django_db
def test_export_is_audited_and_listed_in_the_patients_activity(world):
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    export(me, world.patient_a, "fhir")
    items = me.get("/v1/audit-events").json()["items"]
    assert items[0]["action"] == "patient.export" and items[0]["reason"] == "fhir"


def test_export_streams_in_chunks_under_the_callers_identity_after_the_view_committed(committed_db, world,
                                                                                      monkeypatch):
    """The body is produced after the view's transaction committed and its identity was cleared: only the
    stream's own identity context lets row-level security show the rows, fetched two at a time."""
    from rights import export as export_module

    monkeypatch.setattr(export_module, "CHUNK", 2)
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    cid = world.consent(world.patient_a)
    for kind, time in (("earliest_time", "08:00"), ("latest_time", "18:00")):
        assert me.post(f"/v1/patients/{world.patient_a}/memories", memory_body(cid, kind, time)).status_code == 201
    me.post(f"/v1/patients/{world.patient_a}/memories", {
        "memory_type": "communication_preference", "fact": {"kind": "channel", "channel": "sms"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
    body = export(me, world.patient_a)
    assert len(body["memories"]) == 3 and len(body["lifecycle_events"]) == 3


@pytest.mark.django_db
def test_the_export_says_who_asked_for_each_operation_and_why_one_was_withdrawn(world):
    """A booking the patient's agent asked for, withdrawn when she withdrew her consent: her export says an agent
    asked for it (requested_by named only her own subject, as if she had) and why it ended (consent_revoked)."""
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    cid = world.consent(world.patient_a)
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                     scope=PATIENT_SCOPES, act="booking-agent"))
    wf = agent.post("/v1/workflows", {"workflow_type": "appointment_booking",
                                      "patient_id": str(world.patient_a)}).json()
    assert agent.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint",
                      {"expected_version": 1, "next_step": "propose_slots"}).status_code == 200
    r = agent.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
        "expected_version": 2, "next_step": "confirm_booking",
        "request_operation": {"kind": "book_appointment", "payload": {"slot_id": "S-1",
                                                                      "appointment_type": "follow_up"}}})
    assert r.status_code == 200, r.content
    assert me.post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke").status_code == 200
    [op] = export(me, world.patient_a)["workflow_operations"]
    assert (op["requested_by_kind"], op["requested_by"]) == ("agent", f"patient-{world.patient_a}")
    assert (op["status"], op["last_error_code"]) == ("cancelled", "consent_revoked")


@pytest.mark.django_db
def test_the_export_credits_what_her_agent_started_to_the_agent(world):
    """A conversation and a booking workflow the patient's agent started (a turn, a checkpoint) were credited to her
    in her export: created_by and the versions' actor_sub name her own subject (the token's, the person the agent
    acted for) and nothing named the agent, as if she had started them herself. Each row names the agent
    (agent_client_id), as a memory it proposed does; what she did herself has none. Her access history names the
    agent and her as the one it acted for."""
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    world.consent(world.patient_a)
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                     scope=PATIENT_SCOPES, act="booking-agent"))
    sid = agent.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"}
                     ).json()["session"]["session_id"]
    assert agent.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "Thursday please"}).status_code == 201
    assert me.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "not mornings"}).status_code == 201
    wf = agent.post("/v1/workflows", {"workflow_type": "appointment_booking", "patient_id": str(world.patient_a)})
    assert wf.status_code == 201, wf.content
    workflow_id = wf.json()["workflow_id"]
    assert agent.post(f"/v1/workflows/{workflow_id}/checkpoint",
                      {"expected_version": 1, "next_step": "propose_slots"}).status_code == 200
    assert me.post(f"/v1/workflows/{workflow_id}/checkpoint",
                   {"expected_version": 2, "next_step": "cancelled"}).status_code == 200
    body = export(me, world.patient_a)
    [session] = body["conversation_sessions"]
    [workflow] = body["workflows"]
    assert session["agent_client_id"] == workflow["agent_client_id"] == "booking-agent"
    assert [t["agent_client_id"] for t in body["conversation_turns"]] == ["booking-agent", None]
    assert [(t["actor_sub"], t["agent_client_id"]) for t in body["workflow_transitions"]] == [
        (f"patient-{world.patient_a}", "booking-agent")] * 2 + [(f"patient-{world.patient_a}", None)]
    started = {e["action"]: e for e in body["access_history"]
               if e["action"] in ("conversation.start", "workflow.create")}
    assert {(e["agent_client_id"], e["on_behalf_of"]) for e in started.values()} == {
        ("booking-agent", str(world.patient_a))}


@pytest.mark.django_db
def test_erase_all_then_export_leaves_nothing_personal(world):
    seeded = seed_patient(world, world.patient_a)
    me, nurse = seeded["me"], seeded["nurse"]
    r = me.client.delete(f"/v1/patients/{world.patient_a}/memories", **me._headers(None))
    assert r.status_code == 200, r.content
    receipt = r.json()
    assert {s["kind"] for s in receipt["other_copies"]} == {"conversation_sessions", "workflows"}
    assert {x["reason"] for x in receipt["retained"]} == {"clinical_record_kept_by_care_team"}
    body = export(me, world.patient_a)
    assert {m["memory_class"] for m in body["memories"]} == {"care_context"}  # kept by the care team, as said
    # the care team erases the rest
    r = nurse.client.delete(f"/v1/patients/{world.patient_a}/memories", **nurse._headers(None))
    assert r.status_code == 200, r.content
    body = export(me, world.patient_a)
    assert body["memories"] == [] and body["conversation_sessions"] == [] and body["conversation_turns"] == []
    assert all(w["state"] in ({}, {"_redacted": True}) for w in body["workflows"])
    assert all(op["payload"] == {"_redacted": True} for op in body["workflow_operations"])
    text = json.dumps(body)
    for value in ("09:00", "10:00", "friday", "Penicillin", "warfarin", "mornings suit me"):
        assert value not in text, value
    assert len(body["deletion_receipts"]) == 3
    bundle = export(me, world.patient_a, "fhir")
    assert {e["resource"]["resourceType"] for e in bundle["entry"]} == {"Patient", "Consent", "Provenance",
                                                                        "AuditEvent"}


@pytest.mark.django_db
def test_fhir_import_round_trips_and_is_idempotent_per_resource_version(world):
    world.grant(world.patient_a, "clinician", "care_coordination")
    nurse = world.staff("clinician", scope=STAFF_SCOPES)
    first = fhir_import(nurse, world.patient_a, allergy_resource(world.patient_a))
    assert first.status_code == 201, first.content
    memory = first.json()["memory"]
    assert memory["source"] == "ehr_import"
    assert memory["source_ref"] == "AllergyIntolerance/ehr-allergy-1/_history/1"
    again = fhir_import(nurse, world.patient_a, allergy_resource(world.patient_a))
    assert again.status_code == 200 and again.json()["memory_id"] == memory["memory_id"]
    assert again.json()["status"] == "already_imported"
    # the same version with other content is not silently taken for the first: a changed resource is a new version
    changed = fhir_import(nurse, world.patient_a, allergy_resource(world.patient_a, substance="Amoxicillin"))
    assert changed.status_code == 409 and changed.json()["code"] == "resource_version_conflict"
    # who may import, and the review date, are checked for a resource already imported too
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    assert fhir_import(me, world.patient_a, allergy_resource(world.patient_a)).status_code == 403
    past = fhir_import(nurse, world.patient_a, allergy_resource(world.patient_a), review_by="2001-01-01T00:00:00Z")
    assert past.status_code == 422 and past.json()["errors"][0]["field"] == "review_by"
    med = fhir_import(nurse, world.patient_a, medication_resource(world.patient_a)).json()["memory"]
    assert med["fact"] == {"kind": "long_term_indication", "medication": "warfarin",
                           "indication": "atrial fibrillation", "monitoring": "INR"}
    # round trip: export as FHIR, import the exported resource into another patient's record... as the EHR would
    bundle = export(nurse, world.patient_a, "fhir")
    exported = next(e["resource"] for e in bundle["entry"] if e["resource"]["resourceType"] == "AllergyIntolerance")
    assert exported["code"]["text"] == "Penicillin G" and exported["reaction"][0]["manifestation"][0]["text"] == "hives"
    reimport = {**exported, "id": "exported-1", "meta": {"versionId": "1"}}
    reimport.pop("extension")
    r = fhir_import(nurse, world.patient_a, reimport)
    assert r.status_code == 201, r.content
    assert r.json()["memory"]["fact"] == memory["fact"]  # same value; supersedes the first import
    current = nurse.get(f"/v1/patients/{world.patient_a}/memories").json()["items"]
    assert [m["memory_id"] for m in current if m["fact"]["kind"] == "allergy"] == [r.json()["memory_id"]]
    # a new version of the EHR resource supersedes; an older one arriving late does not undo it
    newer = fhir_import(nurse, world.patient_a, allergy_resource(world.patient_a, version="3"))
    assert newer.status_code == 201
    late = fhir_import(nurse, world.patient_a, allergy_resource(world.patient_a, version="2", substance="Pollen"))
    assert late.status_code == 409 and late.json()["code"] == "stale_resource_version", late.content
    # a subject given with its version is still this patient; a statement that ended is not a current indication
    versioned = {**allergy_resource(world.patient_a, rid="ehr-allergy-9"),
                 "patient": {"reference": f"Patient/{world.patient_a}/_history/3"}}
    assert fhir_import(nurse, world.patient_a, versioned).status_code == 201
    ended = {**medication_resource(world.patient_a, rid="ehr-med-8"), "effectivePeriod": {"end": "2011-05"}}
    r = fhir_import(nurse, world.patient_a, ended)
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "resource.effectivePeriod.end", r.content


@pytest.mark.django_db
@pytest.mark.parametrize("change, field, code", [
    ({"resourceType": "Observation"}, "resource.resourceType", "invalid_choice"),
    ({"meta": {}}, "resource.meta.versionId", "required"),
    ({"patient": {"reference": "Patient/someone-else"}}, "resource.patient", "subject_mismatch"),
    ({"reaction": [{"severity": "moderate"}]}, "resource.reaction.0.manifestation", "fhir_invalid"),
    ({"code": {"text": "x" * 200}}, "resource.fact.substance", "invalid"),
    ({"verificationStatus": {"coding": [{"code": "refuted"}]}}, "resource.verificationStatus", "not_importable"),
    # the export would present these as confirmed, active allergies
    ({"verificationStatus": {"coding": [{"code": "unconfirmed"}]}}, "resource.verificationStatus", "not_importable"),
    ({"clinicalStatus": {"coding": [{"code": "resolved"}]}}, "resource.clinicalStatus", "not_importable"),
    ({"modifierExtension": [{"url": "http://example.org/not-really", "valueBoolean": True}]},
     "resource.modifierExtension", "not_importable"),
    # a status is read in HL7's code system: a local "confirmed" listed first decides nothing
    ({"verificationStatus": {"coding": [{"system": "http://example.org/local", "code": "confirmed"}, {
        "system": "http://terminology.hl7.org/CodeSystem/allergyintolerance-verification",
        "code": "entered-in-error"}]}}, "resource.verificationStatus", "not_importable"),
    ({"clinicalStatus": {"coding": [{"system": "http://example.org/local", "code": "active"}, {
        "system": "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical", "code": "resolved"}]}},
     "resource.clinicalStatus", "not_importable"),
    ({"clinicalStatus": {"coding": [{"system": "http://example.org/local", "code": "active"}]}},
     "resource.clinicalStatus", "not_importable"),
    ({"reaction": [{"manifestation": [{"text": "hives"}], "severity": "catastrophic"}]},
     "resource.reaction[0].severity", "invalid_choice"),
    # every part of the subject names this patient, locally
    ({"patient": {"reference": "Group/PATIENT"}}, "resource.patient", "subject_mismatch"),
    ({"patient": {"reference": "http://evil.example/fhir/Patient/PATIENT"}}, "resource.patient", "subject_mismatch"),
    ({"patient": {"reference": "Patient/PATIENT", "identifier": {"system": "urn:anamnesis:patient",
                                                                 "value": "OTHER"}}},
     "resource.patient.identifier", "subject_mismatch"),
])
def test_fhir_import_refuses_bad_resources_clearly(world, change, field, code):
    world.grant(world.patient_a, "clinician", "care_coordination")
    nurse = world.staff("clinician", scope=STAFF_SCOPES)
    change = json.loads(json.dumps(change).replace("PATIENT", str(world.patient_a))
                        .replace("OTHER", str(world.patient_b)))
    r = fhir_import(nurse, world.patient_a, {**allergy_resource(world.patient_a), **change})
    assert r.status_code == 422, r.content
    assert r.json()["code"] == "validation_error"
    assert any(e["field"].startswith(field) and e["code"] == code for e in r.json()["errors"]), r.json()


@pytest.mark.django_db
def test_an_imported_course_that_ends_is_not_served_as_current_after_its_end(world):
    """A MedicationStatement whose effectivePeriod ends later is valid until then: once it ends, search and the
    list no longer answer it as a current long-term medicine (it was imported without an end and served forever)."""
    world.grant(world.patient_a, "clinician", "care_coordination")
    nurse = world.staff("clinician", scope=STAFF_SCOPES)
    end = (timezone.now() + timedelta(seconds=3)).replace(microsecond=0)
    statement = {**medication_resource(world.patient_a, rid="ehr-med-course"),
                 "medicationCodeableConcept": {"text": "prednisolone"}, "reasonCode": [{"text": "asthma flare"}],
                 "effectivePeriod": {"start": "2026-01-01", "end": end.strftime("%Y-%m-%dT%H:%M:%SZ")}}
    r = fhir_import(nurse, world.patient_a, statement)
    assert r.status_code == 201, r.content
    memory = r.json()["memory"]
    assert datetime.fromisoformat(memory["valid_until"]) == end
    question = {"q": "is she on prednisolone?", "purpose": "care_coordination"}
    search = nurse.get(f"/v1/patients/{world.patient_a}/memories/search", question).json()
    assert [i["memory"]["memory_id"] for i in search["items"]] == [memory["memory_id"]]
    sleep(max(0.0, (end - timezone.now()).total_seconds()) + 0.2)
    assert nurse.get(f"/v1/patients/{world.patient_a}/memories").json()["items"] == []
    search = nurse.get(f"/v1/patients/{world.patient_a}/memories/search", question).json()
    assert search["items"] == [] and search["confidence"] == "none"


@pytest.mark.django_db
def test_a_modifier_extension_anywhere_refuses_the_import(world):
    """FHIR R4: an unknown modifierExtension must not be ignored, wherever it stands (here a dosage)."""
    world.grant(world.patient_a, "clinician", "care_coordination")
    nurse = world.staff("clinician", scope=STAFF_SCOPES)
    statement = {**medication_resource(world.patient_a), "dosage": [{"text": "as directed", "modifierExtension": [
        {"url": "http://example.org/fhir/StructureDefinition/not-taken", "valueBoolean": True}]}]}
    r = fhir_import(nurse, world.patient_a, statement)
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [
        ("resource.dosage[0].modifierExtension", "not_importable")]
    assert nurse.get(f"/v1/patients/{world.patient_a}/memories").json()["items"] == []


@pytest.mark.django_db
def test_patients_cannot_import_care_context(world):
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    r = fhir_import(me, world.patient_a, allergy_resource(world.patient_a))
    assert r.status_code == 403


FOOD_NOTE = {  # an organisation's type that reuses the kind name "allergy" with fields of its own
    "name": "food_note", "memory_class": "account_fact", "label": "Food note", "purposes": ["appointment_scheduling"],
    "writers": ["patient", "staff"], "encrypted": False, "review": False, "fetch_live": False,
    "default_validity_days": None, "retention_days": None, "supersession": ["kind"],
    "text": {"allergy": "Food: {food}"},
    "schema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "oneOf": [
        {"type": "object", "properties": {"kind": {"const": "allergy"}, "food": {"type": "string", "maxLength": 40}},
         "required": ["kind", "food"], "additionalProperties": False}]},
}


@pytest.mark.django_db
def test_fhir_export_holds_types_without_kinds_and_organisation_types_that_reuse_a_clinical_kind(world):
    admin = world.staff("type-admin", scope="memory_type:write memory:read")
    assert admin.post("/v1/memory-types", FOOD_NOTE).status_code == 201
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    cid = world.consent(world.patient_a)
    for memory_type, fact in [("transport_need", {"needs": ["escort"]}),
                              ("dietary_requirement", {"diets": ["vegan"]}),
                              ("food_note", {"kind": "allergy", "food": "nuts"})]:
        r = me.post(f"/v1/patients/{world.patient_a}/memories", {
            "memory_type": memory_type, "fact": fact, "consent_purpose": "appointment_scheduling",
            "consent_record_id": cid})
        assert r.status_code == 201, r.content
    bundle = export(me, world.patient_a, "fhir")  # the whole stream, not cut off half-way
    Bundle.model_validate(bundle)
    resources = [entry["resource"] for entry in bundle["entry"]]
    assert not [r for r in resources if r["resourceType"] == "AllergyIntolerance"]  # no clinical fact was stored
    kinds = {sub["valueCode"] for r in resources if r["resourceType"] == "Basic"
             for ext in r["extension"] if ext["url"].endswith("preference-fact")
             for sub in ext["extension"] if sub["url"] == "kind"}
    assert kinds == {"transport_need", "dietary_requirement", "allergy"}


@pytest.mark.django_db
def test_fhir_import_refuses_fields_it_does_not_know(world):
    world.grant(world.patient_a, "clinician", "care_coordination")
    nurse = world.staff("clinician", scope=STAFF_SCOPES)
    r = nurse.post(f"/v1/patients/{world.patient_a}/fhir-import", {
        "resource": allergy_resource(world.patient_a), "review_by": "2031-01-01T00:00:00Z", "state": "active"})
    assert r.status_code == 422 and r.json()["code"] == "validation_error"
    assert nurse.get(f"/v1/patients/{world.patient_a}/memories").json()["items"] == []


@pytest.mark.django_db
def test_both_exports_hold_the_patients_directory_entry(world):
    """Name, date of birth and the organisation's identifiers are data held about the patient too."""
    admin = world.staff("org-admin", scope="patient:write patient:read grant:write")
    r = admin.post("/v1/patients", {"patient_id": str(world.patient_a), "display_name": "Alice Nowak",
                                    "birth_date": "1957-03-14",
                                    "identifiers": [{"system": "urn:oid:1.2.3.4", "value": "MRN-0001"}]})
    assert r.status_code == 201, r.content
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    body = export(me, world.patient_a)
    assert body["directory"] == [{"patient_id": str(world.patient_a), "display_name": "Alice Nowak",
                                  "birth_date": "1957-03-14",
                                  "identifiers": [{"system": "urn:oid:1.2.3.4", "value": "MRN-0001"}]}]
    bundle = export(me, world.patient_a, "fhir")
    Bundle.model_validate(bundle)
    patient = next(e["resource"] for e in bundle["entry"] if e["resource"]["resourceType"] == "Patient")
    assert patient["name"] == [{"text": "Alice Nowak"}] and patient["birthDate"] == "1957-03-14"
    assert {"system": "urn:oid:1.2.3.4", "value": "MRN-0001"} in patient["identifier"]
    # a patient with no directory entry: an empty section, and the Patient holds our id only
    other = world.patient(world.patient_b, scope=EXPORT_SCOPES)
    assert export(other, world.patient_b)["directory"] == []
    patient_b = next(e["resource"] for e in export(other, world.patient_b, "fhir")["entry"]
                     if e["resource"]["resourceType"] == "Patient")
    assert "name" not in patient_b and len(patient_b["identifier"]) == 1


@pytest.mark.django_db
def test_exports_withhold_values_once_consent_is_withdrawn_as_every_read_does(world):
    seeded = seed_patient(world, world.patient_a)
    me, nurse = seeded["me"], seeded["nurse"]
    r = me.post(f"/v1/patients/{world.patient_a}/consents/{seeded['consent_id']}/revoke")
    assert r.status_code == 200, r.content
    for reader in (me, nurse):
        body = export(reader, world.patient_a)
        preferences = [m for m in body["memories"] if m["consent_record_id"] == seeded["consent_id"]]
        assert preferences and all(m["fact"] is None and m["text"] is None for m in preferences)
        assert {m["state"] for m in preferences} <= {"expired", "superseded", "proposed"}
        memories = without_timestamps(json.dumps(body["memories"]))
        assert "10:00" not in memories and "friday" not in memories
        bundle = without_timestamps(json.dumps(export(reader, world.patient_a, "fhir")))
        assert "10:00" not in bundle and "Penicillin" in bundle  # care context has its own basis


@pytest.mark.django_db
def test_an_expired_conversation_is_exported_as_expired_without_slots_or_tool_results(world):
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    sid = me.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"}
                  ).json()["session"]["session_id"]
    assert me.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "Thursday after 2pm"}).status_code == 201
    assert me.post(f"/v1/sessions/{sid}/turns", {"role": "tool", "content": "", "tool_name": "scheduling.hold_slot",
                                                 "tool_result": {"slot": "thu-1430"}}).status_code == 201
    travel(world.org, world.patient_a, sid, idle_ago=timedelta(hours=4, seconds=1))
    assert me.get(f"/v1/sessions/{sid}").status_code == 410
    body = export(me, world.patient_a)
    (session,) = body["conversation_sessions"]
    assert session["status"] == "expired" and session["slots"] == {}
    turns = {t["role"]: t for t in body["conversation_turns"]}
    assert turns["tool"]["tool_result"] is None and "thu-1430" not in json.dumps(body)
    assert turns["user"]["content"] == "Thursday after 2pm"


VISIT_NOTE = {  # an organisation's type with free text, a yes/no, a number and a nested object
    "name": "visit_note_pref", "memory_class": "preference", "label": "Visit notes",
    "purposes": ["appointment_scheduling"], "writers": ["patient", "staff"], "supersession": [],
    "text": "Visit note: {note}[, flag {flag}][, count {n}]",
    "schema": {"type": "object", "additionalProperties": False, "required": ["note"], "properties": {
        "note": {"type": "string", "maxLength": 50}, "flag": {"type": "boolean"},
        "n": {"type": "integer", "minimum": 0, "maximum": 10},
        "where": {"type": "object", "additionalProperties": False,
                  "properties": {"room": {"type": "string", "maxLength": 10}}}}},
}


@pytest.mark.django_db
def test_fhir_export_holds_empty_text_yes_no_and_nested_fields_of_an_organisation_type(world):
    """A fact with an empty text field ("" is a valid fact, and FHIR has no empty string) made the library refuse
    the Basic resource half-way through the stream: the patient's FHIR download ended short, every time."""
    assert world.staff("type-admin", scope="memory_type:write memory:read").post(
        "/v1/memory-types", VISIT_NOTE).status_code == 201
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    cid = world.consent(world.patient_a)
    for fact in ({"note": ""}, {"note": "ok", "flag": True, "n": 0, "where": {"room": "B2"}},
                 {"note": "x", "where": {"room": ""}}):
        r = me.post(f"/v1/patients/{world.patient_a}/memories", {
            "memory_type": "visit_note_pref", "fact": fact, "consent_purpose": "appointment_scheduling",
            "consent_record_id": cid})
        assert r.status_code == 201, r.content
    bundle = export(me, world.patient_a, "fhir")  # the whole stream, not cut off half-way
    Bundle.model_validate(bundle)
    facts = [[sub for sub in ext["extension"] if sub["url"] not in ("kind", "text", "purpose")]
             for entry in bundle["entry"] if entry["resource"]["resourceType"] == "Basic"
             for ext in entry["resource"]["extension"] if ext["url"].endswith("preference-fact")]
    assert sorted((sorted(f, key=lambda sub: sub["url"]) for f in facts), key=len) == [
        [], [{"url": "note", "valueString": "x"}],
        [{"url": "flag", "valueString": "true"}, {"url": "n", "valueString": "0"},
         {"url": "note", "valueString": "ok"}, {"url": "where", "extension": [{"url": "room", "valueString": "B2"}]}]]


@pytest.mark.django_db
def test_an_agent_acting_for_the_patient_cannot_export_the_whole_record(world):
    """Each of an agent's reads is held to its purpose and the patient's consent for it: the export gave it all of
    the record instead (a care context allergy its list is refused, 403 purpose_not_permitted, who has access, the
    whole access history). The refusal is audited."""
    seeded = seed_patient(world, world.patient_a)
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                     scope=EXPORT_SCOPES, act="scheduling-agent"))
    assert agent.get(f"/v1/patients/{world.patient_a}/memories",
                     {"purpose": "care_coordination"}).json()["code"] == "purpose_not_permitted"
    for fmt in ("json", "fhir"):
        problem = export(agent, world.patient_a, fmt, status=403)
        assert problem["code"] == "agent_cannot_export", problem
    assert export(agent, world.patient_b, status=403)["code"] == "agent_cannot_export"  # nothing said of B
    assert len(export(seeded["me"], world.patient_a)["memories"]) == 5  # the patient in person still does
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        refused = list(AuditEvent.objects.filter(organization_id=world.org, action="patient.export",
                                                 outcome="denied").values_list("reason", flat=True))
    assert refused == ["agent_cannot_export"] * 3


@pytest.mark.django_db
def test_fhir_export_keeps_an_allergys_coded_substance_and_the_care_teams_note(world):
    """Care context from version 2 holds the substance's code (SNOMED CT, RxNorm, UNII) and the care team's note
    ("use nitrile gloves"); the FHIR AllergyIntolerance carried neither (code.text alone, no note), so the patient's
    FHIR copy and a receiving EHR lost both. The JSON export always had them."""
    world.grant(world.patient_a, "clinician", "care_coordination")
    nurse = world.staff("clinician", scope=STAFF_SCOPES)
    fact = {"kind": "allergy", "substance": "Latex", "reaction": "hives", "note": "use nitrile gloves",
            "coded_substance": {"system": "http://snomed.info/sct", "code": "111088007"}}
    r = nurse.post(f"/v1/patients/{world.patient_a}/memories", {
        "memory_type": "care_context", "fact": fact, "consent_purpose": "care_coordination",
        "review_by": "2031-01-01T00:00:00Z", "source": "staff_entered"})
    assert r.status_code == 201, r.content
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    assert [m["fact"] for m in export(me, world.patient_a)["memories"]] == [fact]
    bundle = export(me, world.patient_a, "fhir")
    Bundle.model_validate(bundle)
    allergy = next(e["resource"] for e in bundle["entry"] if e["resource"]["resourceType"] == "AllergyIntolerance")
    assert allergy["code"] == {"text": "Latex", "coding": [{"system": "http://snomed.info/sct", "code": "111088007"}]}
    assert allergy["note"] == [{"text": "use nitrile gloves"}]
    assert allergy["reaction"][0]["manifestation"] == [{"text": "hives"}]


@pytest.mark.django_db
def test_exports_credit_an_agents_proposal_to_the_agent_not_the_patient(world):
    """An agent's token names the patient it acts for as its subject: the FHIR Provenance of a value it proposed
    said the patient entered it, and the proposal's lifecycle event named only the patient in both exports, as if
    the patient had stated it. The agent (its client id) is named, on behalf of the patient; the patient's own
    confirmation stays theirs."""
    pid = world.patient_a
    cid = world.consent(pid)
    agent = Api(mint(world.keyring, sub=f"patient-{pid}", org_id=world.org, patient_id=pid, scope=PATIENT_SCOPES,
                     act="scheduling-agent"))
    r = agent.post(f"/v1/patients/{pid}/memories", memory_body(cid, "earliest_time", "11:00"))
    assert r.status_code in (200, 201) and r.json()["status"] == "proposed", r.content
    memory_id = r.json()["memory"]["memory_id"]
    me = world.patient(pid, scope=EXPORT_SCOPES)
    assert me.post(f"/v1/patients/{pid}/memories/{memory_id}/confirm", {}).status_code == 200

    r = agent.post(f"/v1/patients/{pid}/context", {"question": "what time can I book?",
                                                   "purpose": "appointment_scheduling"})
    assert r.status_code == 200, r.content
    body = export(me, pid)
    # what a context pack disclosed went to the agent: the release names it beside the patient it acted for
    assert [(x["actor_sub"], x["agent_client_id"]) for x in body["releases"]] == [
        (f"patient-{pid}", "scheduling-agent")]
    events = {e["event_type"]: e for e in body["lifecycle_events"]}
    # its requests in the access history name the patient it acted for, as GET /v1/audit-events does
    assert {(a["agent_client_id"], a["on_behalf_of"]) for a in body["access_history"]
            if a["agent_client_id"]} == {("scheduling-agent", str(pid))}
    assert (events["proposed"]["actor_sub"], events["proposed"]["agent_client_id"]) == (
        f"patient-{pid}", "scheduling-agent")
    assert events["confirmed"]["agent_client_id"] is None

    bundle = export(me, pid, "fhir")
    Bundle.model_validate(bundle)
    agent_who = {"identifier": {"system": "urn:anamnesis:agent-client", "value": "scheduling-agent"}}
    patient_who = {"identifier": {"system": "urn:anamnesis:actor", "value": f"patient-{pid}"}}
    provenances = [e["resource"] for e in bundle["entry"] if e["resource"]["resourceType"] == "Provenance"]
    created = next(p for p in provenances if p["activity"]["coding"] == [
        {"system": "http://terminology.hl7.org/CodeSystem/v3-DataOperation", "code": "CREATE"}])
    assert created["agent"][0]["who"] == agent_who and created["agent"][0]["onBehalfOf"] == patient_who
    by_event = {p["activity"]["coding"][1]["code"]: p["agent"] for p in provenances
                if len(p["activity"]["coding"]) == 2}
    assert by_event["proposed"] == [{"who": agent_who, "onBehalfOf": patient_who}]
    assert by_event["confirmed"] == [{"who": patient_who}]


@pytest.mark.django_db
def test_exports_show_a_consent_past_its_expiry_as_expired_not_in_force(world):
    """The consent list says ``expired`` once a consent's expiry passed; both exports still said it was in force
    (JSON ``granted``, a FHIR Consent ``active``), the patient's copy contradicting what every read showed."""
    me = world.patient(world.patient_a, scope=EXPORT_SCOPES)
    later = (timezone.now() + timedelta(days=1)).isoformat()
    cid = me.post(f"/v1/patients/{world.patient_a}/consents",
                  {"purpose": "appointment_scheduling", "expires_at": later}).json()["consent_record_id"]
    kept = world.consent(world.patient_a, "communication")
    with identity_context(Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)), \
            connection.cursor() as cur:
        cur.execute("UPDATE patient_consent SET granted_at = now() - interval '2 days', "
                    "expires_at = now() - interval '1 second' WHERE consent_record_id = %s", [cid])
    listed = {c["consent_record_id"]: c["status"] for c in me.get(
        f"/v1/patients/{world.patient_a}/consents").json()["items"]}
    assert listed == {cid: "expired", kept: "granted"}
    assert {c["consent_record_id"]: c["status"] for c in export(me, world.patient_a)["consents"]} == listed
    bundle = export(me, world.patient_a, "fhir")
    Bundle.model_validate(bundle)
    assert {e["resource"]["id"]: e["resource"]["status"] for e in bundle["entry"]
            if e["resource"]["resourceType"] == "Consent"} == {cid: "inactive", kept: "active"}


@pytest.mark.django_db
def test_fhir_export_never_says_a_clinical_value_set_aside_has_ended(world):
    """Staff set a doubtful allergy and medication statement aside (quarantine): the allergy was exported
    clinicalStatus inactive (to a receiving system: the allergy is over) and the statement status completed (the
    course ended), when neither is known to have ended. The allergy is active and unconfirmed, the statement's
    status unknown."""
    world.grant(world.patient_a, "clinician", "care_coordination")
    nurse = world.staff("clinician", scope=STAFF_SCOPES)
    path = f"/v1/patients/{world.patient_a}/memories"
    for fact in ({"kind": "allergy", "substance": "Latex"},
                 {"kind": "long_term_indication", "medication": "warfarin", "indication": "atrial fibrillation"}):
        r = nurse.post(path, {"memory_type": "care_context", "fact": fact, "consent_purpose": "care_coordination",
                              "review_by": "2031-01-01T00:00:00Z", "source": "staff_entered"})
        assert r.status_code == 201, r.content
        r = nurse.post(f"{path}/{r.json()['memory_id']}/quarantine", {"reason_code": "disputed_by_patient"})
        assert r.status_code == 200, r.content
    bundle = export(world.patient(world.patient_a, scope=EXPORT_SCOPES), world.patient_a, "fhir")
    Bundle.model_validate(bundle)
    resources = {e["resource"]["resourceType"]: e["resource"] for e in bundle["entry"]}
    allergy = resources["AllergyIntolerance"]
    assert (allergy["clinicalStatus"]["coding"][0]["code"], allergy["verificationStatus"]["coding"][0]["code"]) == (
        "active", "unconfirmed")
    assert resources["MedicationStatement"]["status"] == "unknown"


SEED_ACCESS_HISTORY = """
INSERT INTO audit_event (id, occurred_at, organization_id, patient_id, actor_sub, actor_kind, action,
                         resource_type, resource_id, purpose, outcome, correlation_id)
SELECT gen_random_uuid(), now() - k * interval '100 milliseconds', %(org)s, %(patient)s, 'nurse', 'staff',
       'memory.list', 'memory', NULL, 'appointment_scheduling', 'success', 'seed-' || k
  FROM generate_series(1, %(count)s) AS k
"""


@pytest.mark.slow
def test_a_slow_export_reader_holds_no_database_snapshot_or_connection(committed_db, world, jwks_server):
    """A patient with a long access history (about 10 MB of JSON) downloads it over a slow link: the export was
    read from the database while it was sent, so its REPEATABLE READ transaction (a snapshot that keeps VACUUM
    from every row changed meanwhile) and its pooled connection stayed open for as long as the client took, each
    part of the answer allowed the write timeout. The export is built first, the transaction ends, and only then
    is it sent: while the client reads nothing, no connection of the service is in a transaction, and the body,
    read afterwards, is the whole export."""
    from tests.conftest import admin_connect
    from tests.fakes.service import LiveService

    pid = world.patient_a
    token = world.token(sub=f"patient-{pid}", patient_id=pid, scope=EXPORT_SCOPES)
    with admin_connect() as admin:
        admin.execute(SEED_ACCESS_HISTORY, {"org": world.org, "patient": pid, "count": 30000})
    service = LiveService(jwks_server.url, workers=1, threads=2,
                          extra_env={"WEB_RESPONSE_WRITE_TIMEOUT_SECONDS": "60"})
    sock = socket.socket()
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(30)
        sock.connect(("127.0.0.1", service.port))
        sock.sendall(f"GET /v1/patients/{pid}/export HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}"
                     f"\r\nConnection: close\r\n\r\n".encode())
        response = http.client.HTTPResponse(sock)
        response.begin()  # the head (and what fits in one buffer of the body)
        assert response.status == 200, response.status
        in_transaction = None
        for _ in range(20):  # the service's side fills its buffers, then waits for the client
            sleep(0.5)
            with admin_connect() as admin:
                in_transaction = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND usename = %s AND xact_start IS NOT NULL",
                    [settings.DB_TOPOLOGY.runtime.user]).fetchone()[0]
            if in_transaction:
                break
        assert in_transaction == 0, "a connection of the service stays in the export's transaction"
        body = json.loads(response.read())
        assert len(body["access_history"]) >= 30000
    finally:
        sock.close()
        service.close()
