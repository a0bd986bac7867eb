from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import F, Max, Q, QuerySet
from django.db.models.fields.tuple_lookups import Tuple, TupleGreaterThan
from django.utils import timezone
from psycopg.types.string import TextLoader

from core import audit
from core.cursors import cursor_key, cursor_position, key_cursor, position_cursor
from core.errors import NotFound
from core.identity import Identity
from memory.lifecycle import memory_value
from memory.models import Deletion, LifecycleEvent, Memory, MemoryState, Release, ReleaseMember, state_now


def memory_list_current(*, identity: Identity, patient_id: uuid.UUID, memory_type: str | None = None,
                        consent_purpose: str | None = None, now: datetime | None = None) -> QuerySet[Memory]:
    """Current memories of one patient that the caller may see (RLS), in a stable order.

    The organisation and patient filters repeat what RLS enforces so that plans use the patient index.
    """
    qs = Memory.objects.current(now).for_patient(identity.org_id, patient_id)
    if memory_type:
        qs = qs.filter(memory_type=memory_type)
    if consent_purpose:
        qs = qs.filter(consent_purpose=consent_purpose)
    return qs.order_by("memory_type", "attribute", "consent_purpose")


def memory_list_proposed(*, identity: Identity, patient_id: uuid.UUID) -> list[Memory]:
    """Proposals still waiting for confirmation: one whose validity, retention or consent ended is no longer
    one (the sweep will record it as expired)."""
    return _in_state(identity, patient_id, MemoryState.PROPOSED)


def memory_proposal_page(*, identity: Identity, patient_id: uuid.UUID, limit: int, purpose: str | None = None,
                         cursor: str | None = None) -> tuple[list[Memory], str | None]:
    """A page of :func:`memory_list_proposed` (kept for ``purpose`` when given), oldest first, after ``cursor``, and
    the cursor of the next page (None on the last). ValueError for a cursor it did not give."""
    rows = (Memory.objects.for_patient(identity.org_id, patient_id).pending_proposals(timezone.now())
            .select_related("consent_record"))
    if purpose is not None:
        rows = rows.filter(consent_purpose=purpose)
    if cursor:
        when, ident = cursor_position(cursor)
        rows = rows.filter(Q(created_at__gt=when) | Q(created_at=when, memory_id__gt=ident))
    items = list(rows.order_by("created_at", "memory_id")[:limit + 1])
    last = items[limit - 1] if len(items) > limit else None
    return items[:limit], position_cursor(last.created_at, last.memory_id) if last else None


def memory_current_since(when: datetime, current: list[Memory], now: datetime) -> Memory | None:
    """Of an attribute's current records, the active one that became current after ``when`` (written, confirmed,
    released or made current again since), if any: a proposal made before then answered a value since replaced."""
    live = [m for m in current if m.state == MemoryState.ACTIVE and (m.valid_until is None or m.valid_until > now)]
    if not live:
        return None
    became_current = _became_current(live)
    return next((m for m in live if became_current[m.memory_id] > when), None)


def memory_proposals_stale(*, identity: Identity, patient_id: uuid.UUID, proposals: list[Memory],
                           now: datetime | None = None) -> dict[uuid.UUID, Memory]:
    """Of ``proposals`` (waiting ones of this patient), those made before their attribute's current value became
    current (:func:`memory_current_since`: confirming them is ``proposal_stale``), each with that value; in two
    statements however many there are."""
    now = now or timezone.now()
    keys = {(p.memory_type, p.attribute, p.consent_purpose) for p in proposals}
    if not keys:
        return {}
    live = [m for m in Memory.objects.for_patient(identity.org_id, patient_id).filter(
                state=MemoryState.ACTIVE, superseded_by__isnull=True,
                memory_type__in={k[0] for k in keys}, consent_purpose__in={k[2] for k in keys})
            if (m.memory_type, m.attribute, m.consent_purpose) in keys
            and (m.valid_until is None or m.valid_until > now)]
    became_current = _became_current(live)
    by_key = {(m.memory_type, m.attribute, m.consent_purpose): m for m in live}
    stale = {}
    for proposal in proposals:
        current = by_key.get((proposal.memory_type, proposal.attribute, proposal.consent_purpose))
        if current is not None and became_current[current.memory_id] > proposal.created_at:
            stale[proposal.memory_id] = current
    return stale


