"""The worker's cross-organisation side of the outbox: claiming due operations and the circuit breakers.

A worker has no user identity. It finds due operations through the ``workflow_operation_dispatch`` view in a
transaction that sets ``app.worker`` (see migration 0005): ids, scope, status and lease columns only, never a
payload. Everything else it does for an operation runs in :func:`core.identity.identity_context` with the service
identity of that operation's organisation, patient and purpose (:meth:`Claim.identity`), under the normal RLS rule.
Claims are committed before any HTTP call; nothing here ever holds a transaction open across one.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction

from core.identity import Identity, current_identity
from workflows.definitions import SYSTEMS

WORKER_SERVICE_NAME = "workflow-worker"

_WORKER_CONTEXT_SQL = "SELECT set_config('app.worker', %s, true)"

# SKIP LOCKED: concurrent workers each take different rows and never wait for each other. A row still in_flight
# here has an expired lease (its next_attempt_at is the lease end): its worker died or stalled, so it may have
# sent the request; the claim marks the outcome uncertain and the next attempt asks the outside system first.
_CLAIM_SQL = """
WITH due AS (
  SELECT operation_id FROM workflow_operation_dispatch
   WHERE system = ANY(%(systems)s) AND status IN ('pending', 'in_flight', 'outcome_unknown')
     AND next_attempt_at <= now()
   ORDER BY next_attempt_at
   LIMIT %(limit)s
   FOR UPDATE SKIP LOCKED)
UPDATE workflow_operation_dispatch d
   SET status = 'in_flight',
       outcome_uncertain = d.outcome_uncertain OR d.status = 'in_flight',
       claimed_by = %(claimed_by)s,
       claimed_until = now() + make_interval(secs => %(lease)s),
       next_attempt_at = now() + make_interval(secs => %(lease)s),
       updated_at = now()
  FROM due
 WHERE d.operation_id = due.operation_id
RETURNING d.operation_id, d.organization_id, d.patient_id, d.purpose, d.workflow_id, d.kind, d.system,
          d.outcome_uncertain, d.claimed_until
"""

_CIRCUITS_SQL = "SELECT system, state, consecutive_failures, open_until FROM workflow_circuit"

# One worker at a time wins the probe of a circuit whose cool-down has ended (or whose probe was abandoned).
_PROBE_LOCK_SQL = """
SELECT system FROM workflow_circuit
 WHERE system = %s AND state <> 'closed' AND open_until <= now()
   FOR UPDATE SKIP LOCKED
"""

_PROBE_TAKEN_SQL = """
UPDATE workflow_circuit SET state = 'half_open', open_until = now() + make_interval(secs => %s), updated_at = now()
 WHERE system = %s
"""

_CIRCUIT_SUCCESS_SQL = """
UPDATE workflow_circuit SET state = 'closed', consecutive_failures = 0, opened_at = NULL, open_until = NULL,
       updated_at = now()
 WHERE system = %s AND (state <> 'closed' OR consecutive_failures <> 0)
RETURNING state
"""

_CIRCUIT_FAILURE_SQL = """
UPDATE workflow_circuit
   SET consecutive_failures = consecutive_failures + 1,
       state = CASE WHEN state = 'half_open' OR consecutive_failures + 1 >= %(threshold)s THEN 'open' ELSE state END,
       opened_at = CASE WHEN state <> 'open' AND (state = 'half_open' OR consecutive_failures + 1 >= %(threshold)s)
                        THEN now() ELSE opened_at END,
       open_until = CASE WHEN state = 'half_open' OR consecutive_failures + 1 >= %(threshold)s
                         THEN now() + make_interval(secs => %(cooldown)s) ELSE open_until END,
       updated_at = now()
 WHERE system = %(system)s
