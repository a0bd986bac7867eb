"""Property-based tests of the memory lifecycle (Hypothesis state machine over the real services and database).

Random sequences of record, propose, confirm, reject, correct, quarantine, delete, consent revocation, time
travel past validity and sweeps must never produce two current records for an attribute, never serve an
expired, quarantined, superseded, proposed or deleted memory, and never leave a deleted value anywhere: not in
the row, the lifecycle events, the representations, the receipts, or the logs.
"""

from __future__ import annotations

import itertools
import logging
import re
import uuid

import pytest
from django.db import connection, transaction
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from consent.services import consent_record, consent_revoke, grant_create
from core.errors import ApiError
from core.identity import ACTOR_PATIENT, Identity, identity_context
from memory import deletion, review, selectors, services
from memory.models import Memory
from tests.conftest import in_directory

KINDS = ["earliest_time", "latest_time"]
def time_value(n: int) -> str:
    """The n-th distinct HH:MM of an example: values are unique within an example and identical on replay."""
    n = (7 * 60 + 13 + n) % (24 * 60)
    return f"{n // 60:02d}:{n % 60:02d}"


class LogSink(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


class MemoryLifecycle(RuleBasedStateMachine):
    @initialize()
    def setup(self):
        # each example runs in its own savepoint, rolled back at teardown: examples never see each other
        self.savepoint = transaction.savepoint()
        self.counter = itertools.count()
        self.values: dict[uuid.UUID, str] = {}
        self.org, self.pid, self.other = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
        self.me = Identity(org_id=self.org, actor_sub=f"patient-{self.pid}", patient_self_id=self.pid,
                           actor_kind=ACTOR_PATIENT)
        self.staff = Identity(org_id=self.org, actor_sub="nurse-sm")
        admin = Identity(org_id=self.org, actor_sub="admin", scopes=frozenset({"grant:write"}))
        in_directory(self.org, self.pid)
        with identity_context(admin):
            grant_create(identity=admin, patient_id=self.pid, actor_sub="nurse-sm", purpose="appointment_scheduling",
                         expires_at=None)
        self.consent_id = self._new_consent()
        self.deleted_values: set[str] = set()
        self.never_serve: set[uuid.UUID] = set()
        # a neighbour whose memories must never appear in this patient's reads
        other_me = Identity(org_id=self.org, actor_sub="other", patient_self_id=self.other, actor_kind=ACTOR_PATIENT)
        with identity_context(other_me):
            c, _ = consent_record(identity=other_me, patient_id=self.other, purpose="appointment_scheduling",
                                  evidence_ref="t")
            self.neighbour = services.memory_record(
                identity=other_me, patient_id=self.other, memory_type="scheduling_preference",
                fact={"kind": "earliest_time", "time": "23:59"},
                consent_purpose="appointment_scheduling", consent_record_id=c.consent_record_id).memory_id
        self.sink = LogSink()
        logging.getLogger().addHandler(self.sink)

    def teardown(self):
        if hasattr(self, "sink"):
            logging.getLogger().removeHandler(self.sink)
        if hasattr(self, "savepoint"):
            transaction.savepoint_rollback(self.savepoint)

    def _new_consent(self):
        with identity_context(self.me):
            record, _ = consent_record(identity=self.me, patient_id=self.pid, purpose="appointment_scheduling",
                                       evidence_ref="sm")
        return record.consent_record_id

    def _ids(self, **filters) -> list[uuid.UUID]:
        with identity_context(self.me):
            return list(Memory.objects.filter(patient_id=self.pid, **filters).order_by("created_at")
                        .values_list("memory_id", flat=True))

    def _try(self, identity, fn, **kwargs):
        try:
            with identity_context(identity):
                return fn(identity=identity, patient_id=self.pid, **kwargs)
        except ApiError:
            return None  # a refusal is a legal outcome; the invariants decide whether state stayed sound

    # --- operations ---------------------------------------------------------------------------------------
    @rule(kind=st.sampled_from(KINDS), as_staff=st.booleans())
    def record(self, kind, as_staff):
        t = self.unique_time()
        self._written(t, self._try(self.staff if as_staff else self.me, services.memory_record,
                                   memory_type="scheduling_preference", fact={"kind": kind, "time": t},
                                   consent_purpose="appointment_scheduling", consent_record_id=self.consent_id))

    @rule(kind=st.sampled_from(KINDS))
    def propose(self, kind):
        t = self.unique_time()
        proposed = self._try(self.staff, services.memory_propose, memory_type="scheduling_preference",
                             fact={"kind": kind, "time": t},
                             consent_purpose="appointment_scheduling", consent_record_id=self.consent_id,
                             source_ref="session:x/turn:1")
        self._written(t, proposed and proposed[0])

    @rule(data=st.data())
    def confirm(self, data):
        ids = self._ids(state="proposed")
        if ids:
            self._try(self.me, review.memory_confirm, memory_id=data.draw(st.sampled_from(ids)))

    @rule(data=st.data())
    def reject(self, data):
        ids = self._ids(state="proposed")
        if ids:
            receipt = self._try(self.me, review.memory_reject, memory_id=data.draw(st.sampled_from(ids)))
            self._note_receipt(receipt)

    @rule(data=st.data())
    def correct(self, data):
        ids = self._ids(state="active")
        if ids:
            memory_id = data.draw(st.sampled_from(ids))
            with identity_context(self.me):
                kind = Memory.objects.get(pk=memory_id).attribute
            t = self.unique_time()
            self._written(t, self._try(self.me, review.memory_correct, memory_id=memory_id,
                                       fact={"kind": kind, "time": t}))

    @rule(data=st.data())
    def quarantine(self, data):
        ids = self._ids(state="active")
        if ids:
            memory_id = data.draw(st.sampled_from(ids))
            if self._try(self.staff, review.memory_quarantine, memory_id=memory_id, reason_code="disputed"):
                self.never_serve.add(memory_id)

    @rule(data=st.data())
    def delete(self, data):
        with identity_context(self.me):
            ids = list(Memory.objects.filter(patient_id=self.pid).exclude(state="deleted")
                       .order_by("created_at").values_list("memory_id", flat=True))
        if ids:
            memory_id = data.draw(st.sampled_from(ids))
            self._note_receipt(self._try(self.me, deletion.memory_delete, memory_id=memory_id))

    @rule()
    def erase_all(self):
        self._note_receipt(self._try(self.me, deletion.memory_erase_patient))

    @rule()
    def revoke_and_regrant(self):
        with identity_context(self.me):
            consent_revoke(identity=self.me, patient_id=self.pid, consent_id=self.consent_id)
        self.consent_id = self._new_consent()

    @rule(data=st.data())
    def time_passes_validity(self, data):
        ids = self._ids(state="active")
        if ids:
            memory_id = data.draw(st.sampled_from(ids))
            with identity_context(self.me), connection.cursor() as cur:
                cur.execute("UPDATE patient_memory SET valid_from = now() - interval '2 days', "
                            "valid_until = now() - interval '1 day' WHERE memory_id = %s", [memory_id])
            self.never_serve.add(memory_id)

    @rule()
    def sweep(self):
        deletion.memory_sweep(batch=50, max_batches=3)

    # --- bookkeeping --------------------------------------------------------------------------------------
    def unique_time(self) -> str:
        return time_value(next(self.counter))

    def _written(self, value: str, memory):
        if memory is not None:
            self.values[memory.memory_id] = value

    def _note_receipt(self, receipt):
        if not receipt:
            return
        for memory_id in receipt["memory_ids"]:
            self.never_serve.add(uuid.UUID(memory_id))

    # --- invariants ---------------------------------------------------------------------------------------
    @invariant()
    def at_most_one_current_per_attribute(self):
        if not hasattr(self, "me"):
            return
        with identity_context(self.me), connection.cursor() as cur:
            cur.execute("SELECT attribute, count(*) FROM patient_memory WHERE patient_id = %s AND state = 'active'"
                        " AND superseded_by IS NULL GROUP BY attribute HAVING count(*) > 1", [self.pid])
            assert cur.fetchall() == []

    @invariant()
    def reads_serve_only_current_valid_consented_memories(self):
        if not hasattr(self, "me"):
            return
        now = timezone.now()
        for identity in (self.me, self.staff):
            with identity_context(identity):
                served = list(selectors.memory_list_current(identity=identity, patient_id=self.pid))
                for m in served:
                    assert m.state == "active" and m.superseded_by_id is None
                    assert m.valid_from <= now and (m.valid_until is None or m.valid_until > now)
                    assert m.expires_at > now and m.fact is not None
                    assert m.consent_record.status == "granted"
                    assert m.memory_id not in self.never_serve
                    assert m.patient_id == self.pid and m.memory_id != self.neighbour

    @invariant()
    def deleted_values_are_gone_everywhere(self):
        if not hasattr(self, "me"):
            return
        with identity_context(self.me), connection.cursor() as cur:
            cur.execute("SELECT memory_id FROM patient_memory WHERE patient_id = %s AND state = 'deleted' AND "
                        "(fact IS NOT NULL OR fact_ciphertext IS NOT NULL OR digest_salt IS NOT NULL)", [self.pid])
            assert cur.fetchall() == []
            cur.execute("SELECT count(*) FROM memory_representation r JOIN patient_memory m USING (memory_id) "
                        "WHERE m.patient_id = %s AND m.state = 'deleted' AND r.state <> 'verified'", [self.pid])
            assert cur.fetchone()[0] == 0
            cur.execute("SELECT memory_id FROM patient_memory WHERE patient_id = %s AND state = 'deleted'",
                        [self.pid])
            deleted = {row[0] for row in cur.fetchall()}
            # everything this patient's rows hold, as text: memories, events, representations, receipts
            cur.execute("""SELECT coalesce(string_agg(t, ' '), '') FROM (
                             SELECT m::text AS t FROM patient_memory m WHERE m.patient_id = %(p)s
                             UNION ALL SELECT e::text FROM memory_lifecycle_event e WHERE e.patient_id = %(p)s
                             UNION ALL SELECT r::text FROM memory_representation r WHERE r.patient_id = %(p)s
                             UNION ALL SELECT d::text FROM memory_deletion d WHERE d.patient_id = %(p)s) x""",
                        {"p": self.pid})
            everything = cur.fetchone()[0]
        logs = "\n".join(self.sink.lines)
        for memory_id, value in self.values.items():
            if memory_id in deleted:
                # the value as a fact holds it ("time": "06:17", however quoted), not as part of a timestamp
                pattern = re.compile(r"time\W+" + re.escape(value))
                assert not pattern.search(everything), f"deleted value {value} still stored"
                assert not pattern.search(logs) and value not in logs, f"deleted value {value} in the logs"


@pytest.mark.django_db
@pytest.mark.slow
def test_memory_lifecycle_state_machine():
    machine = MemoryLifecycle.TestCase
    machine.settings = settings(max_examples=20, stateful_step_count=20, deadline=None,
                                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    machine().runTest()
