"""Consents (patients and staff with evidence) and access grants (organisation administrators)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from consent.models import ConsentRecord
from core.identity import ACTOR_PATIENT, Identity, identity_context
from tests.conftest import in_directory, memory_body

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def registered(world):
    """Grants are given for patients of the organisation's directory: both of the world's are there."""
    for patient in (world.patient_a, world.patient_b):
        in_directory(world.org, patient)


def consents(pid) -> str:
    return f"/v1/patients/{pid}/consents"


def test_patient_records_lists_and_revokes_own_consent(world):
    api = world.patient(world.patient_a)
    r = api.post(consents(world.patient_a), {"purpose": "appointment_scheduling"})
    assert r.status_code == 201, r.content
    consent = r.json()
    assert consent["status"] == "granted" and consent["evidence_ref"].startswith("patient-self:")
    again = api.post(consents(world.patient_a), {"purpose": "appointment_scheduling"})
    assert again.status_code == 200 and again.json()["consent_record_id"] == consent["consent_record_id"]
    listed = api.get(consents(world.patient_a)).json()["items"]
    assert [c["consent_record_id"] for c in listed] == [consent["consent_record_id"]]
    r = api.post(f"{consents(world.patient_a)}/{consent['consent_record_id']}/revoke")
    assert r.status_code == 200 and r.json()["status"] == "revoked" and r.json()["revoked_at"]
    # revoking twice is a no-op, and a new consent can be given afterwards
    assert api.post(f"{consents(world.patient_a)}/{consent['consent_record_id']}/revoke").status_code == 200
    assert api.post(consents(world.patient_a), {"purpose": "appointment_scheduling"}).status_code == 201


def test_staff_record_consent_with_evidence_only_under_a_grant(world):
    nurse = world.staff("nurse-1")
    body = {"purpose": "appointment_scheduling", "evidence_ref": "signed-form-2291"}
    r = nurse.post(consents(world.patient_a), body)
    assert r.status_code == 403 and r.json()["code"] == "no_active_consent_or_access"
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    r = nurse.post(consents(world.patient_a), {"purpose": "appointment_scheduling"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "evidence_ref"
    r = nurse.post(consents(world.patient_a), body)
    assert r.status_code == 201 and r.json()["evidence_ref"] == "signed-form-2291"
    assert r.json()["recorded_by"] == "nurse-1"


def test_consent_validation(world):
    api = world.patient(world.patient_a)
    past = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    for body, field in (({"purpose": "marketing"}, "purpose"), ({}, "purpose"),
                        ({"purpose": "communication", "expires_at": past}, "expires_at"),
                        ({"purpose": "communication", "colour": "red"}, "colour")):
        r = api.post(consents(world.patient_a), body)
        assert r.status_code == 422, (body, r.content)
        assert field in [e["field"] for e in r.json()["errors"]]
    assert api.get(consents(world.patient_a)).json()["items"] == []


def test_consents_of_others_are_invisible_and_not_revocable(world):
    cid = world.consent(world.patient_a)
    other = world.patient(world.patient_b)
    assert other.get(consents(world.patient_a)).json()["items"] == []
    r = other.post(f"{consents(world.patient_a)}/{cid}/revoke")
    assert r.status_code == 404
    r2 = other.post(f"{consents(world.patient_a)}/{uuid.uuid4()}/revoke")
    assert r2.status_code == 404 and r.json()["code"] == r2.json()["code"] == "not_found"


def test_admin_grants_and_revokes_access(world):
    world.consent(world.patient_a)
    nurse = world.staff("nurse-1")
    assert nurse.get(consents(world.patient_a)).json()["items"] == []
    grant = world.grant(world.patient_a, "nurse-1", "appointment_scheduling",
                        expires_at=(datetime.now(UTC) + timedelta(days=30)).isoformat())
    assert grant["granted_by"] == "org-admin"
    assert len(nurse.get(consents(world.patient_a)).json()["items"]) == 1
    listed = world.admin().get("/v1/grants", {"patient_id": str(world.patient_a)}).json()["items"]
    assert [g["grant_id"] for g in listed] == [grant["grant_id"]]
    r = world.admin().post(f"/v1/grants/{grant['grant_id']}/revoke", {"reason": "shift ended"})
    assert r.status_code == 200 and r.json()["revoked_at"]
    assert nurse.get(consents(world.patient_a)).json()["items"] == []


def test_only_administrators_grant(world):
    body = {"patient_id": str(world.patient_a), "actor_sub": "nurse-1", "purpose": "appointment_scheduling",
            "expires_at": None}
    r = world.staff("nurse-1", scope="memory:read").post("/v1/grants", body)
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"
    # a patient token never grants, even with the scope
    r = world.patient(world.patient_a, scope="grant:write").post("/v1/grants", body)
    assert r.status_code == 403
    # an administrator of another organisation cannot revoke this one's grants
    grant = world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    r = world.admin(org=world.other_org).post(f"/v1/grants/{grant['grant_id']}/revoke", {})
    assert r.status_code == 404


def test_grant_validation(world):
    admin = world.admin()
    r = admin.post("/v1/grants", {"patient_id": "x", "actor_sub": "", "purpose": "spying"})
    assert r.status_code == 422
    fields = {e["field"] for e in r.json()["errors"]}
    assert {"patient_id", "actor_sub", "purpose"} <= fields and "expires_at" not in fields  # optional: until revoked
    past = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    r = admin.post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": "n", "purpose": "communication",
                                  "expires_at": past})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "expires_at"
    assert admin.get("/v1/grants").json()["items"] == []


def test_a_grant_for_a_patient_not_in_the_organisations_directory_is_refused_the_same_wherever_they_are(world):
    """An administrator grants access to a patient of their organisation's directory. An id it does not hold (a
    typo, nobody, or a patient registered in another organisation) is 422 ``unknown_patient`` on ``patient_id``,
    the same answer whichever it is, so the refusal tells nothing of other organisations; nothing is written."""
    from tests.test_directory import register

    elsewhere = uuid.UUID(register(world, "Olga Obca", "1980-02-02", "MRN-O", org=world.other_org)["patient_id"])
    admin = world.admin()
    answers = []
    for patient in (uuid.uuid4(), elsewhere):
        r = admin.post("/v1/grants", {"patient_id": str(patient), "actor_sub": "nurse-1",
                                      "purpose": "appointment_scheduling"})
        assert r.status_code == 422, r.content
        assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("patient_id", "unknown_patient")]
        answers.append({k: v for k, v in r.json().items() if k != "request_id"})
    assert answers[0] == answers[1]
    assert admin.get("/v1/grants").json()["items"] == []
    r = admin.post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": "nurse-1",
                                  "purpose": "appointment_scheduling"})
    assert r.status_code == 201, r.content


@pytest.mark.parametrize("sub", ["nurse\n9", "nurse-9\u0007", "\u202e9-esrun", "nurse\u200b9", "nurse\u20289"])
def test_a_grant_to_a_subject_no_token_can_carry_is_refused_and_not_written(world, sub):
    """A grant names a token's subject: one holding a control, invisible or direction character (no token carries
    it: 401) is 422 ``unstorable_character``, as for the staff register and the console's form, and
    nothing is written ("\u202e9-esrun" read as "nurse-9" in the grants list)."""
    admin = world.admin()
    r = admin.post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": sub,
                                  "purpose": "appointment_scheduling"})
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("actor_sub", "unstorable_character")]
    assert admin.get("/v1/grants").json()["items"] == []


@pytest.mark.parametrize("sub", [12, 1.5, True])
def test_a_subject_sent_as_a_number_is_refused_not_read_as_its_digits(world, sub):
    """DRF's text fields take 12 as "12": a grant to the subject "12" nobody meant. Text is sent as text."""
    admin = world.admin()
    r = admin.post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": sub,
                                  "purpose": "appointment_scheduling"})
    assert r.status_code == 422, r.content
    assert r.json()["errors"] == [{"field": "actor_sub", "message": "Not a valid string.", "code": "invalid"}]
    assert admin.get("/v1/grants").json()["items"] == []


