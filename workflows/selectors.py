"""Workflow reads: one workflow with what an agent resuming it needs, its operations, and the staff's queue of
workflows stuck in needs_reconciliation."""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Case, Count, QuerySet, When

from consent.purpose import permits, require_purpose
from consent.selectors import consent_lapse
from core import audit
from core.cursors import cursor_position, position_cursor
from core.errors import NotFound
from core.identity import Identity
from workflows.definitions import (
    CANCELLED,
    NEEDS_RECONCILIATION,
    WORKFLOW_TYPES,
    checkpoint_steps,
    operation_kinds_for,
)
from workflows.models import ACTIVE_OPERATION_STATUSES, Circuit, Operation, OperationStatus, Workflow

S = OperationStatus

# What an agent coming back should do next. Never "ask for the referral again": the transition table has no way
# back to a step that is done, and these actions only ever point forward or say "wait".
WAIT_FOR_OPERATION = "wait_for_operation"
WAIT_FOR_RECONCILIATION = "wait_for_reconciliation"
STAFF_RECONCILIATION = "staff_reconciliation"
REQUEST_OPERATION = "request_operation"
CHECKPOINT = "checkpoint"
NONE = "none"
UNDO_AT_OUTSIDE_SYSTEM = "undo_at_outside_system"
NEXT_ACTIONS = [WAIT_FOR_OPERATION, WAIT_FOR_RECONCILIATION, STAFF_RECONCILIATION, REQUEST_OPERATION, CHECKPOINT,
                UNDO_AT_OUTSIDE_SYSTEM, NONE]


_WORKFLOW_COLUMNS = ", ".join(f"w.{f.column}" for f in Workflow._meta.concrete_fields)
# One statement: the row, and whether it has any operation the caller can see (most checkpoints of a booking come
# before anything is sent out, and then neither the checks nor the answer need the operations).
_WORKFLOW_SQL = (f"SELECT {_WORKFLOW_COLUMNS}, EXISTS (SELECT 1 FROM workflow_operation o "
                 "WHERE o.workflow_id = w.workflow_id AND o.organization_id = w.organization_id) AS has_operations "
                 "FROM agent_workflow w WHERE w.workflow_id = %s AND w.organization_id = %s")


_WORKFLOW_ATTNAMES = [f.attname for f in Workflow._meta.concrete_fields]


@functools.cache
def _workflow_converters() -> tuple[tuple[int, Any, Any], ...]:
    """(column, field, converter) for each database converter of the model's fields (the JSON state's)."""
    return tuple((i, field, converter) for i, field in enumerate(Workflow._meta.concrete_fields)
                 for converter in field.get_db_converters(connection))  # type: ignore[attr-defined]


def _workflow_from_row(row: tuple) -> Workflow:
    """A model instance from a row of ``_WORKFLOW_SQL``, as ``Workflow.objects.raw`` would build it (each field's
    database converters applied, ``from_db`` so it is not "adding"), without a RawQuerySet's per-query work:
    resolving columns and converters cost about a twentieth of a checkpoint's CPU."""
    *values, has_operations = row
    for i, field, converter in _workflow_converters():
        values[i] = converter(values[i], field, connection)
    workflow = Workflow.from_db(connection.alias, _WORKFLOW_ATTNAMES, values)
    workflow.has_operations = has_operations
    return workflow


def workflow_get(*, identity: Identity, workflow_id: uuid.UUID, for_update: bool = False) -> Workflow:
    """The workflow with ``has_operations`` set (see the model), or NotFound whether it does not exist or is not
    the caller's (RLS). ``for_update``: locked until the transaction ends (the services' writes).

    An agent acting for the patient reaches it only while the patient's consent for the workflow's purpose is in
    force (the purpose rule, ``consent.purpose.require_purpose``: 403 ``purpose_not_permitted``), for every read
    and write, as for a conversation: its state holds what the patient said for that purpose, and its operations
    send their data to an outside system."""
    sql = _WORKFLOW_SQL + (" FOR UPDATE OF w" if for_update else "")
    with connection.cursor() as cursor:
        cursor.execute(sql, [workflow_id, identity.org_id])
        row = cursor.fetchone()
    if row is None:
        raise NotFound()
    workflow = _workflow_from_row(row)
    if identity.is_agent:
        require_purpose(identity, patient_id=workflow.patient_id, purpose=workflow.purpose)
    return workflow