def _became_current(live: list[Memory]) -> dict[uuid.UUID, datetime]:
    """When each of these current values became current: written, or last confirmed, released or made current
    again."""
    events = dict(LifecycleEvent.objects.filter(memory_id__in=[m.memory_id for m in live],
                                                to_state=MemoryState.ACTIVE)
                  .values_list("memory_id").annotate(at=Max("occurred_at")))
    return {m.memory_id: max(events.get(m.memory_id, m.created_at), m.created_at) for m in live}


def memory_list_quarantined(*, identity: Identity, patient_id: uuid.UUID) -> list[Memory]:
    """Memories staff set aside as doubtful (used by nobody), while they are still current: the patient sees
    them, and may correct or delete them."""
    return _in_state(identity, patient_id, MemoryState.QUARANTINED)


def _in_state(identity: Identity, patient_id: uuid.UUID, state: str) -> list[Memory]:
    now = timezone.now()
    rows = (Memory.objects.for_patient(identity.org_id, patient_id).filter(state=state)
            .select_related("consent_record").order_by("created_at"))
    return [m for m in rows if m.effective_state(now) == state]


def memory_get(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID) -> Memory:
    """One memory in the state it has now (see :meth:`Memory.effective_state`): past its validity or consent
    it reads as expired, past retention as a tombstone without value, never as active. NotFound otherwise."""
    memory = (Memory.objects.for_patient(identity.org_id, patient_id).filter(memory_id=memory_id)
              .select_related("consent_record").first())
    if memory is None:
        raise NotFound()
    return memory.as_of_now()


def memory_shown(*, patient_id: uuid.UUID, memory: Memory) -> None:
    """A page showed ``memory`` (read with :func:`memory_get`) to someone other than the patient: audited as
    ``memory.read``, for the purpose it is kept for."""
    audit.record(action="memory.read", resource_type="memory", resource_id=memory.memory_id, patient_id=patient_id,
                 purpose=memory.consent_purpose)


def memory_states_shown(data) -> dict[str, str]:
    """The memories an answer shows, by id, with the state it showed them in (``active`` for a context pack's
    facts, which show current memories only)."""
    shown: dict[str, str] = {}
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            memory_id = item.get("memory_id")
            if isinstance(memory_id, str) and ("fact" in item or "text" in item):
                state = item.get("state")
                shown[memory_id] = state if isinstance(state, str) else str(MemoryState.ACTIVE)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return shown


def memory_states_now(*, identity: Identity, memory_ids: list[str]) -> dict[str, str]:
    """The state each of these memories has now, for the caller (row-level security: one they may no longer see
    is missing)."""
    rows = (Memory.objects.filter(organization_id=identity.org_id, memory_id__in=memory_ids)
            .select_related("consent_record"))
    now = timezone.now()
    return {str(m.memory_id): m.effective_state(now) for m in rows}


def memory_answer_still_holds(*, identity: Identity, data) -> bool:
    """Whether a stored answer showing memories may be given again: only while each still reads as it did (a value
    whose consent or validity ran out, that staff set aside, or that was confirmed since, is not served by a retry)."""
    shown = memory_states_shown(data)
    if not shown:
        return True
    now = memory_states_now(identity=identity, memory_ids=list(shown))
    return all(now.get(memory_id) == state for memory_id, state in shown.items())