def test_staff_see_only_their_own_grants_and_administrators_only_their_organisation(world):
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    world.grant(world.patient_b, "nurse-2", "appointment_scheduling")
    from consent.models import AccessGrant
    from core.identity import Identity, identity_context

    with identity_context(Identity(org_id=world.org, actor_sub="nurse-1")):
        assert list(AccessGrant.objects.values_list("actor_sub", flat=True)) == ["nurse-1"]
    assert len(world.admin().get("/v1/grants").json()["items"]) == 2
    assert world.admin(org=world.other_org).get("/v1/grants").json()["items"] == []


def test_the_grant_list_is_read_a_page_at_a_time(world):
    """An organisation's grant list stopped at its newest 500 with nothing saying so. Pages of `limit` (default
    500) follow next_cursor to the oldest; a cursor the list never gave is 422 on cursor."""
    made = [world.grant(world.patient_a, f"nurse-{i}", "appointment_scheduling")["grant_id"] for i in range(3)]
    admin = world.admin()
    first = admin.get("/v1/grants", {"limit": 2}).json()
    assert len(first["items"]) == 2 and first["next_cursor"]
    rest = admin.get("/v1/grants", {"limit": 2, "cursor": first["next_cursor"]}).json()
    assert len(rest["items"]) == 1 and rest["next_cursor"] is None
    assert sorted(g["grant_id"] for g in first["items"] + rest["items"]) == sorted(made)
    assert admin.get("/v1/grants").json()["next_cursor"] is None
    r = admin.get("/v1/grants", {"cursor": "nurse-1"})
    assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["cursor"], r.content


