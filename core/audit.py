"""Appending audit events. Runs inside the caller's identity context, so the row commits with the work.

Every column but the actor's subject holds a server-chosen code: actions, resource types, reasons and outcomes
match a safe pattern, purposes come from the closed set, ids are UUIDs or short codes. Callers validate what a
request gives them before it can reach here; :func:`record` checks again and the database refuses anything else
(the conditions of migrations ``core.0006`` and ``core.0014``, checked by the ``audit_event_check_codes`` trigger
since ``core.0015``), so no caller can plant free text in the append-only trail.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Q, QuerySet
from django.utils import timezone

from core.cursors import cursor_position, position_cursor
from core.identity import Identity, current_identity
from core.logging import request_id_var
from core.models import AuditEvent
from core.vocabulary import PURPOSE_CODES

ACTOR_KINDS = frozenset({"patient", "staff", "service", "agent"})
OUTCOMES = frozenset({"success", "denied", "conflict", "error"})
# Mirrored in the database by the audit_event_check_codes trigger (core migration 0015, audit codes in one check).
CODE = re.compile(r"^[A-Za-z][A-Za-z0-9_.]{0,79}\Z")
RESOURCE_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,80}\Z")
CLIENT_ID = re.compile(r"^[\x21-\x7e]{1,255}\Z")
_COLUMN_REF = re.compile(r"^[a-z][a-z_]{0,62}\.[a-z][a-z_]{0,62}\Z")


def _check(name: str, value, pattern: re.Pattern | None = None, allowed: frozenset | None = None) -> None:
    if value is None:
        return
    if not isinstance(value, str) or (pattern is not None and not pattern.match(value)) or (
            allowed is not None and value not in allowed):
        # A programming error, never the caller's: request input is validated before it can reach here.
        raise ValueError(f"audit {name} is not a server-validated code")


def _event(*, action: str, resource_type: str, resource_id: str | uuid.UUID | None, patient_id, purpose: str | None,
           outcome: str, reason: str | None, caller: str) -> dict:
    """The checked columns of one event for the identity whose context is open."""
    identity = current_identity()
    if identity is None:
        raise RuntimeError(f"audit.{caller} needs an open identity context")
    resource_id = str(resource_id) if resource_id is not None else None
    if identity.patient_self_id is not None and patient_id is not None and str(patient_id) != str(
            identity.patient_self_id):
        # Someone acting as one patient asked about another: the row stays in the organisation's trail but not in
        # that other patient's history, which would show them this patient's subject and id.
        patient_id = None
    _check("action", action, CODE)
    _check("resource_type", resource_type, CODE)
    _check("resource_id", resource_id, RESOURCE_ID)
    _check("purpose", purpose, allowed=PURPOSE_CODES)
    _check("outcome", outcome, allowed=OUTCOMES)
    _check("reason", reason, CODE)
    _check("actor_kind", identity.actor_kind, allowed=ACTOR_KINDS)
    return {
        "organization_id": identity.org_id,
        "patient_id": patient_id,
        "actor_sub": identity.actor_sub,
        "actor_kind": identity.actor_kind,
        "agent_client_id": identity.agent_client_id,
        "on_behalf_of": identity.patient_self_id if identity.agent_client_id else None,
        "action": action,
        "resource_type": resource_type,
        "resource_id": resource_id,
        "purpose": purpose,
        "outcome": outcome,
        "reason": reason,
        "correlation_id": request_id_var.get() if request_id_var.get() != "-" else str(uuid.uuid4()),
    }


def record(*, action: str, resource_type: str, resource_id: str | uuid.UUID | None = None,
           patient_id: uuid.UUID | str | None = None, purpose: str | None = None, outcome: str = "success",
           reason: str | None = None, outcome_by_access: bool = False) -> None:
    """Append one audit event for the identity whose context is open. Never pass values, prompts or tokens.

    An agent acting for a patient is recorded as such: ``agent_client_id`` names the agent and
    ``on_behalf_of`` the patient it acted for, next to the token's subject. ``outcome_by_access``: as for
    :func:`insert_statement` (a list read by someone who may not see the patient is recorded as ``denied``).
    """
    # The statement insert_statement builds, not the ORM's save(): the same columns and checks, written on every
    # audited request, without building and compiling a model insert each time.
    sql, params = insert_statement(action=action, resource_type=resource_type, resource_id=resource_id,
                                   patient_id=patient_id, purpose=purpose, outcome=outcome, reason=reason,
                                   outcome_by_access=outcome_by_access)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def record_all(events: list[dict]) -> None:
    """Several events (each a dict of :func:`record`'s arguments) in one INSERT: one round trip for a write that
    leaves more than one row (a new value and the supersession it made)."""
    sql, params = insert_all_statement(events)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def insert_all_statement(events: list[dict]) -> tuple[str, list]:
    """:func:`record_all`'s INSERT and its parameters, for a write that sends its audit rows in the statement that
    writes its records (``core.rows.statement``): they commit or roll back with them."""
    rows = [_row(**event) for event in events]
    if not rows or any(source is not None for _, _, _, source in rows):
        raise ValueError("record_all takes one or more rows of values, not rows read from a CTE")
    if len({columns for columns, _, _, _ in rows}) != 1:
        raise ValueError("record_all takes events of one shape")
    values = ", ".join(f"({placeholders})" for _, placeholders, _, _ in rows)
    return f"INSERT INTO audit_event ({rows[0][0]}) VALUES {values}", [p for _, _, params, _ in rows for p in params]


# A read of a patient's records by someone who may not see them answers like a read of nothing (an empty list);
# its audit row says what happened: ``denied``, with the reason the refused detail reads give. The purposes and
# outcomes are server constants from closed sets, written into the statement (nothing to adapt per request).
# Asked once for the row (a FROM item both columns read): each EXISTS in the columns themselves asked it again, up to
# four grant lookups each for staff (app_has_grant is not inlined: about 100 us of the database's CPU a lookup).
# OFFSET 0 keeps PostgreSQL from pulling the subquery up into the columns, which would copy the EXISTS into each.
_BY_ACCESS_SOURCE = ("(SELECT EXISTS (SELECT 1 FROM unnest(ARRAY[{purposes}]) AS p(purpose) "
                     "WHERE app_may_access(%s::uuid, %s::uuid, p.purpose)) AS allowed OFFSET 0) AS access")
_BY_ACCESS = "CASE WHEN access.allowed THEN {yes} ELSE {no} END"
_BY_ACCESS_VALUES = {"outcome": ("'success'", "'denied'"), "reason": ("NULL", "'no_active_consent_or_access'")}
# The purpose-of-use rule (consent/sql/purpose_rule.sql): 'success', or it raises SQLSTATE AP403 and the statement,
# read and audit row together, is refused.
_REQUIRE_PURPOSE = "app_require_purpose(%s::uuid, %s::uuid, %s, %s)"


def insert_statement(*, action: str, resource_type: str, resource_id: str | uuid.UUID | None = None,
                     patient_id: uuid.UUID | str | None = None, purpose: str | None = None,
                     outcome: str = "success", reason: str | None = None,
                     outcome_by_access: bool = False, purpose_from: str | None = None,
                     require_purpose: bool = False) -> tuple[str, list]:
    """The same event as :func:`record` (same checks, same columns), as an INSERT statement and its parameters,
    for a hot read that sends its audit row in the statement that reads (a data-modifying CTE, which PostgreSQL
    runs whether or not the query reads it). It commits or rolls back with the read, exactly like ``record``.

    ``outcome_by_access``: the row is ``success`` if the caller may access ``patient_id`` for ``purpose`` (any
    purpose when None), else ``denied`` with reason ``no_active_consent_or_access``, decided by the access rule in
    the same statement.

    ``purpose_from`` (``cte.column``, a name in the caller's code): the purpose is that column of the statement's
    CTE ``cte``, and the row is written once for each row the CTE has: a read by id learns the purpose from the
    record it reads, and a record that is not there (or not the caller's to see) writes nothing here; its refusal
    is audited as every refusal is.

    ``require_purpose``: the statement is refused (SQLSTATE AP403, before it returns a row) unless the caller may
    read ``patient_id``'s records for ``purpose`` (``app_require_purpose``: a grant for staff, the patient's consent
    in force for an agent acting in their context); the row is then ``success``."""
    columns, placeholders, params, source = _row(
        action=action, resource_type=resource_type, resource_id=resource_id, patient_id=patient_id, purpose=purpose,
        outcome=outcome, reason=reason, outcome_by_access=outcome_by_access, purpose_from=purpose_from,
        require_purpose=require_purpose)
    if source is not None:
        return f"INSERT INTO audit_event ({columns}) SELECT {placeholders} FROM {source}", params
    return f"INSERT INTO audit_event ({columns}) VALUES ({placeholders})", params


def _row(*, action: str, resource_type: str, resource_id: str | uuid.UUID | None = None,
         patient_id: uuid.UUID | str | None = None, purpose: str | None = None, outcome: str = "success",
         reason: str | None = None, outcome_by_access: bool = False,
         purpose_from: str | None = None, require_purpose: bool = False) -> tuple[str, str, list, str | None]:
    """One event as (columns, placeholders, parameters, what its columns are selected from or None: the CTE its
    purpose is read from, or the caller's access)."""
    if purpose_from is not None and (purpose is not None or outcome_by_access or not _COLUMN_REF.match(purpose_from)):
        raise ValueError("purpose_from names one column of a CTE, instead of a purpose")
    if require_purpose and (purpose is None or outcome_by_access or patient_id is None or outcome != "success"):
        raise ValueError("require_purpose checks one named purpose for one patient")
    event = {"id": uuid.uuid4(), "occurred_at": timezone.now(),
             **_event(action=action, resource_type=resource_type, resource_id=resource_id, patient_id=patient_id,
                      purpose=purpose, outcome=outcome, reason=reason, caller="insert_statement")}
    columns = ", ".join(event)
    purposes = ", ".join(f"'{p}'" for p in ([purpose] if purpose else sorted(PURPOSE_CODES)))  # checked codes
    placeholders, params = [], []
    for name, value in event.items():
        if require_purpose and name == "outcome":
            identity = current_identity()
            placeholders.append(_REQUIRE_PURPOSE)
            params += [event["organization_id"], patient_id, purpose,
                       identity is not None and identity.is_agent and identity.patient_self_id is not None]
        elif outcome_by_access and name in _BY_ACCESS_VALUES:
            yes, no = _BY_ACCESS_VALUES[name]
            placeholders.append(_BY_ACCESS.format(yes=yes, no=no))
        elif purpose_from is not None and name == "purpose":
            placeholders.append(purpose_from)
        else:
            placeholders.append("%s")
            params.append(value)
    source = purpose_from.split(".", 1)[0] if purpose_from is not None else None
    if outcome_by_access:
        source = _BY_ACCESS_SOURCE.format(purposes=purposes)
        params += [event["organization_id"], patient_id]  # the FROM item's, after the columns' own
    return columns, ", ".join(placeholders), params, source


# --- reading the trail back, a page at a time -------------------------------------------------------------------
@dataclass(frozen=True)
class HistoryPage:
    items: list[AuditEvent]
    next_cursor: str | None  # None on the last page


def keyset_page(rows: QuerySet, *, cursor: str | None, limit: int, time_field: str,
                id_field: str) -> tuple[list, str | None]:
    """Newest first (``time_field``, then ``id_field``), ``limit`` rows after ``cursor`` and the cursor of the next
    page (None on the last): any list that stops at a limit is read so. ValueError for a cursor it did not give."""
    if cursor:
        when, ident = cursor_position(cursor)
        rows = rows.filter(Q(**{f"{time_field}__lt": when}) | Q(**{time_field: when, f"{id_field}__lt": ident}))
    items = list(rows.order_by(f"-{time_field}", f"-{id_field}")[:limit + 1])
    last = items[limit - 1] if len(items) > limit else None
    return items[:limit], position_cursor(getattr(last, time_field), getattr(last, id_field)) if last else None


def history_page(events: QuerySet[AuditEvent], *, cursor: str | None, limit: int) -> HistoryPage:
    """Newest first, ``limit`` events older than ``cursor`` (an opaque position this function gave: the time and id
    of the last event of the page before, as one transaction's rows share its clock). ValueError for a cursor it
    did not give."""
    items, next_cursor = keyset_page(events, cursor=cursor, limit=limit, time_field="occurred_at", id_field="id")
    return HistoryPage(items=items, next_cursor=next_cursor)


def patient_history(*, identity: Identity, patient_id: uuid.UUID, cursor: str | None, limit: int) -> HistoryPage:
    """A page of :func:`history_page` over the events about one patient, audited as ``audit.list`` (after the read:
    the page never shows its own reading). ValueError, and nothing audited, for a cursor it did not give."""
    page = history_page(AuditEvent.objects.filter(organization_id=identity.org_id, patient_id=patient_id),
                        cursor=cursor, limit=limit)
    record(action="audit.list", resource_type="audit_event", patient_id=patient_id)
    return page


def organization_history(*, identity: Identity, patient_id: uuid.UUID | None, since: datetime | None,
                         before: datetime | None, cursor: str | None, limit: int) -> HistoryPage:
    """A page of :func:`history_page` over the organisation's events (an auditor's view, as ``GET /v1/audit-events``
    answers ``audit:read``), about one patient when ``patient_id`` is given, from ``since`` and before ``before``
    when given; audited as ``audit.list`` after the read. ValueError, and nothing audited, for a cursor it did not
    give."""
    events = AuditEvent.objects.filter(organization_id=identity.org_id)
    if patient_id is not None:
        events = events.filter(patient_id=patient_id)
    if since is not None:
        events = events.filter(occurred_at__gte=since)
    if before is not None:
        events = events.filter(occurred_at__lt=before)
    page = history_page(events, cursor=cursor, limit=limit)
    record(action="audit.list", resource_type="audit_event", patient_id=patient_id)
    return page