# A memory's attribute chain in one statement, instead of a query per version: the newer versions (step -1 is the
# next one) and the older (a generation per step; several records can be superseded by the same one). A link is a
# supersession (superseded_by), or a value made current again while a newer one was quarantined (its reinstated
# event's source_ref, quarantine-of:<id>): that value's superseded_by is cleared, and the history of either would
# otherwise hide the other, the current value among them. RLS applies to every row; the steps are bounded, cycles cut.
_CHAIN_SQL = (
    "WITH RECURSIVE links(older_id, newer_id) AS ("
    "SELECT memory_id, superseded_by FROM patient_memory "
    "WHERE organization_id = %s AND patient_id = %s AND superseded_by IS NOT NULL "
    "UNION SELECT e.memory_id, substr(e.source_ref, 15)::uuid FROM memory_lifecycle_event e "
    "WHERE e.organization_id = %s AND e.patient_id = %s AND e.event_type = 'reinstated' "
    "AND e.source_ref ~ '^quarantine-of:[0-9a-f-]{36}$'), "
    "newer(memory_id, step) AS ("
    "SELECT %s::uuid, 0 "
    "UNION ALL SELECT l.newer_id, n.step - 1 FROM newer n JOIN links l ON l.older_id = n.memory_id "
    "WHERE n.step > -%s) CYCLE memory_id SET newer_cycle USING newer_path, "
    "older(memory_id, step) AS ("
    "SELECT older_id, 1 FROM links WHERE newer_id = %s "
    "UNION ALL SELECT l.older_id, o.step + 1 FROM older o JOIN links l ON l.newer_id = o.memory_id "
    "WHERE o.step < %s) CYCLE memory_id SET older_cycle USING older_path "
    "SELECT memory_id, step FROM newer WHERE step < 0 AND NOT newer_cycle "
    "UNION ALL SELECT memory_id, step FROM older WHERE NOT older_cycle")
_CHAIN_LIMIT = 100_000


@dataclass(frozen=True)
class HistoryPage:
    memory: Memory  # the version asked about
    versions: list[Memory]
    events: list[LifecycleEvent]
    next_cursor: str | None


def memory_history(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID, limit: int,
                   purpose: str | None = None, cursor: str | None = None) -> HistoryPage:
    """A page of the versions of the memory's attribute chain, newest first (those kept for ``purpose`` when it is
    named; the memory itself kept for another is NotFound), after the version a ``cursor`` names (the next page's
    starts after its last, so versions written meanwhile, which are newer, do not shift it), with their lifecycle
    events. ValueError for a cursor this history never gave."""
    memory = memory_get(identity=identity, patient_id=patient_id, memory_id=memory_id)
    if purpose is not None and memory.consent_purpose != purpose:  # minimum necessary: kept for another purpose
        raise NotFound().about(patient_id=patient_id, purpose=purpose)
    after = uuid.UUID(cursor_key(cursor, 1)[0]) if cursor is not None else None
    org = identity.org_id
    with connections[DEFAULT_DB_ALIAS].cursor() as db:
        db.execute(_CHAIN_SQL, [org, patient_id, org, patient_id, memory.memory_id, _CHAIN_LIMIT, memory.memory_id,
                                _CHAIN_LIMIT])
        chain = db.fetchall()
    seen = Memory.objects.for_patient(org, patient_id).filter(memory_id__in=[m for m, _ in chain])
    if purpose is not None:
        seen = seen.filter(consent_purpose=purpose)
    created = dict(seen.values_list("memory_id", "created_at"))
    # newest first: the newer versions from the furthest, this one, then the older ones a generation at a time
    # (a version reached by two links is shown once, where it is first met)
    ordered = sorted((step, -created[m].timestamp(), m) for m, step in chain if m in created)
    newer = [m for step, _, m in ordered if step < 0]
    older = [m for step, _, m in ordered if step > 0]
    shown = list(dict.fromkeys([*newer, memory.memory_id, *older]))
    start = shown.index(after) + 1 if after is not None else 0  # ValueError: no version of this history
    page = shown[start:start + limit]
    rows = {m.memory_id: m for m in Memory.objects.for_patient(org, patient_id).select_related(
        "consent_record").filter(memory_id__in=[m for m in page if m != memory.memory_id])}
    now = timezone.now()
    versions = [(memory if m == memory.memory_id else rows[m]).as_of_now(now) for m in page]
    events = list(LifecycleEvent.objects.filter(memory_id__in=page).order_by("occurred_at"))
    more = start + limit < len(shown)
    return HistoryPage(memory=memory, versions=versions, events=events,
                       next_cursor=key_cursor((str(page[-1]),)) if more and page else None)


def deletion_receipts(*, identity: Identity, patient_id: uuid.UUID) -> list[dict]:
    return [d.receipt for d in _completed_deletions(identity, patient_id).order_by("-requested_at")]


def _completed_deletions(identity: Identity, patient_id: uuid.UUID) -> QuerySet[Deletion]:
    return Deletion.objects.filter(organization_id=identity.org_id, patient_id=patient_id, completed_at__isnull=False)