def test_a_grant_to_a_patients_subject_opens_nothing_to_that_patients_token(world):
    """Grants are staff's: a patient's token reaches that patient alone, even if an administrator granted its
    subject access to someone else (the same subject signing in as staff does get what was granted)."""
    a, b = world.patient_a, world.patient_b
    cid = world.consent(b)
    bob = world.patient(b)
    stored = bob.post(f"/v1/patients/{b}/memories", memory_body(cid))
    assert stored.status_code == 201
    memory_id = stored.json()["memory_id"]
    world.grant(b, f"patient-{a}", "appointment_scheduling")
    alice = world.patient(a)
    assert alice.get(f"/v1/patients/{b}/memories").json()["items"] == []
    assert alice.get(f"/v1/patients/{b}/memories/{memory_id}").status_code == 404
    assert alice.get(f"/v1/patients/{b}/consents").json()["items"] == []
    as_staff = world.staff(f"patient-{a}", scope="memory:read")
    assert [m["memory_id"] for m in as_staff.get(f"/v1/patients/{b}/memories").json()["items"]] == [memory_id]


def test_asking_again_with_other_terms_is_409_and_changes_nothing(world):
    """The same consent or grant again is answered with the one in force (200); other terms (a shorter expiry for
    a grant, say) are a conflict, never an answer that looks like success while access stays open."""
    later = (datetime.now(UTC) + timedelta(days=200)).isoformat()
    sooner = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    body = {"patient_id": str(world.patient_a), "actor_sub": "nurse-t", "purpose": "communication",
            "expires_at": later, "reason": "a"}
    first = world.admin().post("/v1/grants", body)
    assert first.status_code == 201
    assert world.admin().post("/v1/grants", body).json()["grant_id"] == first.json()["grant_id"]
    for change in ({"expires_at": sooner}, {"expires_at": None}):
        r = world.admin().post("/v1/grants", {**body, **change})
        assert r.status_code == 409 and r.json()["code"] == "grant_exists", (change, r.content)
    # another reason changes no access: the grant in force is the answer
    assert world.admin().post("/v1/grants", {**body, "reason": "b"}).json()["grant_id"] == first.json()["grant_id"]
    grants = world.admin().get("/v1/grants", {"patient_id": str(world.patient_a)}).json()["items"]
    assert [(g["expires_at"], g["reason"]) for g in grants] == [(first.json()["expires_at"], "a")]

    patient = world.patient(world.patient_a)
    given = patient.post(consents(world.patient_a), {"purpose": "communication", "expires_at": later})
    assert given.status_code == 201
    same = patient.post(consents(world.patient_a), {"purpose": "communication", "expires_at": later})
    assert same.status_code == 200 and same.json()["consent_record_id"] == given.json()["consent_record_id"]
    for other in (sooner, None):
        r = patient.post(consents(world.patient_a), {"purpose": "communication", "expires_at": other})
        assert r.status_code == 409 and r.json()["code"] == "consent_exists", r.content
    assert [c["expires_at"] for c in patient.get(consents(world.patient_a)).json()["items"]] == [
        given.json()["expires_at"]]


