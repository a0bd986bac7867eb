"""Earlier values that expired before a newer value of their attribute came, stored before such values were linked
to the newer one: memory 0016 links them, so the newer value's history shows them and deleting it erases them."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime, timedelta

from django.core.management import call_command

from tests.conftest import memory_body, owner_connect

LINK_EXPIRED = importlib.import_module("memory.migrations.0016_expired_values_linked").LINK_EXPIRED


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def test_values_the_sweep_expired_before_a_newer_one_came_are_linked_and_deleted_with_it(committed_db, world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    until = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    old = patient.post(mem(world.patient_a), memory_body(cid, time="06:10", valid_until=until)).json()["memory_id"]
    with owner_connect() as conn:  # its validity ended (the clock moved), and the sweep recorded it
        conn.execute("ALTER TABLE patient_memory NO FORCE ROW LEVEL SECURITY")
        conn.execute("UPDATE patient_memory SET valid_from = now() - interval '3 days', "
                     "valid_until = now() - interval '1 second' WHERE memory_id = %s", [old])
        conn.execute("ALTER TABLE patient_memory FORCE ROW LEVEL SECURITY")
    call_command("sweep_memories")
    newer = patient.post(mem(world.patient_a), memory_body(cid, time="11:00")).json()["memory_id"]
    other = patient.post(mem(world.patient_a), memory_body(cid, "latest_time", "16:00")).json()["memory_id"]
    with owner_connect() as conn:  # as a write before the link was made left it
        conn.execute("ALTER TABLE patient_memory NO FORCE ROW LEVEL SECURITY")
        conn.execute("UPDATE patient_memory SET superseded_by = NULL WHERE memory_id = %s", [old])
        conn.execute("ALTER TABLE patient_memory FORCE ROW LEVEL SECURITY")
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
