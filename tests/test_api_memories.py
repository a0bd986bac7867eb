"""Long-term memories through the HTTP API, as an agent written against the seed's reference service."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from core.identity import ACTOR_PATIENT, Identity, identity_context
from core.models import AuditEvent
from memory.models import Release
from tests.conftest import memory_body
from tests.support import Api, remember_many

pytestmark = pytest.mark.django_db


def mem_path(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def current_facts(api: Api, pid) -> dict:
    r = api.get(mem_path(pid))
    assert r.status_code == 200, r.content
    return {item["attribute"]: item["fact"] for item in r.json()["items"]}


def test_seed_contract_create_and_list(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    r = api.post(mem_path(world.patient_a), memory_body(cid))
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["status"] == "stored" and uuid.UUID(body["memory_id"])
    items = api.get(mem_path(world.patient_a)).json()["items"]
    assert len(items) == 1
    item = items[0]
    assert {"memory_id", "attribute", "fact", "source", "valid_from", "valid_until"} <= set(item)
    assert item["attribute"] == "earliest_time" and item["fact"] == {"kind": "earliest_time", "time": "10:00"}
    assert item["source"] == "patient_stated"


def test_per_attribute_supersession_keeps_not_before_ten(world):
    """'no later than 16:00' does not erase 'not before 10:00'."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem_path(world.patient_a), memory_body(cid, "earliest_time", "10:00")).status_code == 201
    assert api.post(mem_path(world.patient_a), memory_body(cid, "latest_time", "16:00")).status_code == 201
    assert current_facts(api, world.patient_a) == {
        "earliest_time": {"kind": "earliest_time", "time": "10:00"},
        "latest_time": {"kind": "latest_time", "time": "16:00"}}
    assert api.post(mem_path(world.patient_a), memory_body(cid, "earliest_time", "11:30")).status_code == 201
    facts = current_facts(api, world.patient_a)
    assert facts["earliest_time"]["time"] == "11:30" and facts["latest_time"]["time"] == "16:00"


def test_staff_writes_are_staff_entered(world):
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    nurse = world.staff("nurse-1")
    r = nurse.post(mem_path(world.patient_a), memory_body(cid))
    assert r.status_code == 201, r.content
    assert r.json()["memory"]["source"] == "staff_entered"
    assert nurse.get(mem_path(world.patient_a)).json()["items"][0]["created_by"] == "nurse-1"


def test_communication_preferences_are_typed(world):
    cid = world.consent(world.patient_a, "communication")
    api = world.patient(world.patient_a)
    for fact in ({"kind": "channel", "channel": "sms"}, {"kind": "language", "language": "pl-PL"},
                 {"kind": "contact_window", "start": "09:00", "end": "17:00"}):
        r = api.post(mem_path(world.patient_a), {"memory_type": "communication_preference", "fact": fact,
                                                 "consent_purpose": "communication", "consent_record_id": cid})
        assert r.status_code == 201, r.content
    assert set(current_facts(api, world.patient_a)) == {"channel", "language", "contact_window"}


@pytest.mark.parametrize("body_change, field", [
    ({"fact": {"kind": "earliest_time", "time": "25:00"}}, "fact.time"),
    ({"fact": {"kind": "earliest_time", "time": "10:00", "note": "free text"}}, "fact.note"),
    ({"fact": {"kind": "bedtime", "time": "10:00"}}, "fact.kind"),
    ({"fact": "not before 10"}, "fact"),
    ({"memory_type": "diagnosis"}, "memory_type"),
    ({"consent_purpose": "marketing"}, "consent_purpose"),
    ({"consent_record_id": "nope"}, "consent_record_id"),
    ({"consent_record_id": 100001}, "consent_record_id"),  # a number is not read as the UUID with that value
    ({"valid_until": "2001-01-01T00:00:00Z"}, "valid_until"),
    ({"extra_field": 1}, "extra_field"),
    ({"memory_type": "communication_preference", "fact": {"kind": "contact_window", "start": "18:00",
                                                          "end": "09:00"}}, "fact.end"),
])
def test_invalid_bodies_are_422_naming_the_field_and_store_nothing(world, body_change, field):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    body = {**memory_body(cid), **body_change}
    if body_change.get("memory_type") == "communication_preference":
        body["consent_purpose"] = "communication"
    r = api.post(mem_path(world.patient_a), body)
    assert r.status_code == 422, r.content
    problem = r.json()
    assert problem["code"] == "validation_error"
    assert r["Content-Type"] == "application/problem+json"
    assert field in [e["field"] for e in problem["errors"]], problem
    assert api.get(mem_path(world.patient_a)).json()["items"] == []


