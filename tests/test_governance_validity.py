"""One truth about validity: a memory read by id, its history and the proposals list agree with lists, search and
context packs. Past its validity or retention (or with its consent gone) a memory reads as expired, past retention
without its value; never as active with its value, whether or not the sweep has run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from core.identity import Identity, identity_context
from tests.conftest import in_directory, memory_body

pytestmark = pytest.mark.django_db


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def travel(world, memory_id, sql: str) -> None:
    """Move the clock past a deadline by moving the row's deadlines into the past (the patient's own context)."""
    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)
    with identity_context(me), connection.cursor() as cur:
        cur.execute(f"UPDATE patient_memory SET {sql} WHERE memory_id = %s", [memory_id])


def future(days=1) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


def test_a_memory_past_its_validity_reads_as_expired_by_id_and_in_history_before_any_sweep(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    mid = patient.post(mem(world.patient_a), memory_body(cid, valid_until=future())).json()["memory_id"]
    assert patient.get(f"{mem(world.patient_a)}/{mid}").json()["state"] == "active"
    travel(world, mid, "valid_from = now() - interval '3 days', valid_until = now() - interval '1 second'")
    assert patient.get(mem(world.patient_a)).json()["items"] == []
    assert patient.get(f"{mem(world.patient_a)}/search", {"q": "earliest time"}).json()["items"] == []
    one = patient.get(f"{mem(world.patient_a)}/{mid}").json()
    assert one["state"] == "expired"
    history = patient.get(f"{mem(world.patient_a)}/{mid}/history").json()
    assert [v["state"] for v in history["versions"]] == ["expired"]
    # and it cannot be corrected as if it were current
    r = patient.post(f"{mem(world.patient_a)}/{mid}/correct", {"fact": {"kind": "earliest_time", "time": "11:00"}})
    assert r.status_code == 409 and r.json()["code"] == "not_correctable"


def test_a_memory_past_retention_reads_as_expired_without_its_value(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    mid = patient.post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    travel(world, mid, "valid_from = now() - interval '3 days', expires_at = now() - interval '1 second'")
    one = patient.get(f"{mem(world.patient_a)}/{mid}").json()
    assert one["state"] == "expired" and one["fact"] is None and one["text"] is None
    versions = patient.get(f"{mem(world.patient_a)}/{mid}/history").json()["versions"]
    assert [(v["state"], v["fact"]) for v in versions] == [("expired", None)]


def test_a_memory_whose_consent_expired_reads_as_expired(world):
    patient = world.patient(world.patient_a)
    r = patient.post(f"/v1/patients/{world.patient_a}/consents",
                     {"purpose": "appointment_scheduling", "expires_at": future()})
    cid = r.json()["consent_record_id"]
    mid = patient.post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)
    with identity_context(me), connection.cursor() as cur:
        cur.execute("UPDATE patient_consent SET granted_at = now() - interval '2 days', "
                    "expires_at = now() - interval '1 second' WHERE consent_record_id = %s", [cid])
    assert patient.get(mem(world.patient_a)).json()["items"] == []
    assert patient.get(f"{mem(world.patient_a)}/{mid}").json()["state"] == "expired"


def test_a_proposal_past_its_validity_is_no_longer_listed_or_confirmable(world):
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    r = world.staff("booking-agent").post(f"{mem(world.patient_a)}/proposals", {
        **memory_body(cid, "latest_time", "15:00", valid_until=future()), "source_ref": "turn:1"})
    pid = r.json()["memory_id"]
    patient = world.patient(world.patient_a)
    assert [p["memory_id"] for p in patient.get(f"{mem(world.patient_a)}/proposals").json()["items"]] == [pid]
    travel(world, pid, "valid_from = now() - interval '3 days', valid_until = now() - interval '1 second'")
    assert patient.get(f"{mem(world.patient_a)}/proposals").json()["items"] == []
    assert patient.get(f"{mem(world.patient_a)}/{pid}").json()["state"] == "expired"
    r = patient.post(f"{mem(world.patient_a)}/{pid}/confirm")
    assert r.status_code == 409 and r.json()["code"] == "not_proposed"
    assert patient.get(mem(world.patient_a)).json()["items"] == []


@pytest.mark.parametrize("days", [731, 365 * 20, None])
def test_a_validity_past_the_retention_is_refused_and_stores_nothing(world, days):
    """A preference is kept at most 730 days; a validity past that would keep it longer (9999-12-31 forever)."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    until = "9999-12-31T00:00:00Z" if days is None else future(days)
    r = patient.post(mem(world.patient_a), memory_body(cid, valid_until=until))
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("valid_until", "beyond_retention")]
    assert patient.get(mem(world.patient_a)).json()["items"] == []
    kept = patient.post(mem(world.patient_a), memory_body(cid, valid_until=future(729))).json()
    assert kept["status"] == "stored"
    r = patient.post(f"{mem(world.patient_a)}/{kept['memory_id']}/correct",
                     {"fact": {"kind": "earliest_time", "time": "11:00"}, "valid_until": until})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "beyond_retention"
    assert patient.get(f"{mem(world.patient_a)}/{kept['memory_id']}").json()["state"] == "active"


