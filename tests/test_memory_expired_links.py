"""Data stored before a rule it now follows: earlier values that expired before a newer value of their attribute
came, stored before such values were linked to the newer one (memory 0016 links them, so the newer value's history
shows them and deleting it erases them); proposals made before proposals lapsed (memory 0017 makes them lapse)."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime, timedelta

from django.core.management import call_command

from tests.conftest import memory_body, owner_connect, settle_vector_writes

LINK_EXPIRED = importlib.import_module("memory.migrations.0016_expired_values_linked").LINK_EXPIRED
LAPSE_STATEMENTS = importlib.import_module("memory.migrations.0017_proposals_made_before_lapse").statements


def sweep() -> None:
    """The sweep, once the memories' vectors are written: their writer holds a memory's row for a moment (a share
    lock) after the memory's transaction commits, and the sweep skips a row held so (SKIP LOCKED; the next run
    takes it), which under load left a due memory for a next run this test does not make."""
    settle_vector_writes()
    call_command("sweep_memories")


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def _owner_sql(sql: str, params: list) -> None:
    """Change stored rows as a bug or an earlier release left them (row-level security lifted for it)."""
    with owner_connect() as conn, conn.transaction():
        conn.execute("ALTER TABLE patient_memory NO FORCE ROW LEVEL SECURITY")
        conn.execute(sql, params)
        conn.execute("ALTER TABLE patient_memory FORCE ROW LEVEL SECURITY")


def _expired_and_swept(world):
    """A consent, the patient, and a value whose validity ended (the clock moved) and the sweep recorded it."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    until = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    old = patient.post(mem(world.patient_a), memory_body(cid, time="06:10", valid_until=until)).json()["memory_id"]
    _owner_sql("UPDATE patient_memory SET valid_from = now() - interval '3 days', "
               "valid_until = now() - interval '1 second' WHERE memory_id = %s", [old])
    sweep()
    return cid, patient, old


def test_values_the_sweep_expired_before_a_newer_one_came_are_linked_and_deleted_with_it(committed_db, world):
    cid, patient, old = _expired_and_swept(world)
    newer = patient.post(mem(world.patient_a), memory_body(cid, time="11:00")).json()["memory_id"]
    other = patient.post(mem(world.patient_a), memory_body(cid, "latest_time", "16:00")).json()["memory_id"]
    _owner_sql("UPDATE patient_memory SET superseded_by = NULL WHERE memory_id = %s", [old])  # as before links
    assert [v["memory_id"] for v in patient.get(f"{mem(world.patient_a)}/{newer}/history").json()["versions"]] == [
        newer]
    with owner_connect() as conn:
        conn.execute(LINK_EXPIRED)
    assert [v["memory_id"] for v in patient.get(f"{mem(world.patient_a)}/{newer}/history").json()["versions"]] == [
        newer, old]
    receipt = patient.client.delete(f"{mem(world.patient_a)}/{newer}",
                                    HTTP_AUTHORIZATION=f"Bearer {patient.token}").json()
    assert set(receipt["memory_ids"]) == {newer, old}
    assert patient.get(f"{mem(world.patient_a)}/{old}").json()["state"] == "deleted"
    assert [i["memory_id"] for i in patient.get(mem(world.patient_a)).json()["items"]] == [other]


def test_an_expired_value_left_behind_by_the_deletion_of_the_value_after_it_is_erased(committed_db, world):
    """Before values were linked, deleting the value that came after an expired one left the expired one stored
    until its retention: memory 0016 has the sweep erase it now, with a receipt."""
    cid, patient, old = _expired_and_swept(world)
    newer = patient.post(mem(world.patient_a), memory_body(cid, time="11:00")).json()["memory_id"]
    _owner_sql("UPDATE patient_memory SET superseded_by = NULL WHERE memory_id = %s", [old])  # as before links
    receipt = patient.client.delete(f"{mem(world.patient_a)}/{newer}",
                                    HTTP_AUTHORIZATION=f"Bearer {patient.token}").json()
    assert receipt["memory_ids"] == [newer]
    assert patient.get(f"{mem(world.patient_a)}/{old}").json()["fact"] is not None
    with owner_connect() as conn:
        conn.execute(LINK_EXPIRED)
    sweep()
    tomb = patient.get(f"{mem(world.patient_a)}/{old}").json()
    assert tomb["state"] == "deleted" and tomb["fact"] is None
    receipts = patient.get(f"/v1/patients/{world.patient_a}/deletions").json()["items"]
    assert [r["memory_ids"] for r in receipts if r["memory_ids"] != [newer]] == [[old]]


def test_proposals_made_before_the_lapse_rule_lapse_as_new_ones_do(committed_db, world, settings):
    """A proposal made before proposals lapsed kept its type's retention (two years) as its deadline: it never
    lapsed. Memory 0017 gives each waiting proposal the deadline a new one gets, counted from when it was made: one
    older than MEMORY_PROPOSAL_LAPSE_DAYS leaves the list, cannot be confirmed and is erased by the sweep with
    the receipt saying why; a younger one waits out the rest of its time."""
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    from tests.support import Api

    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    proposals = f"{mem(world.patient_a)}/proposals"
    old = agent.post(proposals, memory_body(cid, "earliest_time", "09:00", source_ref="turn:1")).json()["memory_id"]
    young = agent.post(proposals, memory_body(cid, "latest_time", "17:00", source_ref="turn:2")).json()["memory_id"]
    for memory_id, age in ((old, 40), (young, 5)):  # made before the rule, 40 and 5 days ago: the type's retention
        _owner_sql("UPDATE patient_memory SET created_at = now() - make_interval(days => %s), valid_from = "
                   "now() - make_interval(days => %s), expires_at = now() + interval '700 days' WHERE memory_id = %s",
                   [age, age, memory_id])
    patient = world.patient(world.patient_a)
    assert [i["memory_id"] for i in patient.get(proposals).json()["items"]] == [old, young]
    with owner_connect() as conn, conn.transaction():
        for statement in LAPSE_STATEMENTS(settings.MEMORY_PROPOSAL_LAPSE_DAYS):
            conn.execute(*(statement if isinstance(statement, tuple) else (statement,)))
    assert [i["memory_id"] for i in patient.get(proposals).json()["items"]] == [young]
    young_read = patient.get(f"{mem(world.patient_a)}/{young}").json()
    expires = datetime.fromisoformat(young_read["expires_at"])
    assert timedelta(days=24) < expires - datetime.now(UTC) < timedelta(days=26)
    r = patient.post(f"{mem(world.patient_a)}/{old}/confirm")
    assert r.status_code == 409 and r.json()["code"] == "not_proposed", r.content
    sweep()
    assert patient.get(f"{mem(world.patient_a)}/{old}").json()["state"] == "deleted"
    receipts = patient.get(f"/v1/patients/{world.patient_a}/deletions").json()["items"]
    assert [r["reason_code"] for r in receipts] == ["proposal_lapsed"]
