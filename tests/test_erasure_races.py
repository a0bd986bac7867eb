"""Writes racing a patient's erase-all: what commits while the erasure runs is either erased with it or written
after it, never left behind by an erasure whose receipt says everything went."""

from __future__ import annotations

import pytest

from tests.conftest import admin_connect, memory_body, race_with_erasure
from tests.support import PATIENT_SCOPES, Api, mint


def _kept(sql: str, patient_id) -> int:
    with admin_connect() as conn:
        return conn.execute(sql, [patient_id]).fetchone()[0]


def test_a_conversation_started_while_the_patient_erases_everything_is_erased_or_started_after(committed_db, world,
                                                                                               monkeypatch):
    """Erase-all removes the patient's conversation sessions, then goes on (her memories, the receipt); a session
    started in that gap committed before the erasure did and was kept, though the receipt said every session was
    removed. Starting a session now takes the patient's erasure lock shared: it waits until the erasure has
    committed, so every session is either erased with it or started after it."""
    world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    results, released = race_with_erasure(monkeypatch, patient, world.patient_a, lambda: patient.post(
        "/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"}))
    assert results["write"].status_code == 201, results["write"].content
    kept = _kept("SELECT count(*) FROM conversation_session WHERE patient_id = %s", world.patient_a)
    # kept, it committed after the erasure (it waited for it); committed before, the erasure would have removed it
    assert kept == 0 or results["written_by"] > released, (kept, results["written_by"], released)


@pytest.mark.parametrize("writer", ["patient", "agent"])
def test_a_memory_written_while_the_patient_erases_everything_is_erased_or_written_after(committed_db, world,
                                                                                         monkeypatch, writer):
    """A memory the patient recorded (or an agent proposed) while the patient's erase-all ran, after it had locked
    the memories it saw, committed before the erasure and survived it, though the receipt said everything was
    erased. A memory write now takes the patient's erasure lock shared, with its other checks: it waits until the
    erasure has committed, so the memory is either erased with the rest or written after it."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    author = patient if writer == "patient" else Api(mint(
        world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
        scope=PATIENT_SCOPES, act="scheduling-agent"))
    results, released = race_with_erasure(monkeypatch, patient, world.patient_a, lambda: author.post(
        f"/v1/patients/{world.patient_a}/memories", memory_body(cid, time="07:30")))
    assert results["write"].status_code == 201, results["write"].content
    kept = _kept("SELECT count(*) FROM patient_memory WHERE patient_id = %s AND state <> 'deleted'", world.patient_a)
    # kept, it committed after the erasure (it waited for it); committed before, the erasure would have erased it
    assert kept == 0 or results["written_by"] > released, (kept, results["written_by"], released)


def test_a_context_pack_released_while_staff_erase_everything_is_withdrawn_or_released_after(committed_db, world,
                                                                                             monkeypatch):
    """A context pack read the patient's allergy while an erase-all ran, after the erasure had locked the memory
    and read where its copies were, and recorded its release after: the agent held the erased value, the release
    said nothing was withdrawn and the receipt missed it. A context pack now takes the patient's erasure lock
    shared before it reads: it waits until the erasure has committed (and then finds nothing), or the erasure
    waits for it and withdraws it from the release."""
    from tests.conftest import settle_vector_writes

    world.grant(world.patient_a, "clinician", "care_coordination")
    nurse = world.staff("clinician")
    r = nurse.post(f"/v1/patients/{world.patient_a}/memories", {
        "memory_type": "care_context", "consent_purpose": "care_coordination", "review_by": "2031-01-01T00:00:00Z",
        "fact": {"kind": "allergy", "substance": "penicillin", "reaction": "rash"}, "source": "ehr_import",
        "source_ref": "ehr:1"})
    assert r.status_code == 201, r.content
    settle_vector_writes()
    results, released = race_with_erasure(monkeypatch, nurse, world.patient_a, lambda: nurse.post(
        f"/v1/patients/{world.patient_a}/context", {"question": "penicillin", "purpose": "care_coordination"}))
    assert results["write"].status_code == 200, results["write"].content
    kept = _kept("SELECT count(*) FROM memory_release_member m JOIN memory_release r USING (release_id) "
                 "WHERE r.patient_id = %s AND m.withdrawn_at IS NULL", world.patient_a)
    assert kept == 0, (kept, results["write"].json())


def test_a_workflow_started_while_the_patient_erases_everything_is_in_the_receipt_or_started_after(
        committed_db, world, monkeypatch):
    """A workflow started, with its state, while the patient's erase-all ran (after it had reached the workflows it
    saw) committed before it and was in no section of the receipt, neither erased nor listed as kept. Starting a
    workflow now takes the patient's erasure lock shared: it waits until the erasure has committed, or the erasure
    waits for it and names it."""
    world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    results, released = race_with_erasure(monkeypatch, patient, world.patient_a, lambda: patient.post(
        "/v1/workflows", {"workflow_type": "appointment_booking", "patient_id": str(world.patient_a),
                          "state": {"note": "wombat"}}))
    assert results["write"].status_code == 201, results["write"].content
    workflow_id = results["write"].json()["workflow_id"]
    named = [r for section in results["erase"].json()["other_copies"] if section["kind"] == "workflows"
             for r in section["erased"] + section["retained"] if r.get("workflow_id") == workflow_id]
    assert named or results["written_by"] > released, (results["erase"].json(), results["written_by"], released)
