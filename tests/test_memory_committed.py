"""Memory lifecycle with real commits: append-only history, no trace after deletion, revocation visibility."""

from __future__ import annotations

import threading
import time
import uuid

import psycopg
import pytest
from django.db import connections

from core.errors import NotFound
from core.identity import identity_context
from memory.deletion import memory_delete, memory_erase_patient
from memory.models import Memory
from tests.conftest import admin_connect, database_contains
from tests.test_foundation import give_consent, patient, record_pref


def test_lifecycle_events_are_append_only(committed_db):
    org, pid = uuid.uuid4(), uuid.uuid4()
    cid = give_consent(org, pid)
    with identity_context(patient(org, pid)):
        record_pref(patient(org, pid), pid, cid)
    with admin_connect() as conn:
        assert conn.execute("SELECT count(*) FROM memory_lifecycle_event").fetchone()[0] >= 1
        for statement in ("UPDATE memory_lifecycle_event SET reason_code = 'x'",
                          "DELETE FROM memory_lifecycle_event", "TRUNCATE memory_lifecycle_event"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)


def test_after_deletion_no_table_holds_the_value(committed_db, world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    marker_times = ["06:17", "06:43"]
    ids = []
    for t in marker_times:
        r = api.post(f"/v1/patients/{world.patient_a}/memories",
                     {"memory_type": "scheduling_preference", "fact": {"kind": "earliest_time", "time": t},
                      "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
        ids.append(r.json()["memory_id"])
    assert database_contains("06:17") and database_contains("06:43")
    receipt = api.client.delete(f"/v1/patients/{world.patient_a}/memories/{ids[-1]}",
                                HTTP_AUTHORIZATION=f"Bearer {api.token}").json()
    assert set(receipt["memory_ids"]) == set(ids)
    assert all(line["verified_at"] for line in receipt["representations"])
    assert database_contains("06:17") == [] and database_contains("06:43") == []
    with admin_connect() as conn:
        rows = conn.execute("SELECT fact, fact_ciphertext, digest_salt, state FROM patient_memory "
                            "WHERE memory_id = ANY(%s::uuid[])", [ids]).fetchall()
    assert rows and all(r[:3] == (None, None, None) and r[3] == "deleted" for r in rows)


def test_erasing_a_patient_destroys_ciphertexts_of_care_context(committed_db, world):
    world.grant(world.patient_a, "nurse-1", "care_coordination")
    nurse = world.staff("nurse-1")
    r = nurse.post(f"/v1/patients/{world.patient_a}/memories",
                   {"memory_type": "care_context", "consent_purpose": "care_coordination",
                    "fact": {"kind": "allergy", "substance": "sulfonamide"}, "review_by": "2031-01-01T00:00:00Z",
                    "source": "staff_entered"})
    assert r.status_code == 201, r.content
    mid = r.json()["memory_id"]
    with admin_connect() as conn:
        assert conn.execute("SELECT fact_ciphertext IS NOT NULL FROM patient_memory WHERE memory_id = %s",
                            [mid]).fetchone()[0]
    receipt = nurse.client.delete(f"/v1/patients/{world.patient_a}/memories",
                                  HTTP_AUTHORIZATION=f"Bearer {nurse.token}").json()
    assert receipt["memory_ids"] == [mid]
    assert database_contains("sulfonamide") == []
    with admin_connect() as conn:
        assert conn.execute("SELECT fact_ciphertext FROM patient_memory WHERE memory_id = %s",
                            [mid]).fetchone()[0] is None


def test_revocation_is_visible_to_every_read_that_starts_after_commit(committed_db, world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    api.post(f"/v1/patients/{world.patient_a}/memories",
             {"memory_type": "scheduling_preference", "fact": {"kind": "earliest_time", "time": "10:00"},
              "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
    committed_at: list[float] = []
    violations: list[tuple] = []
    stop = threading.Event()

    def reader():
        reader_api = world.patient(world.patient_a)
        try:
            while not stop.is_set():
                started = time.monotonic()
                items = reader_api.get(f"/v1/patients/{world.patient_a}/memories").json()["items"]
                if committed_at and started > committed_at[0] and items:
                    violations.append((started, len(items)))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    r = api.post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
    committed_at.append(time.monotonic())
    assert r.status_code == 200
    time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join(timeout=10)
    assert violations == []
    assert api.get(f"/v1/patients/{world.patient_a}/memories").json()["items"] == []


def test_erase_patient_service_is_complete(committed_db):
    org, pid = uuid.uuid4(), uuid.uuid4()
    cid = give_consent(org, pid)
    me = patient(org, pid)
    with identity_context(me):
        for t in ("05:11", "05:12", "05:13"):
            record_pref(me, pid, cid, "earliest_time", t)
        record_pref(me, pid, cid, "latest_time", "17:19")
    with identity_context(me):
        receipt = memory_erase_patient(identity=me, patient_id=pid)
    assert len(receipt["memory_ids"]) == 4
    for needle in ("05:11", "05:12", "05:13", "17:19"):
        assert database_contains(needle) == []
    with identity_context(me):
        assert Memory.objects.exclude(state="deleted").count() == 0
        with pytest.raises(NotFound):
            memory_delete(identity=me, patient_id=pid, memory_id=uuid.UUID(receipt["memory_ids"][0]))