def test_a_refused_choice_is_answered_with_the_choices_never_with_what_was_sent(world):
    """What was sent may be health information ("I have HIV"); the answer names the accepted values instead."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    r = api.post(mem_path(world.patient_a), {**memory_body(cid), "consent_purpose": "I have HIV"})
    assert r.status_code == 422, r.content
    assert "HIV" not in r.content.decode()
    [error] = [e for e in r.json()["errors"] if e["field"] == "consent_purpose"]
    assert error["code"] == "invalid_choice"
    assert error["message"].startswith("one of ") and "appointment_scheduling" in error["message"]


def test_malformed_json_and_oversized_bodies(world):
    api = world.patient(world.patient_a)
    r = api.post(mem_path(world.patient_a), raw="{not json")
    assert r.status_code == 400 and r.json()["code"] == "malformed_json"
    r = api.post(mem_path(world.patient_a), raw='{"memory_type": "' + "x" * 70_000 + '"}')
    assert r.status_code == 413 and r.json()["code"] == "payload_too_large"
    r = api.post(mem_path(world.patient_a), raw="[1, 2]")
    assert r.status_code == 422


def test_write_without_consent_is_403(world):
    api = world.patient(world.patient_a)
    r = api.post(mem_path(world.patient_a), memory_body(str(uuid.uuid4())))
    assert r.status_code == 403 and r.json()["code"] == "no_active_consent_or_access"


def test_revoked_consent_refuses_writes_and_hides_memories(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem_path(world.patient_a), memory_body(cid)).status_code == 201
    r = api.post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
    assert r.status_code == 200 and r.json()["status"] == "revoked"
    r = api.post(mem_path(world.patient_a), memory_body(cid, "latest_time", "15:00"))
    assert r.status_code == 403 and r.json()["code"] == "no_active_consent_or_access"
    assert api.get(mem_path(world.patient_a)).json()["items"] == []


def test_another_patients_consent_cannot_be_borrowed(world):
    cid_b = world.consent(world.patient_b)
    r = world.patient(world.patient_a).post(mem_path(world.patient_a), memory_body(cid_b))
    assert r.status_code == 403


def test_cross_patient_and_cross_organisation_reads_return_nothing(world):
    cid = world.consent(world.patient_a)
    assert world.patient(world.patient_a).post(mem_path(world.patient_a), memory_body(cid)).status_code == 201
    assert world.patient(world.patient_b).get(mem_path(world.patient_a)).json()["items"] == []
    other_org_staff = world.staff("nurse-1", org=world.other_org)
    assert other_org_staff.get(mem_path(world.patient_a)).json()["items"] == []
    # same patient id, other organisation: another person's record set
    assert world.patient(world.patient_a, org=world.other_org).get(mem_path(world.patient_a)).json()["items"] == []
    # and writes into another patient's record are refused
    r = world.patient(world.patient_b).post(mem_path(world.patient_a), memory_body(cid))
    assert r.status_code == 403


def test_staff_grant_for_one_purpose_cannot_touch_another(world):
    sched = world.consent(world.patient_a, "appointment_scheduling")
    comm = world.consent(world.patient_a, "communication")
    api = world.patient(world.patient_a)
    api.post(mem_path(world.patient_a), memory_body(sched))
    api.post(mem_path(world.patient_a), {"memory_type": "communication_preference",
                                         "fact": {"kind": "channel", "channel": "email"},
                                         "consent_purpose": "communication", "consent_record_id": comm})
    world.grant(world.patient_a, "nurse-1", "communication")
    nurse = world.staff("nurse-1")
    assert set(current_facts(nurse, world.patient_a)) == {"channel"}
    r = nurse.post(mem_path(world.patient_a), memory_body(sched, "latest_time", "15:00"))
    assert r.status_code == 403 and r.json()["code"] == "no_active_consent_or_access"
    # a nurse with no grant at all sees nothing
    assert world.staff("nurse-2").get(mem_path(world.patient_a)).json()["items"] == []


def test_expired_memories_are_not_listed(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    soon = (datetime.now(UTC) + timedelta(seconds=1)).isoformat()
    assert api.post(mem_path(world.patient_a), memory_body(cid, valid_until=soon)).status_code == 201
    # time passes: move the whole validity window into the past
    from core.identity import ACTOR_PATIENT, Identity, identity_context
    from memory.models import Memory

    me = Identity(org_id=world.org, actor_sub="p", patient_self_id=world.patient_a, actor_kind=ACTOR_PATIENT)
    with identity_context(me):
        Memory.objects.filter(patient_id=world.patient_a).update(
            valid_from=datetime.now(UTC) - timedelta(days=2), valid_until=datetime.now(UTC) - timedelta(days=1))
    assert api.get(mem_path(world.patient_a)).json()["items"] == []


def test_reads_and_writes_are_audited_with_correlation_id(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    api.post(mem_path(world.patient_a), memory_body(cid), headers={"X-Request-ID": "req-write-1"})
    api.get(mem_path(world.patient_a), headers={"X-Request-ID": "req-read-1"})
    world.patient(world.patient_b).post(mem_path(world.patient_a), memory_body(cid),
                                        headers={"X-Request-ID": "req-denied-1"})
    r = api.get("/v1/audit-events", {"patient_id": str(world.patient_a)})
    assert r.status_code == 200
    events = {(e["action"], e["outcome"], e["correlation_id"]) for e in r.json()["items"]}
    assert ("memory.create", "success", "req-write-1") in events
    assert ("memory.list", "success", "req-read-1") in events
    # another patient's attempt is in the organisation's trail, not in this patient's history (it would show them
    # the other patient's subject); no fact values are stored in the audit trail
    assert "req-denied-1" not in {e[2] for e in events}
    from core.identity import Identity, identity_context

    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        assert AuditEvent.objects.filter(correlation_id="req-denied-1", outcome="denied", patient_id=None).exists()
        for event in AuditEvent.objects.all():
            assert "10:00" not in str(event.__dict__)


def test_auditor_reads_the_organisation_and_patients_only_their_own(world):
    for pid in (world.patient_a, world.patient_b):
        world.consent(pid)
    auditor = Api(world.token(sub="auditor", scope="audit:read"))
    patients = {e["patient_id"] for e in auditor.get("/v1/audit-events").json()["items"]}
    assert {str(world.patient_a), str(world.patient_b)} <= patients
    mine = world.patient(world.patient_a).get("/v1/audit-events").json()["items"]
    assert mine and {e["patient_id"] for e in mine} == {str(world.patient_a)}
    other_org_auditor = Api(world.token(sub="auditor", scope="audit:read", org_id=world.other_org))
    assert other_org_auditor.get("/v1/audit-events").json()["items"] == []


@pytest.mark.parametrize("invisible", ["\u200b", "\u200b\u2060 ", "\ufeff", "\u200d\u00a0", "\u3000",
                                       "\u0301", " \u0301\u0308 ", "\u20dd", "\u200b\u0301"])
def test_a_question_that_shows_nothing_is_blank_for_search_and_context_packs(world, invisible):
    """A question of zero-width or other invisible characters, or of combining marks with no letter to sit on (an
    acute accent, an enclosing circle), asks nothing: search answered it with best guesses and a context pack
    released a pack for it; both are 422 blank, as an empty question is, and nothing is released."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(f"/v1/patients/{world.patient_a}/memories", memory_body(cid)).status_code == 201
    r = api.get(f"/v1/patients/{world.patient_a}/memories/search", {"q": invisible})
    assert r.status_code == 422 and [(e["field"], e["code"]) for e in r.json()["errors"]] == [("q", "blank")], \
        r.content
    r = api.post(f"/v1/patients/{world.patient_a}/context",
                 {"question": invisible, "purpose": "appointment_scheduling"})
    assert r.status_code == 422 and [(e["field"], e["code"]) for e in r.json()["errors"]] == [
        ("question", "blank")], r.content
    assert api.get(f"/v1/patients/{world.patient_a}/releases").json()["items"] == []
    r = api.get(f"/v1/patients/{world.patient_a}/memories/search", {"q": f"{invisible}earliest time{invisible}"})
    assert r.status_code == 200 and r.json()["items"], r.content


