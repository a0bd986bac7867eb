"""Writes of conversations: start, append a turn, search offers (a tool turn), propose long-term preferences, end,
and the sweep. Each validates, writes, audits (never content) and logs counts only.

Lock order: the session row, then its turns. Appending takes the session row lock, so concurrent turns on one
session are serialised and each gets the next sequence number; none is lost or reordered. Calls to the scheduling
system happen before any lock is taken.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta

import psycopg
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from consent.access import may_access
from consent.models import ConsentRecord
from consent.purpose import require_purpose
from conversations import scheduling
from conversations.context import message_tokens, redactor, render_message
from conversations.errors import (
    ClarificationNeeded,
    SessionAlreadyEnded,
    SessionExpired,
    SlotsIncomplete,
    TooManySessions,
    TurnLimitReached,
)
from conversations.models import ENDED_STATUSES, ConversationSession, ConversationTurn, SessionStatus, TurnRole
from conversations.parsing import REMARK_POLICY, memory_facts, parse_turn, this_booking_only
from conversations.selectors import (
    SCHEDULING_PREFERENCE,
    check_live,
    session_get_live,
    standing_preferences,
)
from conversations.slots import (
    OFFER_TOOL,
    apply_turn,
    empty_state,
    offer_constraints,
    offers_well_formed,
    slot_matches,
    source_id,
)
from conversations.summaries import TurnView, dumps
from core import audit, maintenance
from core.errors import ConcurrentUpdate, NoConsentOrAccess, NotFound, ValidationFailed
from core.identity import Identity, identity_context
from core.patient_identifiers import identifier_values
from core.serializers import text_problem, visible
from core.services import organization_ensure
from memory.erasure import ErasureSection, erasure_hold
from memory.lifecycle import memory_value
from memory.models import Memory, MemoryState
from memory.selectors import memory_current_since, memory_list_current
from memory.services import memory_propose
from memory.types import builtin_latest, validate_fact

log = logging.getLogger("anamnesis.conversations")

MAX_LIVE_SESSIONS_PER_PATIENT = 10
MAX_OFFERS = 10


def _lock(identity: Identity, session_id: uuid.UUID) -> ConversationSession:
    session = (ConversationSession.objects.select_for_update()
               .filter(session_id=session_id, organization_id=identity.org_id).first())
    if session is None:
        raise NotFound()
    return session


def _agent_may_go_on(identity: Identity, session: ConversationSession) -> None:
    """An agent works in a conversation only while the patient's consent for its purpose is in force, the purpose
    rule its reads of the session meet (``consent.purpose.require_purpose``): once the patient withdrew it, a turn
    or an offer search, whose answers show the session's slots and flags, is 403 ``purpose_not_permitted`` as
    reading the session is. The patient in person is never refused; staff reach the session only with a grant
    for its purpose (row-level security)."""
    if identity.is_agent:
        require_purpose(identity, patient_id=session.patient_id, purpose=session.purpose)


# --- start ------------------------------------------------------------------------------------------------------

def session_start(*, identity: Identity, patient_id: uuid.UUID, purpose: str) -> ConversationSession:
    """Open a conversation for one patient and one purpose. The caller must be the patient, or staff with a grant
    for exactly this purpose (the same rule as RLS); an agent in the patient's context, the patient's consent in
    force for it (the purpose rule). Expires after ``CONVERSATION_IDLE_SECONDS`` of inactivity and
    at the latest ``CONVERSATION_ABSOLUTE_SECONDS`` after it started."""
    if not may_access(patient_id=patient_id, purpose=purpose):
        raise NoConsentOrAccess().about(patient_id=patient_id, purpose=purpose)
    if identity.is_agent:  # as for its turns (_agent_may_go_on): only under the patient's consent for the purpose
        require_purpose(identity, patient_id=patient_id, purpose=purpose)
    organization_ensure(identity=identity)
    now = timezone.now()
    with transaction.atomic():
        # an erase-all of the patient's running meanwhile, past its sessions, used to miss the one started here
        erasure_hold(identity, patient_id, shared=True)
        with connection.cursor() as cursor:  # serialise starts per patient and purpose, so the cap holds
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                           [f"conversation:{identity.org_id}:{patient_id}:{purpose}"])
        live = ConversationSession.objects.for_patient(identity.org_id, patient_id).filter(purpose=purpose).live(now)
        if live.count() >= MAX_LIVE_SESSIONS_PER_PATIENT:
            raise TooManySessions().about(patient_id=patient_id, purpose=purpose)
        idle = timedelta(seconds=settings.CONVERSATION_IDLE_SECONDS)
        absolute = now + timedelta(seconds=settings.CONVERSATION_ABSOLUTE_SECONDS)
        session = ConversationSession.objects.create(
            organization_id=identity.org_id, patient_id=patient_id, purpose=purpose, created_by=identity.actor_sub,
            agent_client_id=identity.agent_client_id,
            created_at=now, last_activity_at=now, idle_timeout=idle, absolute_expires_at=absolute,
            expires_at=min(now + idle, absolute), slots=empty_state(), care_team_flags=[])
    audit.record(action="conversation.start", resource_type="conversation_session", resource_id=session.session_id,
                 patient_id=patient_id, purpose=purpose)
    log.info("conversation started: idle_seconds=%d absolute_seconds=%d", settings.CONVERSATION_IDLE_SECONDS,
             settings.CONVERSATION_ABSOLUTE_SECONDS)
    return session


# --- turns ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TurnAppended:
    turn: ConversationTurn
    session: ConversationSession
    new_flags: list[dict]


def _check_turn(role: str, content: str, tool_name: str | None, tool_result) -> None:
    if role not in TurnRole.values:
        raise ValidationFailed.of("role", f"one of {', '.join(TurnRole.values)}")
    if len(content) > settings.CONVERSATION_MAX_CONTENT_CHARS:
        raise ValidationFailed.of("content", f"at most {settings.CONVERSATION_MAX_CONTENT_CHARS} characters",
                                  "too_long")
    if (problem := text_problem(content)) is not None:
        # what the model and a summary read must be what was stored: no escape sequences, bells or text turned
        # around by a direction override (tab and line breaks are text)
        raise ValidationFailed.of("content", problem, "unstorable_character")
    if role != TurnRole.TOOL and not visible(content):  # white space, zero-width and control characters say nothing
        raise ValidationFailed.of("content", "required", "required")
    if role == TurnRole.TOOL and not tool_name:
        raise ValidationFailed.of("tool_name", "a tool turn names its tool", "required")
    if role != TurnRole.TOOL and (tool_name or tool_result is not None):
        raise ValidationFailed.of("tool_name", "only tool turns carry a tool name and result")
    if tool_result is not None:
        if not isinstance(tool_result, dict):
            raise ValidationFailed.of("tool_result", "must be an object")
        # the model context and the summaries quote a tool's strings as they do turns: the same characters refused
        if (problem := next(filter(None, map(text_problem, _strings(tool_result))), None)) is not None:
            raise ValidationFailed.of("tool_result", problem, "unstorable_character")
        if len(dumps(tool_result).encode()) > settings.CONVERSATION_MAX_TOOL_RESULT_BYTES:
            raise ValidationFailed.of("tool_result",
                                      f"at most {settings.CONVERSATION_MAX_TOOL_RESULT_BYTES} bytes as JSON",
                                      "too_long")
        if tool_name == OFFER_TOOL:
            if not offers_well_formed(tool_result):
                # later turns pick from these offers and the summary quotes them: a malformed one would break both
                raise ValidationFailed.of("tool_result.offers", "a list of offers, each an object with a slot_id "
                                          "(text, at most 128 characters) and, when given, a day, an HH:MM time "
                                          "and a start (at most 64 characters)")
            if len(tool_result["offers"]) > MAX_OFFERS:
                # as many as the service's own slot search offers: every context carries the latest offers whole,
                # so a longer list left no room for the conversation at the default budget
                raise ValidationFailed.of("tool_result.offers", f"at most {MAX_OFFERS} offers", "too_long")


def turn_append(*, identity: Identity, session_id: uuid.UUID, role: str, content: str,
                tool_name: str | None = None, tool_result: dict | None = None,
                expected_turn_count: int | None = None) -> TurnAppended:
    """Append one turn with the next sequence number and update the slots from it (every user turn, the first
    one included). Clinical remarks in a user turn are flagged for the care team, never stored as memory.
    ``expected_turn_count`` refuses the append (409) when other turns arrived since the caller read the session."""
    _check_turn(role, content, tool_name, tool_result)
    parsed = parse_turn(content).as_dict() if role == TurnRole.USER else None
    try:
        with transaction.atomic():
            session = _lock(identity, session_id)
            now = timezone.now()
            check_live(session, now)
            _agent_may_go_on(identity, session)
            if expected_turn_count is not None and session.turn_count != expected_turn_count:
                raise ConcurrentUpdate()
            if session.turn_count >= settings.CONVERSATION_MAX_TURNS:
                raise TurnLimitReached().about(patient_id=session.patient_id, purpose=session.purpose)
            seq = session.turn_count + 1
            view = TurnView(seq=seq, role=role, content=content, tool_name=tool_name, tool_result=tool_result,
                            parsed=parsed)
            redact = redactor(session.patient_id,
                              also=identifier_values(session.organization_id, session.patient_id))
            tokens = message_tokens(render_message(view, redact))
            turn = ConversationTurn.objects.create(
                session=session, organization_id=session.organization_id, patient_id=session.patient_id,
                purpose=session.purpose, seq=seq, role=role, content=content, tool_name=tool_name,
                tool_result=tool_result, parsed=parsed, token_count=tokens, created_by=identity.actor_sub,
                agent_client_id=identity.agent_client_id,
                created_at=now)
            slots = apply_turn(session.slots, seq=seq, role=role, parsed=parsed, tool_name=tool_name,
                               tool_result=tool_result)
            # One flag per category and session: the care team is told once, the context stays bounded.
            seen = {f["category"] for f in session.care_team_flags}
            new_flags = [{"category": r["category"], "urgent": r["urgent"], "source_id": source_id(seq),
                          "policy": REMARK_POLICY, "flagged_at": now.isoformat()}
                         for r in (parsed or {}).get("remarks", ()) if r["category"] not in seen]
            ConversationSession.objects.filter(pk=session.pk).update(
                turn_count=seq, last_activity_at=now, slots=slots,
                care_team_flags=[*session.care_team_flags, *new_flags])
            session.refresh_from_db()
    except IntegrityError as exc:
        # The trigger refused: the session expired by the database's clock. A sequence cannot collide under the
        # lock; if it ever did, the caller retries.
        if isinstance(exc.__cause__, psycopg.errors.CheckViolation):
            raise SessionExpired() from None
        raise ConcurrentUpdate() from None
    audit.record(action="conversation.turn", resource_type="conversation_session", resource_id=session_id,
                 patient_id=session.patient_id, purpose=session.purpose, reason=role)
    for flag in new_flags:
        # Routed to the care team per policy: the audit row says that a flag was raised, not what was said.
        audit.record(action="conversation.care_team_flag", resource_type="conversation_session",
                     resource_id=session_id, patient_id=session.patient_id, purpose=session.purpose,
                     reason="urgent_clinical_remark" if flag["urgent"] else "clinical_remark")
    log.info("conversation turn: seq=%d role=%s chars=%d tokens=%d flags=%d", seq, role, len(content), tokens,
             len(new_flags))
    return TurnAppended(turn=turn, session=session, new_flags=new_flags)


# --- offers -----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Offers:
    offers: list[dict]
    considered: int
    constraints: dict
    appended: TurnAppended


def offers_search(*, identity: Identity, session_id: uuid.UUID) -> Offers:
    """Search the scheduling system for slots matching this conversation's slots and the patient's long-term
    scheduling preferences, and record the result as a tool turn (a tool result, cleared when the session ends).
    Refuses (409) while the intent or appointment is unknown or a stated time awaits its clarifying question."""
    session = session_get_live(identity=identity, session_id=session_id)
    _agent_may_go_on(identity, session)  # before the slots are looked at or sent to the scheduling system
    state = session.slots
    missing = [{"field": f"slots.{key}", "message": "not stated in the conversation yet", "code": "missing"}
               for key in ("intent", "specialty") if not state.get(key)]
    if state.get("intent") == "cancel":
        missing.append({"field": "slots.intent", "message": "a cancellation needs no slot search",
                        "code": "not_a_booking"})
    if missing:
        raise SlotsIncomplete(errors=missing).about(patient_id=session.patient_id, purpose=session.purpose)
    if state.get("pending_clarifications"):
        raise ClarificationNeeded(errors=[{"field": "slots.pending_clarifications", "message": p["question"],
                                           "code": p["code"]} for p in state["pending_clarifications"]]).about(
            patient_id=session.patient_id, purpose=session.purpose)
    standing = standing_preferences(identity=identity, session=session, reason="conversation_offers")
    constraints = offer_constraints(state, standing)
    available = scheduling.search_slots(specialty=state["specialty"], visit_type=state.get("visit_type"))
    offers = [slot for slot in available if slot_matches(slot, constraints)][:MAX_OFFERS]
    content = ("Matching slots: " + "; ".join(f"{o['slot_id']} {o['day'].title()} {o['time']}" for o in offers)
               if offers else "No slot matches the stated constraints.")
    appended = turn_append(identity=identity, session_id=session_id, role=TurnRole.TOOL, content=content,
                           tool_name=OFFER_TOOL, tool_result={"offers": offers, "considered": len(available)},
                           expected_turn_count=session.turn_count)
    audit.record(action="conversation.offers", resource_type="conversation_session", resource_id=session_id,
                 patient_id=session.patient_id, purpose=session.purpose)
    log.info("conversation offers: considered=%d offered=%d", len(available), len(offers))
    return Offers(offers=offers, considered=len(available), constraints=constraints, appended=appended)


# --- long-term proposals ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Proposals:
    proposed: list[Memory]
    skipped: list[dict]


def preferences_propose(*, identity: Identity, session_id: uuid.UUID, seq: int) -> Proposals:
    """Propose the durable scheduling preferences a patient stated in one turn (earliest/latest time, excluded days
    and periods) as long-term memories, through the lifecycle's ``proposed`` path: only with the patient's active
    consent for the session's purpose, with provenance pointing at the turn, and used by nobody until the patient
    or staff confirm them. Idempotent per turn and attribute. Clinical remarks are never proposed."""
    session = session_get_live(identity=identity, session_id=session_id)
    turn = ConversationTurn.objects.filter(session_id=session.session_id, seq=seq).first()
    if turn is None:
        raise NotFound()
    if turn.role != TurnRole.USER:
        raise ValidationFailed("only what the patient said can be proposed", code="not_a_patient_statement")
    if session.purpose not in builtin_latest()[SCHEDULING_PREFERENCE].purposes:
        raise ValidationFailed("this purpose keeps no scheduling preferences", code="purpose_not_supported")
    consent = ConsentRecord.objects.active().filter(organization_id=identity.org_id, patient_id=session.patient_id,
                                                    purpose=session.purpose).first()
    if consent is None:
        raise NoConsentOrAccess("the patient's active consent is needed to keep preferences",
                                code="no_active_consent_or_access").about(
            patient_id=session.patient_id, purpose=session.purpose)
    source_ref = f"conversation:{session.session_id}:turn:{seq}"
    current_rows = {m.attribute: m for m in memory_list_current(
        identity=identity, patient_id=session.patient_id, memory_type=SCHEDULING_PREFERENCE,
        consent_purpose=session.purpose)}
    current: dict[str, dict] = {attribute: memory_value(m) or {} for attribute, m in current_rows.items()}
    parsed = turn.parsed or {}
    skipped = [{"kind": c.get("kind") or "time", "reason": "needs_clarification"}
               for c in parsed.get("clarifications", ())
               if c.get("code") not in ("relative_day", "day_period_scope")]  # no durable kind
    if parsed.get("excluded_day_periods"):
        # the long-term type keeps whole days and whole parts of the day: "not Monday morning" kept as either would
        # refuse every Monday or every morning for good, so it stays this conversation's
        skipped.append({"kind": "excluded_day_periods", "reason": "not_kept_long_term"})
    # "I can't make Tuesday" is about this booking: kept as a standing preference it would refuse every Tuesday
    skipped.extend({"kind": kind, "reason": "not_kept_long_term"} for kind in this_booking_only(parsed))
    proposed: list[Memory] = []
    for fact in memory_facts(parsed):
        kind = fact["kind"]
        if kind in ("excluded_days", "excluded_periods") and current.get(kind):
            field = "days" if kind == "excluded_days" else "periods"
            fact = {**fact, field: sorted(set(fact[field]) | set(current[kind][field]))}  # add, never drop
        attribute, normalised = validate_fact(SCHEDULING_PREFERENCE, fact)
        with connection.cursor() as cursor:  # the same turn proposed concurrently: one proposal per attribute
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                           [f"proposal:{identity.org_id}:{session.patient_id}:{source_ref}:{attribute}"])
        if current.get(attribute) == normalised:
            skipped.append({"kind": kind, "reason": "already_current"})
            continue
        pending = Memory.objects.filter(organization_id=identity.org_id, patient_id=session.patient_id,
                                        memory_type=SCHEDULING_PREFERENCE, attribute=attribute,
                                        state=MemoryState.PROPOSED)
        # this turn's proposal, or the same value still waiting from another turn or conversation: the patient
        # reviews each suggestion once (fact is never encrypted for this type: it is compared as stored); one past its
        # validity, or that lapsed unreviewed, waits no more
        now = timezone.now()
        waiting = pending.filter(Q(source_ref=source_ref) | Q(fact=normalised, consent_purpose=session.purpose)
                                 ).pending_proposals(now).values_list("created_at", flat=True)
        # one made before the current value became current cannot be confirmed (proposal_stale): not the same one
        if any(memory_current_since(made, [current_rows[attribute]] if attribute in current_rows else [], now) is None
               for made in waiting):
            skipped.append({"kind": kind, "reason": "already_proposed"})
            continue
        memory, created = memory_propose(
            identity=identity, patient_id=session.patient_id, memory_type=SCHEDULING_PREFERENCE,
            fact=normalised, consent_purpose=session.purpose,
            consent_record_id=consent.consent_record_id, source_ref=source_ref, extracted=True)
        if created:
            proposed.append(memory)
        else:  # the same caller's identical proposal, made from another turn meanwhile
            skipped.append({"kind": kind, "reason": "already_proposed"})
    audit.record(action="conversation.propose", resource_type="conversation_session", resource_id=session_id,
                 patient_id=session.patient_id, purpose=session.purpose)
    log.info("conversation proposals: proposed=%d skipped=%d", len(proposed), len(skipped))
    return Proposals(proposed=proposed, skipped=skipped)


# --- end and cleanup ----------------------------------------------------------------------------------------------

def _clear_tool_results(session: ConversationSession) -> int:
    return (ConversationTurn.objects.filter(session_id=session.session_id, role=TurnRole.TOOL)
            .exclude(tool_result__isnull=True, content="").update(tool_result=None, content=""))


def session_end(*, identity: Identity, session_id: uuid.UUID, outcome: str) -> ConversationSession:
    """End a conversation as ``completed`` or ``abandoned``: slots, cached summary and tool results are cleared at
    once; the turns stay readable by nobody through the API and are removed by the sweep after
    ``CONVERSATION_ENDED_RETENTION_SECONDS``. Ending again with the same outcome is a no-op."""
    if outcome not in ENDED_STATUSES:
        raise ValidationFailed.of("outcome", "completed or abandoned")
    with transaction.atomic():
        session = _lock(identity, session_id)
        if session.status in ENDED_STATUSES:
            if session.status == outcome:
                return session
            raise SessionAlreadyEnded().about(patient_id=session.patient_id, purpose=session.purpose)
        now = timezone.now()
        if session.expires_at <= now:
            raise SessionExpired().about(patient_id=session.patient_id, purpose=session.purpose)
        cleared = _clear_tool_results(session)
        ConversationSession.objects.filter(pk=session.pk).update(
            status=outcome, ended_at=now,
            retain_until=now + timedelta(seconds=settings.CONVERSATION_ENDED_RETENTION_SECONDS),
            slots={}, summary_cache=None)
        session.refresh_from_db()
    audit.record(action="conversation.end", resource_type="conversation_session", resource_id=session_id,
                 patient_id=session.patient_id, purpose=session.purpose, reason=outcome)
    log.info("conversation ended: outcome=%s turns=%d tool_results_cleared=%d", outcome, session.turn_count, cleared)
    return session


def session_summary_store(*, identity: Identity, session_id: uuid.UUID, cache: dict) -> None:
    """Keep an accepted LLM summary of the older turns, so the next context does not ask for it again."""
    ConversationSession.objects.filter(session_id=session_id, organization_id=identity.org_id,
                                       status=SessionStatus.ACTIVE).update(summary_cache=cache)


SWEEP_ACTOR = "session-sweep"


def _due(batch: int) -> list[tuple]:
    """Discover due sessions across organisations through the narrow maintenance policy (SELECT only)."""
    return maintenance.discover(
        "session_sweep",
        "SELECT session_id, organization_id, patient_id, purpose, status FROM conversation_session "
        "WHERE conversation_session_due(status, expires_at, retain_until) "
        "ORDER BY COALESCE(retain_until, expires_at) LIMIT %s", [batch])


def session_sweep(*, batch: int = 500, max_batches: int = 100) -> dict[str, int]:
    """Remove expired sessions and ended ones past their retention, with their turns (slots and tool results go
    with them). Idempotent; safe to run from cron or several workers at once: each session is locked and removed
    under a service identity scoped to its patient and purpose, and the database lets only due rows be deleted.
    Reads never depend on it: expiry is checked at query time."""
    counts = {"sessions": 0, "turns": 0}
    for _ in range(max_batches):
        due = _due(batch)
        if not due:
            break
        progressed = False
        for session_id, org_id, patient_id, purpose, status in due:
            identity = Identity.service(org_id=org_id, name=SWEEP_ACTOR, patient_id=patient_id, purpose=purpose)
            with identity_context(identity):
                session = (ConversationSession.objects.select_for_update(skip_locked=True)
                           .filter(session_id=session_id).first())
                if session is None:
                    continue
                turns, _ = ConversationTurn.objects.filter(session_id=session_id).delete()
                removed, _ = ConversationSession.objects.filter(session_id=session_id).delete()
                if not removed:
                    continue  # not due by the database's clock after all: the policy kept it
                counts["sessions"] += 1
                counts["turns"] += turns
                progressed = True
                audit.record(action="conversation.purge", resource_type="conversation_session",
                             resource_id=session_id, patient_id=patient_id, purpose=purpose,
                             reason="expired" if status == SessionStatus.ACTIVE else "ended_retention")
        if not progressed:
            break
    log.info("conversation sweep: sessions=%d turns=%d", counts["sessions"], counts["turns"])
    return counts




# --- deleting one memory --------------------------------------------------------------------------------------

def _strings(value) -> list[str]:
    """Every string of a JSON value, keys included."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _id_spellings(needles: list[str]) -> list[str]:
    """A memory's id as a tool may hold it without hyphens (``uuid.hex``)."""
    spellings = []
    for needle in needles:
        try:
            spellings.append(uuid.UUID(needle).hex)
        except ValueError:
            continue
    return spellings