RETURNING state, open_until
"""


@dataclass(frozen=True)
class Claim:
    operation_id: uuid.UUID
    organization_id: uuid.UUID
    patient_id: uuid.UUID
    purpose: str
    workflow_id: uuid.UUID
    kind: str
    system: str
    outcome_uncertain: bool
    claimed_by: str
    claimed_until: datetime
    probe: bool = False

    def identity(self) -> Identity:
        """The service identity this operation is processed and audited as: its organisation, patient, purpose."""
        return Identity.service(org_id=self.organization_id, name=WORKER_SERVICE_NAME, patient_id=self.patient_id,
                                purpose=self.purpose)


@dataclass(frozen=True)
class CircuitSnapshot:
    system: str
    state: str
    consecutive_failures: int
    open_until: datetime | None


def _worker_transaction():
    if current_identity() is not None:
        raise RuntimeError("the worker's cross-organisation statements never run inside an identity context")
    return transaction.atomic(durable=True)


def _set_worker(cursor, worker: str) -> None:
    cursor.execute(_WORKER_CONTEXT_SQL, [worker])


def _claims(cursor, *, systems: list[str], limit: int, claimed_by: str, lease: float,
            probe: bool = False) -> list[Claim]:
    cursor.execute(_CLAIM_SQL, {"systems": systems, "limit": limit, "claimed_by": claimed_by, "lease": lease})
    return [Claim(*row[:7], outcome_uncertain=row[7], claimed_by=claimed_by, claimed_until=row[8], probe=probe)
            for row in cursor.fetchall()]


def operations_claim(*, worker: str, limit: int, lease_seconds: float, systems: Iterable[str] = SYSTEMS,
                     before_commit: Callable[[list[Claim]], None] | None = None,
                     circuits_seen: dict[str, CircuitSnapshot] | None = None) -> list[Claim]:
    """Claim up to ``limit`` due operations for systems whose circuit is closed, plus one probe operation for each
    system whose circuit has finished its cool-down (if this worker wins the probe). Commits before returning.
    ``circuits_seen`` (optional) receives the circuits as this claim found them."""
    claimed_by = f"{worker}:{uuid.uuid4().hex[:12]}"  # unique per claim: a stale claim can never record
    with _worker_transaction(), connection.cursor() as cursor:
        _set_worker(cursor, worker)
        cursor.execute(_CIRCUITS_SQL)
        snapshots = [CircuitSnapshot(*row) for row in cursor.fetchall()]
        if circuits_seen is not None:
            circuits_seen.update({c.system: c for c in snapshots})
        states = {c.system: c.state for c in snapshots}
        wanted = list(systems)
        closed = [s for s in wanted if states.get(s, "closed") == "closed"]
        claims = _claims(cursor, systems=closed, limit=limit, claimed_by=claimed_by, lease=lease_seconds) \
            if closed else []
        for system in wanted:
            if system in closed:
                continue
            cursor.execute(_PROBE_LOCK_SQL, [system])
            if cursor.fetchone() is None:
                continue
            probe = _claims(cursor, systems=[system], limit=1, claimed_by=claimed_by, lease=lease_seconds,
                            probe=True)
            if probe:
                cursor.execute(_PROBE_TAKEN_SQL, [lease_seconds, system])
                claims += probe
        if before_commit is not None:
            before_commit(claims)
        _set_worker(cursor, "")
    return claims



def circuit_record(*, worker: str, system: str, responded: bool, threshold: int,
                   cooldown_seconds: float) -> tuple[str, datetime | None]:
    """Record whether the system answered sensibly; returns the circuit's state and, when open, until when.

    Consecutive failures up to ``threshold`` open the circuit for ``cooldown_seconds``; a failed probe re-opens it
    at once; any sensible answer (a result, a refusal, a "not known") closes it.
    """
    with _worker_transaction(), connection.cursor() as cursor:
        _set_worker(cursor, worker)
        if responded:
            cursor.execute(_CIRCUIT_SUCCESS_SQL, [system])
            state, until = "closed", None
        else:
            cursor.execute(_CIRCUIT_FAILURE_SQL, {"threshold": threshold, "cooldown": cooldown_seconds,
                                                  "system": system})
            row = cursor.fetchone()
            state, until = (row[0], row[1]) if row else ("closed", None)
        _set_worker(cursor, "")
    return state, until