def deletion_receipt_page(*, identity: Identity, patient_id: uuid.UUID, limit: int,
                          cursor: str | None = None) -> tuple[list[dict], str | None]:
    """A page of :func:`deletion_receipts`, newest first, older than ``cursor``, and the cursor of the next page
    (None on the last). ValueError for a cursor it did not give."""
    found, next_cursor = audit.keyset_page(_completed_deletions(identity, patient_id), cursor=cursor, limit=limit,
                                           time_field="requested_at", id_field="deletion_id")
    return [d.receipt for d in found], next_cursor


def release_list(*, identity: Identity, patient_id: uuid.UUID, limit: int = 200) -> list[dict]:
    """Context packs released for this patient, newest first, with the memories in each (ids and whether the
    memory has since been withdrawn by a deletion). No texts: packs are never stored."""
    return release_page(identity=identity, patient_id=patient_id, limit=limit)[0]


def release_page(*, identity: Identity, patient_id: uuid.UUID, limit: int, purpose: str | None = None,
                 cursor: str | None = None) -> tuple[list[dict], str | None]:
    """A page of :func:`release_list` (released for ``purpose`` when given), older than ``cursor``, and the cursor
    of the next page (None on the last). ValueError for a cursor it did not give."""
    found = Release.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
    if purpose is not None:
        found = found.filter(purpose=purpose)
    releases, next_cursor = audit.keyset_page(found, cursor=cursor, limit=limit, time_field="created_at",
                                              id_field="release_id")
    members: dict = {}
    for m in ReleaseMember.objects.filter(release_id__in=[r.release_id for r in releases]).order_by("id"):
        members.setdefault(m.release_id, []).append(
            {"memory_id": str(m.memory_id), "score": round(m.score, 4),
             "withdrawn_at": m.withdrawn_at.isoformat() if m.withdrawn_at else None})
    items = [{"release_id": str(r.release_id), "actor_sub": r.actor_sub, "agent_client_id": r.agent_client_id,
              "purpose": r.purpose,
              "created_at": r.created_at.isoformat(), "members": members.get(r.release_id, [])} for r in releases]
    return items, next_cursor


# What a list item needs, in the order memory_list_items() reads it.
ITEM_COLUMNS = ("memory_id", "patient_id", "memory_class", "memory_type", "type_version", "attribute", "fact",
                 "fact_ciphertext", "fact_key_id", "state", "source", "source_ref", "confidence", "policy_revision",
                 "consent_purpose", "consent_record_id", "valid_from", "valid_until", "expires_at", "review_by",
                 "superseded_by_id", "created_by", "agent_client_id", "created_at")


# The order of the memory list, unique among current memories (patient_memory_one_current): a page's cursor
CURRENT_KEY = ("memory_type", "attribute", "consent_purpose")


def _compile_current_rows(*, org_id, patient_id, memory_type, consent_purpose, now, after_type=None,
                          after_attribute=None, after_purpose=None) -> tuple[str, list]:
    # Only the organisation of the identity shapes the query; RLS supplies the rest at run time.
    compiler_identity = Identity(org_id=org_id, actor_sub="query-compiler")
    qs = memory_list_current(identity=compiler_identity, patient_id=patient_id, memory_type=memory_type,
                             consent_purpose=consent_purpose, now=now)
    if after_type is not None:  # the key's row comparison, as the one-current index orders it
        qs = qs.filter(TupleGreaterThan(Tuple(*(F(name) for name in CURRENT_KEY)),
                                        (after_type, after_attribute, after_purpose)))
    qs = qs.values_list(*ITEM_COLUMNS)
    sql, params = qs.query.get_compiler(using=DEFAULT_DB_ALIAS).as_sql()
    return sql, list(params)


_SQL_TEMPLATES: dict[tuple[bool, ...], tuple[str, list]] = {}