def workflow_answer_still_holds(*, identity: Identity, workflow_id: uuid.UUID | str | None) -> bool:
    """Whether a stored answer showing this workflow (its state) may be given to the caller again. An agent reads a
    workflow only under the patient's consent for its purpose (:func:`workflow_get`); a withdrawal withdraws its
    stored answers when it happens, but a consent that runs out does nothing when it ends, so it is asked here.
    Staff's answers are checked against their grant by the replay itself; the patient's are always theirs."""
    if not identity.is_agent:
        return True
    scope = Workflow.objects.filter(pk=workflow_id, organization_id=identity.org_id).values_list(
        "patient_id", "purpose").first() if workflow_id else None
    return scope is not None and permits(identity, patient_id=scope[0], purpose=scope[1])


def operation_list(*, identity: Identity, workflow: Workflow) -> QuerySet[Operation]:
    """Every operation of a workflow the caller can see, newest first."""
    return (Operation.objects.filter(organization_id=identity.org_id, workflow=workflow)
            .order_by("-created_at", "operation_id"))


def operations_lapsed(*, identity: Identity, workflow: Workflow,
                      operations: list[Operation]) -> list[tuple[Operation, str]]:
    """Of ``operations`` (the workflow's) those waiting to be sent or asked after (pending, or with an unknown
    outcome, and not withdrawn yet) that were asked for under a consent withdrawn or run out since, each with the
    lapse (``consent_revoked``, ``consent_expired``): the worker never sends them (:mod:`workflows.withdrawal`)."""
    waiting = [op for op in operations if op.withdrawn_reason is None
               and op.status in (S.PENDING, S.OUTCOME_UNKNOWN)]
    if not waiting or consent_lapse(identity=identity, patient_id=workflow.patient_id, purpose=workflow.purpose,
                                    since=min(op.created_at for op in waiting)) is None:
        return []  # the usual answer, in one query
    lapsed = ((op, consent_lapse(identity=identity, patient_id=workflow.patient_id, purpose=workflow.purpose,
                                 since=op.created_at)) for op in waiting)
    return [(op, lapse) for op, lapse in lapsed if lapse is not None]


def operations_as_now(*, identity: Identity, workflow: Workflow, operations: list[Operation]) -> list[Operation]:
    """``operations`` as the worker will treat them (nothing is written): one asked for under a consent that ran
    out since (or was withdrawn) is never sent, but nothing marks the moment an expiry passes, so the row says so
    only once the worker (or the next request) takes it. Shown here as it will be: one waiting that provably never
    left as ``cancelled`` with the lapse as its code; one that may have arrived as withdrawn (only asked after). An
    operation being sent (``in_flight``) is shown as it is. It used to read as queued until the worker ran (the
    consent's ``consents_as_now`` does the same for the consent itself)."""
    for op, lapse in operations_lapsed(identity=identity, workflow=workflow, operations=operations):
        if op.status == S.PENDING and not op.outcome_uncertain:
            op.status, op.last_error_code, op.next_attempt_at = S.CANCELLED, lapse, None
        else:
            op.withdrawn_reason = lapse
    return operations


# an operation withdrawn before it was sent, by its last_error_code: what happened to the consent it was asked under
LAPSES = {"consent_revoked": "the patient withdrew the consent for",
          "consent_expired": "the patient's consent ran out for"}


