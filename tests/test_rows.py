"""core.rows: rows of several models in one statement, each written exactly as the ORM's save() writes it."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from django.db import DataError, connection, transaction
from django.utils import timezone

from core import rows
from core.identity import Identity, identity_context
from memory.models import LifecycleEvent, Memory, Representation


def _patient(world) -> tuple[Identity, uuid.UUID]:
    """The patient writing their own memories under their consent (RLS lets them)."""
    cid = uuid.UUID(world.consent(world.patient_a))
    return Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a), cid


def _memory(org, pid, **extra) -> Memory:
    now = timezone.now()
    values = {"memory_id": uuid.uuid4(), "organization_id": org, "patient_id": pid, "memory_class": "preference",
              "memory_type": "scheduling_preference", "type_version": 1, "attribute": "earliest_time",
              "fact": {"kind": "earliest_time", "time": "10:00"}, "state": "active", "source": "staff_entered",
              "source_ref": "rows-test", "confidence": 1, "policy_revision": "p1",
              "consent_purpose": "appointment_scheduling", "valid_from": now, "valid_until": now + timedelta(days=2),
              "expires_at": now + timedelta(days=30), "created_by": "nurse-rows", "digest_salt": b"salt" * 8}
    return Memory(**{**values, **extra})


def _columns(memory_id) -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM patient_memory WHERE memory_id = %s", [memory_id])
        names = [c.name for c in cursor.description]
        return dict(zip(names, cursor.fetchone(), strict=True))


@pytest.mark.django_db
def test_a_row_inserted_by_a_statement_is_the_row_save_writes(world):
    """Every column (JSON, bytes, dates, defaults, auto_now) as save() leaves it, and the instance gets the same
    auto_now values save() would give it."""
    me, cid = _patient(world)
    with identity_context(me):
        saved = _memory(world.org, world.patient_a, attribute="latest_time", consent_record_id=cid)
        saved.save(force_insert=True)
        written = _memory(world.org, world.patient_a, consent_record_id=cid)
        sql, params = rows.statement([("memory_row", rows.insert(written))])
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            assert cursor.rowcount == 1
        by_save, by_statement = _columns(saved.memory_id), _columns(written.memory_id)
    assert written.created_at is not None and by_statement["created_at"] == written.created_at
    differ = {"memory_id", "attribute", "created_at", "updated_at", "valid_from", "valid_until", "expires_at"}
    assert {k: v for k, v in by_save.items() if k not in differ} == {
        k: v for k, v in by_statement.items() if k not in differ}
    assert json.loads(by_statement["fact"]) == {"kind": "earliest_time", "time": "10:00"}
    assert bytes(by_statement["digest_salt"]) == b"salt" * 8


@pytest.mark.django_db
def test_rows_of_a_statement_read_each_others_returning_and_follow_their_source(world):
    """A row may take a value from another CTE's RETURNING; a row with a source is written once per source row,
    so none when the source wrote nothing."""
    me, cid = _patient(world)
    with identity_context(me):
        memory = _memory(world.org, world.patient_a, consent_record_id=cid)
        copy = Representation(memory_id=memory.memory_id, organization_id=world.org, patient_id=world.patient_a,
                              purpose="appointment_scheduling", target="cache", external_id="")
        sql, params = rows.statement([
            ("memory_row", rows.insert(memory, returning="memory_id")),
            ("copy", rows.insert(copy, expressions={
                "external_id": "(SELECT 'copy-of:' || memory_row.memory_id FROM memory_row)"}))])
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
        assert Representation.objects.get(memory_id=memory.memory_id).external_id == f"copy-of:{memory.memory_id}"

        def event(state_now: str) -> int:
            moved_sql = "UPDATE patient_memory SET updated_at = now() WHERE memory_id = %s AND state = %s RETURNING 1"
            row = LifecycleEvent(memory_id=memory.memory_id, organization_id=world.org, patient_id=world.patient_a,
                                 purpose="appointment_scheduling", event_type="quarantined", from_state=None,
                                 to_state="active", actor_sub=me.actor_sub, reason_code="rows_test",
                                 policy_revision="p1", value_digest=None)
            sql, params = rows.statement([("moved", (moved_sql, [memory.memory_id, state_now])),
                                          ("event", rows.insert(row, source="moved"))])
            with connection.cursor() as cursor:
                cursor.execute(sql, params)
                return cursor.rowcount

        assert event("quarantined") == 0  # the guard matched nothing: no event (NULLs and text cast as columns)
        assert event("active") == 1
        assert LifecycleEvent.objects.filter(memory_id=memory.memory_id).count() == 1
        # a value too long for its column is refused, as a plain INSERT refuses it, never cut to fit
        long_row = LifecycleEvent(memory_id=memory.memory_id, organization_id=world.org, patient_id=world.patient_a,
                                  purpose="appointment_scheduling", event_type="quarantined", from_state=None,
                                  to_state="active", actor_sub=me.actor_sub, reason_code="r" * 61,
                                  policy_revision="p1")
        sql, params = rows.statement([("moved", ("SELECT 1", [])), ("event", rows.insert(long_row, source="moved"))])
        with pytest.raises(DataError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)


def test_a_statement_refuses_unknown_columns_and_names(world):
    memory = _memory(world.org, world.patient_a)
    with pytest.raises(ValueError, match="no such columns"):
        rows.insert(memory, expressions={"no_such_column": "1"})
    with pytest.raises(ValueError, match="source"):
        rows.insert(memory, source="x; DROP TABLE patient_memory")
    with pytest.raises(ValueError, match="not a CTE name"):
        rows.statement([("bad name", ("SELECT 1", [])), ("last", ("SELECT 1", []))])