def test_a_memory_past_its_validity_cannot_be_quarantined_as_if_it_were_current(world):
    """It reads as expired by id and is out of every read already; quarantine would record it as a current fact
    under review (as correction refuses)."""
    cid = world.consent(world.patient_a)
    mid = world.patient(world.patient_a).post(mem(world.patient_a), memory_body(cid, valid_until=future())).json()[
        "memory_id"]
    travel(world, mid, "valid_from = now() - interval '3 days', valid_until = now() - interval '1 second'")
    world.grant(world.patient_a, "nurse-q", "appointment_scheduling")
    nurse = world.staff("nurse-q")
    r = nurse.post(f"{mem(world.patient_a)}/{mid}/quarantine", {"reason_code": "disputed_by_patient"})
    assert r.status_code == 409 and r.json()["code"] == "illegal_transition", r.content
    assert nurse.get(f"{mem(world.patient_a)}/{mid}").json()["state"] == "expired"
    history = nurse.get(f"{mem(world.patient_a)}/{mid}/history").json()
    assert [v["state"] for v in history["versions"]] == ["expired"]


@pytest.mark.parametrize("value", ["2027-W01", "2027-W01-1", "2027-001", "20270101T000000Z", "2027-01-01T25",
                                   "2027-01-01T00:00:00.1234567Z", "tomorrow", "2027-01-01T00:00:00+0100x"])
def test_a_date_time_must_be_written_as_one(world, value):
    """Python's parser reads week dates and ordinal dates as some midnight nobody wrote."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    r = patient.post(mem(world.patient_a), memory_body(cid, valid_until=value))
    assert r.status_code == 422, r.content
    assert [e["field"] for e in r.json()["errors"]] == ["valid_until"]
    in_directory(world.org, world.patient_a)
    r = world.admin().post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": "nurse-x",
                                          "purpose": "communication", "expires_at": value})
    assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["expires_at"], r.content
    assert patient.get(mem(world.patient_a)).json()["items"] == []


@pytest.mark.parametrize("shape", ["%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S.%f+00:00", "%Y-%m-%d %H:%M:%S+02:00",
                                   "%Y-%m-%dT%H:%M", "%Y-%m-%dt%H:%M:%Sz", "%Y-%m-%d"])
def test_the_usual_ways_of_writing_a_date_time_are_taken(world, shape):
    cid = world.consent(world.patient_a)
    value = (datetime.now(UTC) + timedelta(days=3)).strftime(shape)
    r = world.patient(world.patient_a).post(mem(world.patient_a), memory_body(cid, valid_until=value))
    assert r.status_code == 201, (value, r.content)