@dataclass(frozen=True)
class NextSafeAction:
    action: str
    message: str
    operation_id: uuid.UUID | None = None
    operation_kind: str | None = None
    not_before: datetime | None = None
    allowed_next_steps: tuple[str, ...] = ()


@dataclass(frozen=True)
class Resume:
    """A workflow and what an agent resuming it needs to know."""

    workflow: Workflow
    pending_operations: list[Operation]
    latest_operation: Operation | None
    next_safe_action: NextSafeAction
    allowed_next_steps: list[str]  # what a checkpoint may move to (definitions.checkpoint_steps)


def workflow_resume(*, identity: Identity, workflow: Workflow) -> Resume:
    """Step, version, unsettled operations and the next safe action (two queries)."""
    unsettled_first = Case(When(status__in=ACTIVE_OPERATION_STATUSES, then=0), default=1)
    operations = [] if workflow.has_operations is False else list(
        operation_list(identity=identity, workflow=workflow).order_by(unsettled_first, "-created_at",
                                                                      "operation_id")[:20])
    operations.sort(key=lambda op: op.created_at, reverse=True)  # newest first, as next_safe_action expects
    operations = operations_as_now(identity=identity, workflow=workflow, operations=operations)
    pending = [op for op in operations if op.status in ACTIVE_OPERATION_STATUSES]
    open_systems = set()
    if pending:
        open_systems = set(Circuit.objects.exclude(state="closed").values_list("system", flat=True))
    latest = operations[0] if operations else None
    return Resume(workflow=workflow, pending_operations=pending, latest_operation=latest,
                  next_safe_action=next_safe_action(workflow=workflow, operations=operations,
                                                    unavailable_systems=open_systems),
                  allowed_next_steps=checkpoint_steps(workflow.workflow_type, workflow.current_step,
                                                      {op.kind for op in operations}))