def session_forget_memory(*, identity: Identity, patient_id: uuid.UUID, needles: list[str]) -> ErasureSection:
    """Deleting one memory reaches the copies an agent put into a conversation: the tool results of the patient's
    sessions (those the caller may access) that hold any of ``needles`` (the memory's id, text or distinctive
    values, case-insensitive) are cleared, as ending a session clears them, and the cached summary of their
    session goes too. What the patient or the assistant said stays: it is the conversation, not a copy."""
    section = ErasureSection(kind="conversation_tool_results",
                             note="tool results holding the deleted memory cleared; the session's summary is made anew")
    wanted = [n.casefold() for n in (*needles, *_id_spellings(needles)) if n]
    turns = (ConversationTurn.objects.select_for_update()
             .filter(organization_id=identity.org_id, patient_id=patient_id, role=TurnRole.TOOL)
             .exclude(tool_result__isnull=True, content="").order_by("session_id", "seq"))
    hit: dict[uuid.UUID, list[int]] = {}
    for turn in turns:
        # the strings as they are too: as JSON, a value with a quote, a backslash or a line break is escaped
        held = "\n".join([json.dumps(turn.tool_result, ensure_ascii=False), *_strings(turn.tool_result),
                          turn.content]).casefold()
        if any(n in held for n in wanted):
            hit.setdefault(turn.session_id, []).append(turn.seq)
    for session_id, seqs in hit.items():
        ConversationTurn.objects.filter(session_id=session_id, seq__in=seqs).update(tool_result=None, content="")
        ConversationSession.objects.filter(session_id=session_id).update(summary_cache=None)
        section.erased.append({"session_id": str(session_id), "turns": seqs})
    return section