def compiled_once(templates: dict, compile_sql, *, org_id, patient_id, now, **optional) -> tuple[str, list]:
    """``compile_sql(org_id=, patient_id=, now=, **optional)``, compiled once per shape (which ``optional`` values
    are given) and kept in ``templates``. ``optional`` values are text, or UUIDs (their stand-ins are UUIDs);
    ``now`` is None for a query that does not depend on the time (a call site always gives it, or never).

    Building and compiling a queryset cost about a third of a hot read's CPU. It is compiled once per shape with a
    unique stand-in for each request value; every parameter is then either a stand-in (replaced by this request's
    value) or a constant of the query (kept). A shape whose parameters cannot be mapped that way is compiled per
    request, as before.
    """
    shape = tuple(v is not None for v in optional.values())
    template = templates.get(shape)
    if template is None:
        tag = uuid.uuid4()
        stand_ins = {"org_id": uuid.uuid4(), "patient_id": uuid.uuid4(),
                     **({"now": datetime(1901, 2, 3, 4, 5, 6, tag.int % 999_999 + 1, tzinfo=UTC)} if now else {}),
                     **{name: uuid.uuid4() if isinstance(v, uuid.UUID) else f"~{name}-{tag}"
                        for name, v in optional.items() if v is not None}}
        sql, params = compile_sql(**{"now": None, **dict.fromkeys(optional), **stand_ins})
        by_value = {repr(v): k for k, v in stand_ins.items()}
        slots = [(True, by_value[repr(p)]) if repr(p) in by_value else (False, p) for p in params]
        if {name for is_slot, name in slots if is_slot} != set(stand_ins):
            return compile_sql(org_id=org_id, patient_id=patient_id, now=now, **optional)
        template = templates.setdefault(shape, (sql, slots))
    values = {"org_id": org_id, "patient_id": patient_id, "now": now, **optional}
    sql, slots = template
    return sql, [values[v] if is_slot else v for is_slot, v in slots]


def _current_rows_sql(*, org_id, patient_id, memory_type, consent_purpose, now, after_type=None,
                      after_attribute=None, after_purpose=None) -> tuple[str, list]:
    """The compiled SQL of memory_list_current(...).values_list(ITEM_COLUMNS), after a key when given, compiled
    once per shape."""
    return compiled_once(_SQL_TEMPLATES, _compile_current_rows, org_id=org_id, patient_id=patient_id, now=now,
                         memory_type=memory_type, consent_purpose=consent_purpose, after_type=after_type,
                         after_attribute=after_attribute, after_purpose=after_purpose)


def utc_iso(text: str) -> str:
    """PostgreSQL's text of a ``timestamptz`` as the API renders it (ISO 8601, UTC as ``Z``, six-digit fractions as
    Python prints them), without building a datetime.

    The service's connections run in UTC (Django sets ``TimeZone``), so the text ends in ``+00``; anything else
    goes the long way round."""
    if len(text) == 29 and text[10] == " " and text[19] == "." and text[26:] == "+00" and text[4] == "-":
        return f"{text[:10]}T{text[11:26]}Z"  # six fraction digits, the usual case: already what Python prints
    if len(text) >= 22 and text.endswith("+00") and text[4] == "-" and text[10] == " ":
        stamp, _, fraction = text[:-3].partition(".")
        return f"{stamp[:10]}T{stamp[11:]}{'.' + fraction.ljust(6, '0') if fraction else ''}Z"
    value = datetime.fromisoformat(text).astimezone(UTC)
    return value.isoformat().replace("+00:00", "Z")


class UtcIsoText(psycopg.adapt.Loader):
    """``timestamptz`` loaded straight as :func:`utc_iso` text: a list of 20 memories has 120 of them."""

    def load(self, data) -> str:
        return utc_iso(str(data, "ascii"))


class RunStatement(Protocol):
    """What runs a hot read that is a transaction of its own (``core.identity.LoneStatement.rows``)."""

    def __call__(self, statement: tuple[str, list], *, setup: Callable[[psycopg.Cursor], None]) -> list: ...