def next_safe_action(*, workflow: Workflow, operations: list[Operation],
                     unavailable_systems: frozenset[str] | set[str] = frozenset()) -> NextSafeAction:
    """What is safe to do next, from the step, the transition table and the operations (newest first)."""
    spec = WORKFLOW_TYPES[workflow.workflow_type]
    if spec.is_terminal(workflow.current_step):
        parked = [op for op in operations if op.status == S.OUTCOME_UNKNOWN and op.next_attempt_at is None]
        if parked:  # cancelled while unknown, and the look-ups ran out: listed in the staff's queue
            op = parked[0]
            return NextSafeAction(
                STAFF_RECONCILIATION, f"The workflow was cancelled, but the {op.system} may have received its "
                f"{op.kind}, and the look-ups ran out before it could tell. Staff check with it, then record "
                "what it said (resolve: sent, with its id, or not sent) or retry the operation: the worker only "
                "asks it (same key), never sends it again; anything it did must be withdrawn there.",
                op.operation_id, op.kind)
        kept = [op for op in operations if op.status == S.SUCCEEDED]
        if workflow.current_step == CANCELLED and kept:
            # an authorisation or a booking made for a workflow nobody wants any more (before the cancellation,
            # or after it, by a request that had already arrived): this service never undoes an outside action
            op = kept[0]
            return NextSafeAction(
                UNDO_AT_OUTSIDE_SYSTEM, f"The workflow was cancelled, but the {op.system} holds what its {op.kind} "
                f"did (the result is kept on the operation). Cancel or withdraw it at the {op.system}; this service "
                "does not undo outside actions.", op.operation_id, op.kind)
        return NextSafeAction(NONE, "The workflow is finished.")
    pending = [op for op in operations if op.status in ACTIVE_OPERATION_STATUSES]
    uncertain = [op for op in pending if op.status == S.OUTCOME_UNKNOWN or op.outcome_uncertain]
    if uncertain:
        op = uncertain[0]
        if op.status == S.OUTCOME_UNKNOWN and op.next_attempt_at is None:
            return NextSafeAction(
                STAFF_RECONCILIATION, f"The {op.system} may have received this request, and the retries ran out "
                "before it could tell. Staff check with it, then record what it said (resolve: sent, with its id, "
                "or not sent) or retry the operation (same key); never request it as a new one.",
                op.operation_id, op.kind)
        if op.withdrawn_reason is not None:  # the consent withdrawn, or the patient erased, while it was unknown
            return NextSafeAction(
                WAIT_FOR_RECONCILIATION, f"The outcome at the {op.system} is not known yet, and the request was "
                f"withdrawn ({op.withdrawn_reason}): the worker only asks it whether it has this request (same "
                "key), adopts what arrived and never sends it again. Do not resubmit.", op.operation_id, op.kind,
                op.next_attempt_at or op.claimed_until)
        return NextSafeAction(
            WAIT_FOR_RECONCILIATION, f"The outcome at the {op.system} is not known yet. The worker will ask it "
            "whether it has this request (same key) and adopt its answer before it would submit again. Do not "
            "resubmit.", op.operation_id, op.kind, op.next_attempt_at or op.claimed_until)
    if pending:
        op = pending[0]
        down = op.system in unavailable_systems
        return NextSafeAction(
            WAIT_FOR_OPERATION, f"The request to the {op.system} is queued"
            + (f"; the {op.system} is unavailable and it will be retried with backoff." if down else "."),
            op.operation_id, op.kind, op.next_attempt_at if op.status == S.PENDING else op.claimed_until)
    steps = tuple(checkpoint_steps(workflow.workflow_type, workflow.current_step, {op.kind for op in operations}))
    wanted = [k for k in operation_kinds_for(workflow.workflow_type) if workflow.current_step in k.requested_at]
    if wanted:
        kind = wanted[0]
        last = next((op for op in operations if op.kind == kind.name), None)
        failed = last if last is not None and last.status == S.FAILED else None
        lapse = LAPSES.get(last.last_error_code or "") if last is not None else None
        withdrawn = last if lapse is not None else None
        named = failed or withdrawn
        return NextSafeAction(
            REQUEST_OPERATION, f"Request the {kind.name} operation."
            + (f" The last one failed ({failed.last_error_code}); a new request gets a new key." if failed else "")
            + (f" The last one was withdrawn before it was sent, when {lapse} "
               f"{workflow.purpose}: ask again only under a consent in force." if withdrawn else ""),
            named.operation_id if named is not None else None, kind.name,
            allowed_next_steps=steps)
    message = "Checkpoint the next step when it is known."
    if workflow.current_step == NEEDS_RECONCILIATION:
        message = "No operation is unsettled: checkpoint the step the outside system's answer supports."
    return NextSafeAction(CHECKPOINT, message, allowed_next_steps=steps)


# --- staff: workflows stuck in needs_reconciliation ------------------------------------------------------------
_RECONCILIATION_SQL = """
SELECT workflow_id, patient_id, workflow_type, purpose, current_step, version, updated_at, operation_id, kind,
       system, operation_status, attempts, next_attempt_at, last_error_code, requested_by_kind,
       COALESCE(app_may_access(organization_id, patient_id, purpose), false) AS granted
  FROM workflow_reconciliation_queue
 WHERE organization_id = %s
   AND (%s OR app_may_access(organization_id, patient_id, purpose))
   AND (%s::timestamptz IS NULL OR (updated_at, workflow_id) > (%s::timestamptz, %s::uuid))
 ORDER BY updated_at, workflow_id
 LIMIT %s
"""
_RECONCILIATION_COLUMNS = ["workflow_id", "patient_id", "workflow_type", "purpose", "current_step", "version",
                           "updated_at", "operation_id", "operation_kind", "system", "operation_status",
                           "attempts", "next_attempt_at", "last_error_code", "requested_by_kind", "granted"]