@pytest.mark.parametrize("query", ["limit=", "min_score=", "consent_purpose=", "memory_class="])
def test_a_search_parameter_given_empty_is_refused_not_ignored(world, query):
    api = world.patient(world.patient_a)
    r = api.client.get(f"/v1/patients/{world.patient_a}/memories/search?q=diet&{query}", **api._headers(None))
    assert r.status_code == 422 and r.json()["errors"][0] == {"field": query[:-1], "code": "blank",
                                                              "message": "given empty; leave it out instead"}


@pytest.mark.django_db
def test_releases_are_read_a_page_at_a_time_past_the_newest_200(world):
    """An agent that asked for more than 200 context packs: the list stopped at the newest 200 with nothing saying
    so, and a purpose filter was applied to those 200 only (the older pack for it was not listed at all). Pages of
    `limit` (default 200) follow next_cursor to the oldest; the filter reads every release."""
    pid = world.patient_a
    me = Identity(org_id=world.org, actor_sub=f"patient-{pid}", patient_self_id=pid, scopes=frozenset({"memory:read"}),
                  actor_kind=ACTOR_PATIENT)
    start = datetime.now(UTC) - timedelta(days=1)
    with identity_context(me):
        Release.objects.bulk_create([Release(organization_id=world.org, patient_id=pid, actor_sub=me.actor_sub,
                                             purpose="communication" if i == 0 else "appointment_scheduling",
                                             created_at=start + timedelta(seconds=i)) for i in range(205)])
    api = world.patient(pid)
    first = api.get(f"/v1/patients/{pid}/releases").json()
    assert len(first["items"]) == 200 and first["next_cursor"]
    rest = api.get(f"/v1/patients/{pid}/releases", {"cursor": first["next_cursor"]}).json()
    assert len(rest["items"]) == 5 and rest["next_cursor"] is None
    seen = [r["created_at"] for r in first["items"] + rest["items"]]
    assert len(set(seen)) == 205 and seen == sorted(seen, reverse=True)
    oldest = api.get(f"/v1/patients/{pid}/releases", {"purpose": "communication"}).json()
    assert [r["purpose"] for r in oldest["items"]] == ["communication"] and oldest["next_cursor"] is None
    small = api.get(f"/v1/patients/{pid}/releases", {"limit": 100}).json()
    assert small["items"] == first["items"][:100]
    for params, field in (({"cursor": "not-a-cursor"}, "cursor"), ({"limit": 0}, "limit")):
        r = api.get(f"/v1/patients/{pid}/releases", params)
        assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == [field], r.content