# --- erase-all ------------------------------------------------------------------------------------------------

def session_erase_patient(*, identity: Identity, patient_id: uuid.UUID) -> ErasureSection:
    """Erase-all's reach into short-term context: every session of the patient the caller may access, live or
    ended, is removed with its turns (slots, summaries and tool results go with them) in the caller's transaction.
    The database allows these deletes only while ``app.erasure_patient`` names this patient (migration
    ``0004_conversation_erasure``)."""
    section = ErasureSection(kind="conversation_sessions",
                             note="sessions ended and removed with their turns, slots, summaries and tool results")
    sessions = list(ConversationSession.objects.select_for_update()
                    .filter(organization_id=identity.org_id, patient_id=patient_id).order_by("session_id"))
    if not sessions:
        return section
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('app.erasure_patient', %s, true)", [str(patient_id)])
    try:
        for session in sessions:
            turns, _ = ConversationTurn.objects.filter(session_id=session.session_id).delete()
            removed, _ = ConversationSession.objects.filter(session_id=session.session_id).delete()
            if not removed:
                raise RuntimeError("a conversation session could not be erased")
            was_live = session.status == SessionStatus.ACTIVE and session.expires_at > timezone.now()
            section.erased.append({"session_id": str(session.session_id), "purpose": session.purpose,
                                   "was_live": was_live, "turns": turns})
            audit.record(action="conversation.erase", resource_type="conversation_session",
                         resource_id=session.session_id, patient_id=patient_id, purpose=session.purpose,
                         reason="patient_erasure")
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('app.erasure_patient', '', true)")
    log.info("conversation erasure: sessions=%d", len(section.erased))
    return section