@pytest.mark.parametrize("invisible", ["\u200b\u200b\u200b", " \u2060 ", "\ufeff", "\u200d\u00a0"])
def test_evidence_and_reasons_made_of_invisible_characters_are_blank(world, invisible):
    """Zero-width characters are not evidence of a consent, nor a reason anyone can read."""
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    nurse = world.staff("nurse-1")
    r = nurse.post(consents(world.patient_a), {"purpose": "appointment_scheduling", "evidence_ref": invisible})
    assert r.status_code == 422 and [(e["field"], e["code"]) for e in r.json()["errors"]] == [
        ("evidence_ref", "blank")], r.content
    assert nurse.get(consents(world.patient_a)).json()["items"] == []
    r = nurse.post(consents(world.patient_a), {"purpose": "appointment_scheduling",
                                               "evidence_ref": f"{invisible}form-7{invisible}"})
    assert r.status_code == 201 and r.json()["evidence_ref"] == "form-7"
    grant = world.admin().post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": "nurse-2",
                                              "purpose": "communication", "expires_at": None, "reason": invisible})
    assert grant.status_code == 201 and grant.json()["reason"] == ""
    r = world.staff("admin-1", scope="patient:write").post("/v1/patients", {"display_name": invisible})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "display_name"


def test_a_consent_past_its_expiry_is_listed_as_expired(world):
    """A consent whose expiry passed is no longer in force: the list says ``expired`` (as a memory past its
    consent reads), not ``granted``, for the patient and for staff."""
    patient = world.patient(world.patient_a)
    later = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    cid = patient.post(consents(world.patient_a), {"purpose": "appointment_scheduling", "expires_at": later}).json()[
        "consent_record_id"]
    kept = world.consent(world.patient_a, "communication")
    with identity_context(Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)), \
            connection.cursor() as cur:
        cur.execute("UPDATE patient_consent SET granted_at = now() - interval '2 days', "
                    "expires_at = now() - interval '1 second' WHERE consent_record_id = %s", [cid])
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    for caller in (patient, world.staff("nurse-1")):
        statuses = {c["consent_record_id"]: c["status"] for c in caller.get(consents(world.patient_a)).json()["items"]}
        assert statuses[cid] == "expired" and statuses.get(kept, "granted") == "granted", statuses
    # a new consent for the purpose may be given, and then the list shows both as they are
    again = patient.post(consents(world.patient_a), {"purpose": "appointment_scheduling"})
    assert again.status_code == 201
    statuses = {c["consent_record_id"]: c["status"] for c in patient.get(consents(world.patient_a)).json()["items"]}
    assert statuses == {cid: "expired", kept: "granted", again.json()["consent_record_id"]: "granted"}


def test_a_revocation_reason_the_grant_cannot_keep_whole_is_refused_not_cut(world):
    """The reason for a revocation is kept after the grant's own; when both do not fit (500 characters) the
    revocation is 422 ``max_length`` on ``reason`` and the grant stays open, never kept with the reason cut off."""
    admin = world.admin()
    grant = admin.post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": "nurse-1",
                                      "purpose": "communication", "reason": "g" * 400}).json()
    r = admin.post(f"/v1/grants/{grant['grant_id']}/revoke", {"reason": "r" * 200})
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("reason", "max_length")]
    [listed] = admin.get("/v1/grants").json()["items"]
    assert listed["revoked_at"] is None and listed["reason"] == "g" * 400
    r = admin.post(f"/v1/grants/{grant['grant_id']}/revoke", {"reason": "r" * 88})
    assert r.status_code == 200 and r.json()["revoked_at"]
    assert r.json()["reason"] == "g" * 400 + " | revoked: " + "r" * 88


def test_a_grant_without_an_expiry_lasts_until_revoked(world):
    """expires_at is optional, as in the staff console (it was required, even as null)."""
    r = world.admin().post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": "nurse-open",
                                          "purpose": "communication"})
    assert r.status_code == 201 and r.json()["expires_at"] is None, r.content


@pytest.mark.django_db(transaction=True)
def test_granting_anew_after_a_grant_ran_out_does_not_record_it_as_revoked(committed_db, world):
    """The expired grant keeps its story: it ended at its expiry, revoked by nobody, and its closing (to free the
    one-open-grant slot) is in the patient's access history."""
    from tests.conftest import admin_connect

    first = world.grant(world.patient_a, "nurse-4", "appointment_scheduling",
                        expires_at=(datetime.now(UTC) + timedelta(days=1)).isoformat())
    ended = datetime.now(UTC) - timedelta(hours=1)
    with admin_connect() as conn:  # the clock moved on (grants are never changed through the API)
        conn.execute("UPDATE patient_access_grants SET expires_at = %s WHERE grant_id = %s",
                     [ended, first["grant_id"]])
    second = world.grant(world.patient_a, "nurse-4", "appointment_scheduling")
    assert second["grant_id"] != first["grant_id"]
    grants = {g["grant_id"]: g for g in world.admin().get("/v1/grants", {"patient_id": str(world.patient_a)})
              .json()["items"]}
    old = grants[first["grant_id"]]
    assert old["revoked_by"] is None and datetime.fromisoformat(old["revoked_at"].replace("Z", "+00:00")) == ended
    events = world.patient(world.patient_a).get("/v1/audit-events").json()["items"]
    assert ("grant.expire", first["grant_id"]) in {(e["action"], e["resource_id"]) for e in events}