def test_the_memory_list_is_read_a_page_at_a_time(world):
    """A patient with hundreds of current memories was answered every one in a single body: the list is read a
    page at a time (limit 1-500, default 100), in the key's order, following next_cursor to the end; items stays;
    a cursor the list never gave is 422 naming cursor, and nothing of the list's is audited for it."""
    pid = world.patient_a
    remember_many(org_id=world.org, patient_id=pid, consent_id=world.consent(pid), count=205)
    api = world.patient(pid)
    first = api.get(mem_path(pid)).json()
    assert len(first["items"]) == 100 and first["next_cursor"]
    seen, body = list(first["items"]), first
    while body["next_cursor"]:
        r = api.get(mem_path(pid), {"cursor": body["next_cursor"]})
        assert r.status_code == 200, r.content
        body = r.json()
        seen += body["items"]
    attributes = [m["attribute"] for m in seen]
    assert attributes == sorted(attributes) and len(set(attributes)) == 205
    big = api.get(mem_path(pid), {"limit": 500, "purpose": "appointment_scheduling"}).json()
    assert [m["memory_id"] for m in big["items"]] == [m["memory_id"] for m in seen] and big["next_cursor"] is None
    small = api.get(mem_path(pid), {"limit": 7}).json()
    after = api.get(mem_path(pid), {"limit": 7, "cursor": small["next_cursor"]}).json()
    assert [m["attribute"] for m in small["items"] + after["items"]] == attributes[:14]
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        listed = AuditEvent.objects.filter(action="memory.list").count()
    for params, field in (({"cursor": "not-a-cursor"}, "cursor"), ({"cursor": "WyJhIl0"}, "cursor"),
                          ({"limit": 0}, "limit"), ({"limit": 501}, "limit")):
        r = api.get(mem_path(pid), params)
        assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == [field], r.content
    with identity_context(auditor):
        assert AuditEvent.objects.filter(action="memory.list").count() == listed