def memory_list_current_rows(*, identity: Identity, patient_id: uuid.UUID, memory_type: str | None = None,
                             consent_purpose: str | None = None, limit: int | None = None,
                             after: tuple[str, str, str] | None = None,
                             audit: tuple[str, list] | None = None, run: RunStatement | None = None) -> list[tuple]:
    """The rows of :func:`memory_list_current` (same queryset, same filters, same order) as plain tuples of
    ``ITEM_COLUMNS``, in one round trip: ``audit`` (an INSERT from :func:`core.audit.insert_statement`) is sent as
    a data-modifying CTE of the read, and commits or rolls back with the block. A page: the rows after ``after``
    (a ``CURRENT_KEY``, unique among current memories), at most ``limit``.

    The hot read of the API: no model instances, and the driver's values as they come (``fact`` is JSON text,
    timestamps are already ISO 8601 text in UTC, ids are their text: building 80 UUID objects only to print them
    again was about a twelfth of the request).
    """
    after_type, after_attribute, after_purpose = after or (None, None, None)
    sql, params = _current_rows_sql(org_id=identity.org_id, patient_id=patient_id, memory_type=memory_type,
                                    consent_purpose=consent_purpose, now=timezone.now(), after_type=after_type,
                                    after_attribute=after_attribute, after_purpose=after_purpose)
    if limit is not None:
        sql, params = f"{sql} LIMIT %s", [*params, limit]
    return read_rows(sql, params, audit=audit, uuid_text=True, run=run)


def read_rows(sql: str, params: list, *, audit: tuple[str, list] | None = None,
              iso_timestamps: bool = True, uuid_text: bool = False, run: RunStatement | None = None) -> list[tuple]:
    """Run a hot read, with ``audit`` (an INSERT from :func:`core.audit.insert_statement`) as a data-modifying CTE
    of the same statement. Timestamps come back as ISO 8601 text in UTC (:class:`UtcIsoText`), or, with
    ``iso_timestamps=False``, as PostgreSQL's own text (:func:`utc_iso` turns it into the former; a search reads
    every current memory and renders a few). ``uuid_text``: ids come back as their canonical text, not UUIDs.
    ``run``: what runs the statement, when it is a transaction of its own (``core.identity.LoneStatement.rows``)."""
    if audit is not None:
        sql = f"WITH audit_row AS ({audit[0]}) {sql}"
        params = audit[1] + params

    def loaders(cursor: psycopg.Cursor) -> None:
        cursor.adapters.register_loader("timestamptz", UtcIsoText if iso_timestamps else TextLoader)
        if uuid_text:
            cursor.adapters.register_loader("uuid", TextLoader)

    if run is not None:
        return run((sql, params), setup=loaders)
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        loaders(cursor.cursor)
        cursor.execute(sql, params)
        return cursor.fetchall()


READ_ROW_CTE = "memory_row"  # the read by id's row, for an audit statement's ``purpose_from``


def _read_row_sql() -> str:
    """One memory by id as ``ITEM_COLUMNS``, then what :func:`memory.models.state_now` needs to know, worked out
    by the database as :meth:`Memory.effective_state` does in Python (the consent joined as ``select_related``
    joins it: one the caller may not see counts as none): past retention; past validity or retention; consent
    no longer live."""
    column = {field.attname: field.column for field in Memory._meta.concrete_fields}
    columns = ", ".join(f"m.{column[name]}" for name in ITEM_COLUMNS)
    return (f"SELECT {columns}, m.expires_at <= %s AS past_retention, "
            "(m.expires_at <= %s OR COALESCE(m.valid_until <= %s, false)) AS past_deadline, "
            "COALESCE(m.consent_record_id IS NOT NULL AND NOT (c.status = 'granted' AND c.revoked_at IS NULL "
            "AND (c.expires_at IS NULL OR c.expires_at > %s)), false) AS consent_lapsed "
            "FROM patient_memory m LEFT OUTER JOIN patient_consent c ON c.consent_record_id = m.consent_record_id "
            "WHERE m.organization_id = %s AND m.patient_id = %s AND m.memory_id = %s")


_READ_ROW_SQL = _read_row_sql()
_FACT, _CIPHERTEXT, _STATE = (ITEM_COLUMNS.index(name) for name in ("fact", "fact_ciphertext", "state"))