# Text a person reads elsewhere: a control character, or a direction override that shows "\u202eLESAD" as "DASEL".
UNREADABLE = ["reviewed\u0007", "see \u202efiler", "ok\u2066hidden\u2069", "\u001b[31mred"]


@pytest.mark.parametrize("text", UNREADABLE)
def test_reasons_and_evidence_that_would_show_otherwise_than_they_hold_are_refused_and_nothing_written(world,
                                                                                                     text):
    """A grant's reason (shown on the patient's access page), a revocation's reason and consent evidence are 422
    ``unstorable_character`` on their field: no grant, revocation or consent is written."""
    admin = world.admin()
    r = admin.post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": "nurse-1",
                                  "purpose": "communication", "reason": f"care team {text}"})
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("reason", "unstorable_character")]
    assert admin.get("/v1/grants").json()["items"] == []
    grant = admin.post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": "nurse-1",
                                      "purpose": "communication", "reason": "care team"}).json()
    r = admin.post(f"/v1/grants/{grant['grant_id']}/revoke", {"reason": f"left {text}"})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "unstorable_character", r.content
    [listed] = admin.get("/v1/grants").json()["items"]
    assert listed["revoked_at"] is None and listed["reason"] == "care team"
    r = world.patient(world.patient_a).post(consents(world.patient_a), {"purpose": "communication",
                                                                       "evidence_ref": f"form {text}"})
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("evidence_ref", "unstorable_character")]
    assert world.patient(world.patient_a).get(consents(world.patient_a)).json()["items"] == []


def test_reasons_keep_line_breaks_tabs_and_right_to_left_writing(world):
    reason = "الفريق الطبي\u200f\n\tcare team (Arabic-speaking)"
    r = world.admin().post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": "nurse-1",
                                          "purpose": "communication", "reason": reason})
    assert r.status_code == 201 and r.json()["reason"] == reason, r.content


def test_consents_are_read_a_page_at_a_time(world):
    """Every consent a patient ever gave and withdrew was one answer, however many: the list is read newest first
    a page at a time (limit 1-500, default 100) through next_cursor, the one in force shown with its status; a
    cursor the list never gave is 422 on cursor."""
    pid = world.patient_a
    me = Identity(org_id=world.org, actor_sub=f"patient-{pid}", patient_self_id=pid, actor_kind=ACTOR_PATIENT,
                  scopes=frozenset({"consent:read", "consent:write"}))
    start = datetime.now(UTC) - timedelta(days=30)
    with identity_context(me):
        ConsentRecord.objects.bulk_create([
            ConsentRecord(organization_id=world.org, patient_id=pid, purpose="communication", status="revoked",
                          granted_at=start + timedelta(minutes=i), revoked_at=start + timedelta(minutes=i, seconds=1),
                          evidence_ref="", policy_revision="x", recorded_by=me.actor_sub, revoked_by=me.actor_sub)
            for i in range(104)])
    in_force = world.consent(pid)
    api = world.patient(pid)
    path = f"/v1/patients/{pid}/consents"
    first = api.get(path).json()
    assert len(first["items"]) == 100 and first["next_cursor"]
    assert first["items"][0]["consent_record_id"] == in_force and first["items"][0]["status"] == "granted"
    rest = api.get(path, {"cursor": first["next_cursor"]}).json()
    assert len(rest["items"]) == 5 and rest["next_cursor"] is None
    seen = [c["consent_record_id"] for c in first["items"] + rest["items"]]
    assert len(set(seen)) == 105
    assert api.get(path, {"limit": 3}).json()["items"] == first["items"][:3]
    for params, field in (({"cursor": "not-a-cursor"}, "cursor"), ({"limit": 0}, "limit")):
        r = api.get(path, params)
        assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == [field], r.content