ORGANIZATION_SCOPE = "workflow:reconcile:org"
# why the caller cannot act on a queue item: no grant for its patient and purpose, or no workflow:write
NO_GRANT = "no_grant_for_patient"
NO_WRITE_SCOPE = "missing_scope_workflow_write"
VIEW_ORGANIZATION = "organization"
VIEW_GRANTED = "granted_patients"


def reconciliation_view(identity: Identity) -> str:
    """Which queue the caller sees: the organisation's (``workflow:reconcile:org``) or their granted patients'."""
    return VIEW_ORGANIZATION if identity.has_scope(ORGANIZATION_SCOPE) else VIEW_GRANTED


def reconciliation_queue(*, identity: Identity, limit: int = 100, cursor: str | None = None) -> list[dict]:
    """Workflows in needs_reconciliation, and cancelled ones whose operation is parked with an unknown outcome
    (workflows migration 0013), oldest first, with their unsettled operation: only these columns, no workflow
    state, no payload, no result.

    Staff see the patients and purposes they hold active grants for; the whole organisation's queue needs the
    ``workflow:reconcile:org`` scope (the database's policy on the view asks for it too). ``cursor``: only those
    after the item it was made from (:func:`reconciliation_cursor`); ValueError for a cursor it did not give.
    """
    organisation_wide = reconciliation_view(identity) == VIEW_ORGANIZATION
    after, after_id = cursor_position(cursor) if cursor else (None, None)
    with connection.cursor() as db:
        db.execute(_RECONCILIATION_SQL, [identity.org_id, organisation_wide, after, after, after_id, limit])
        rows = db.fetchall()
    items = [dict(zip(_RECONCILIATION_COLUMNS, row, strict=True)) for row in rows]
    writes = identity.has_scope("workflow:write")
    for item in items:
        item["parked"] = item["operation_status"] == S.OUTCOME_UNKNOWN and item["next_attempt_at"] is None
        # the organisation's view lists items the caller may not touch: acting on one (retry, resolve, checkpoint)
        # reaches the workflow only under a grant for its patient and purpose (404 otherwise, as for none)
        granted = item.pop("granted")
        item["can_act"] = granted and writes
        item["cannot_act_reason"] = None if item["can_act"] else NO_GRANT if not granted else NO_WRITE_SCOPE
    return items


def reconciliation_cursor(item: dict) -> str:
    """Where the next page of the queue starts: after this item (its last change, then its id)."""
    return position_cursor(item["updated_at"], item["workflow_id"])


@dataclass(frozen=True)
class Monitor:
    """The staff's workflow monitor: how many workflows the caller can see stand at each step (most first), and
    their reconciliation queue (empty without ``workflow:reconcile``)."""

    step_counts: list[tuple[str, int]]
    queue: list[dict]
    view: str
    next_cursor: str | None = None  # where the queue's next page starts (None on the last)


MONITOR_PAGE = 100


def workflow_monitor(*, identity: Identity, cursor: str | None = None) -> Monitor:
    """What the monitor page shows, audited as ``workflow.reconciliation.list``: the page offers the queue, so its
    every opening is recorded, whether or not the caller's scopes fill it. The queue a page at a time, after
    ``cursor`` (ValueError, nothing read or audited, for a cursor it did not give)."""
    if cursor:
        cursor_position(cursor)  # refused before anything is read
    queue = (reconciliation_queue(identity=identity, limit=MONITOR_PAGE + 1, cursor=cursor)
             if identity.has_scope("workflow:reconcile") else [])
    counts = list(Workflow.objects.filter(organization_id=identity.org_id).values_list("current_step")
                  .annotate(n=Count("workflow_id")).order_by("-n", "current_step"))
    audit.record(action="workflow.reconciliation.list", resource_type="workflow")
    more = len(queue) > MONITOR_PAGE
    return Monitor(step_counts=counts, queue=queue[:MONITOR_PAGE], view=reconciliation_view(identity),
                   next_cursor=reconciliation_cursor(queue[MONITOR_PAGE - 1]) if more else None)