def test_deletion_receipts_are_read_a_page_at_a_time(world):
    """Every receipt of a patient was one answer, however many deletions there had been: receipts are read newest
    first a page at a time (limit 1-500, default 100), following next_cursor to the oldest; a cursor the list
    never gave is 422 naming cursor."""
    from memory.models import Deletion

    pid = world.patient_a
    api = world.patient(pid)
    created = api.post(mem_path(pid), memory_body(world.consent(pid))).json()
    assert api.request("DELETE", f"{mem_path(pid)}/{created['memory_id']}").status_code == 200
    me = Identity(org_id=world.org, actor_sub=f"patient-{pid}", patient_self_id=pid,
                  scopes=frozenset({"memory:read", "memory:write"}), actor_kind=ACTOR_PATIENT)
    start = datetime.now(UTC) - timedelta(days=1)
    with identity_context(me):
        Deletion.objects.bulk_create([
            Deletion(organization_id=world.org, patient_id=pid, scope="memory", requested_by=me.actor_sub,
                     reason_code="patient_request", requested_at=start + timedelta(seconds=i),
                     completed_at=start + timedelta(seconds=i), receipt={"deletion_id": f"older-{i:03d}"})
            for i in range(104)])
    first = api.get(f"/v1/patients/{pid}/deletions").json()
    assert len(first["items"]) == 100 and first["next_cursor"]
    assert first["items"][0]["memory_ids"] == [created["memory_id"]]  # the newest, the real deletion
    rest = api.get(f"/v1/patients/{pid}/deletions", {"cursor": first["next_cursor"]}).json()
    assert [r["deletion_id"] for r in rest["items"]] == [f"older-{i:03d}" for i in (4, 3, 2, 1, 0)]
    assert rest["next_cursor"] is None
    small = api.get(f"/v1/patients/{pid}/deletions", {"limit": 3}).json()
    assert small["items"] == first["items"][:3]
    for params, field in (({"cursor": "not-a-cursor"}, "cursor"), ({"limit": 0}, "limit")):
        r = api.get(f"/v1/patients/{pid}/deletions", params)
        assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == [field], r.content