def memory_read_row(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID,
                    audit: tuple[str, list] | None = None) -> tuple:
    """:func:`memory_get` as one row of ``ITEM_COLUMNS`` (what ``memory.api.memory_item`` renders), in one round
    trip: the same memory in the same effective state, its value withheld past retention. ``audit``: an INSERT
    from :func:`core.audit.insert_statement` with ``purpose_from`` a column of ``READ_ROW_CTE``, written in the
    same statement when the memory is there. NotFound otherwise (RLS hides another patient's memory)."""
    now = timezone.now()
    sql, params = _READ_ROW_SQL, [now, now, now, now, identity.org_id, patient_id, memory_id]
    if audit is not None:
        sql = f"WITH {READ_ROW_CTE} AS ({sql}), audit_row AS ({audit[0]}) SELECT * FROM {READ_ROW_CTE}"
        params = params + audit[1]
    rows = read_rows(sql, params, uuid_text=True)
    if not rows:
        raise NotFound()
    *row, past_retention, past_deadline, consent_lapsed = rows[0]
    row[_STATE] = state_now(row[_STATE], past_deadline=past_deadline, consent_lapsed=consent_lapsed)
    if row[_STATE] != MemoryState.DELETED and past_retention:
        row[_FACT] = row[_CIPHERTEXT] = None  # as Memory.as_of_now: the sweep is about to erase it
    return tuple(row)


# --- reads a page shows, each audited as the one read it is ------------------------------------------------------
@dataclass(frozen=True)
class MemoryOverview:
    current: list[Memory]
    quarantined: list[Memory]
    proposed: list[Memory]  # empty unless asked for


def memory_overview(*, identity: Identity, patient_id: uuid.UUID, with_proposed: bool = False,
                    purpose: str | None = None) -> MemoryOverview:
    """A patient's current memories and those set aside as doubtful (and, ``with_proposed``, the suggestions
    waiting for them), as a page shows them together: audited as one ``memory.list``, for ``purpose`` when the page
    reads for one, and then only those kept for it."""
    def kept_for_purpose(memories: list[Memory]) -> list[Memory]:
        return [m for m in memories if purpose is None or m.consent_purpose == purpose]

    overview = MemoryOverview(
        current=list(memory_list_current(identity=identity, patient_id=patient_id, consent_purpose=purpose)),
        quarantined=kept_for_purpose(memory_list_quarantined(identity=identity, patient_id=patient_id)),
        proposed=kept_for_purpose(memory_list_proposed(identity=identity, patient_id=patient_id)
                                  if with_proposed else []))
    audit.record(action="memory.list", resource_type="memory", patient_id=patient_id, purpose=purpose)
    return overview


def deletion_receipts_audited(*, identity: Identity, patient_id: uuid.UUID, limit: int,
                              cursor: str | None = None) -> tuple[list[dict], str | None]:
    """A page of :func:`deletion_receipt_page`, read to be shown: audited as ``memory.deletions``, ``denied`` when
    the caller may not see the patient (the page is then empty). ValueError, nothing audited, for a cursor it did
    not give."""
    page = deletion_receipt_page(identity=identity, patient_id=patient_id, limit=limit, cursor=cursor)
    audit.record(action="memory.deletions", resource_type="memory_deletion", patient_id=patient_id,
                 outcome_by_access=True)
    return page


def deletion_receipt_audited(*, identity: Identity, patient_id: uuid.UUID, deletion_id: uuid.UUID) -> dict | None:
    """One of the patient's receipts, read to be shown: audited as ``memory.deletions`` naming it. None (nothing
    read or audited) when there is no such completed receipt the caller may see."""
    found = _completed_deletions(identity, patient_id).filter(deletion_id=deletion_id).first()
    if found is None:
        return None
    audit.record(action="memory.deletions", resource_type="memory_deletion", resource_id=deletion_id,
                 patient_id=patient_id)
    return found.receipt


def memory_proposal_waiting(*, identity: Identity, patient_id: uuid.UUID, new, source: str,
                            consent_record_id: uuid.UUID) -> Memory | None:
    """This proposer's proposal of ``new``'s value (a ``memory.services.NewFact``) still waiting for review (past
    its validity or retention it is no longer one), if any. The caller holds the attribute's lock."""
    candidates = Memory.objects.filter(
        organization_id=identity.org_id, patient_id=patient_id, memory_type=new.memory_type,
        attribute=new.attribute, consent_purpose=new.consent_purpose, consent_record_id=consent_record_id,
        state=MemoryState.PROPOSED, source=source, created_by=identity.actor_sub,
        agent_client_id=identity.agent_client_id,
    ).order_by("created_at")
    # values are compared as the type normalised them (decrypted where the type is encrypted)
    return next((m for m in candidates if m.effective_state(consent=False) == MemoryState.PROPOSED
                 and memory_value(m) == new.fact), None)
