"""Reads of conversations. Expiry is decided at query time: an expired session is refused whether or not the sweep
has removed it yet. The organisation filter repeats what RLS enforces, so plans use the index and errors are
clear ("not found" for missing and for not-yours alike)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime

from django.db.models import BooleanField, ExpressionWrapper, Q
from django.utils import timezone

from consent.purpose import permits
from conversations.context import BuiltContext, build_context
from conversations.errors import SessionEnded, SessionExpired
from conversations.models import ConversationSession, ConversationTurn, SessionStatus
from conversations.summaries import TurnView
from core import audit
from core.cursors import cursor_position, position_cursor
from core.errors import NotFound
from core.identity import Identity
from core.patient_identifiers import identifier_values
from memory.lifecycle import memory_value
from memory.selectors import memory_list_current
from memory.types import builtin_latest

SCHEDULING_PREFERENCE = "scheduling_preference"


def session_get(*, identity: Identity, session_id: uuid.UUID) -> ConversationSession:
    """A session the caller may see, in any state, or NotFound."""
    session = ConversationSession.objects.filter(session_id=session_id, organization_id=identity.org_id).first()
    if session is None:
        raise NotFound()
    return session


def session_patient_id(*, identity: Identity, session_id: uuid.UUID) -> uuid.UUID | None:
    """The patient of a session the caller may see (None if they may not)."""
    return (ConversationSession.objects.filter(session_id=session_id, organization_id=identity.org_id)
            .values_list("patient_id", flat=True).first())


def session_release_scope(*, identity: Identity, session_id: uuid.UUID) -> tuple[uuid.UUID, str] | None:
    """The patient and purpose of a session a context pack may be released into: one the caller sees that is still
    live (active, not expired), and, to an agent, one that agent holds (another agent's conversation is not where
    its pack goes). None otherwise, whatever the reason."""
    scope = ConversationSession.objects.filter(session_id=session_id, organization_id=identity.org_id).live(
        timezone.now())
    if identity.is_agent:
        scope = scope.filter(agent_client_id=identity.agent_client_id)
    return scope.values_list("patient_id", "purpose").first()


def session_is_live(*, identity: Identity, session_id: uuid.UUID) -> bool:
    """Whether a session the caller may see is still served to them: active and not expired (by the clock, swept
    or not), and, to an agent, only while the patient's consent for its purpose is in force (which may have run out
    since, withdrawing nothing when it did)."""
    scope = ConversationSession.objects.filter(session_id=session_id, organization_id=identity.org_id).live(
        timezone.now()).values_list("patient_id", "purpose").first()
    return scope is not None and (not identity.is_agent or permits(identity, patient_id=scope[0], purpose=scope[1]))


def check_live(session: ConversationSession, now=None) -> None:
    """Raise when the session may no longer be used: ended (410 session_ended) or expired (410 session_expired)."""
    if session.status != SessionStatus.ACTIVE:
        raise SessionEnded().about(patient_id=session.patient_id, purpose=session.purpose)
    if session.expires_at <= (now or timezone.now()):
        raise SessionExpired().about(patient_id=session.patient_id, purpose=session.purpose)


def session_get_live(*, identity: Identity, session_id: uuid.UUID) -> ConversationSession:
    session = session_get(identity=identity, session_id=session_id)
    check_live(session)
    return session


def turn_views(*, session: ConversationSession) -> list[TurnView]:
    rows = (ConversationTurn.objects.filter(session_id=session.session_id, organization_id=session.organization_id)
            .order_by("seq")
            .values_list("seq", "role", "content", "tool_name", "tool_result", "parsed", "token_count"))
    return [TurnView(*row) for row in rows]


def standing_preferences(*, identity: Identity, session: ConversationSession, reason: str) -> list[dict]:
    """The patient's current long-term scheduling preferences, read under the caller's identity (RLS, consent,
    validity), audited as a memory read. Empty for purposes that keep no scheduling preferences."""
    if session.purpose not in builtin_latest()[SCHEDULING_PREFERENCE].purposes:
        return []
    memories = list(memory_list_current(identity=identity, patient_id=session.patient_id,
                                        memory_type=SCHEDULING_PREFERENCE, consent_purpose=session.purpose))
    audit.record(action="memory.list", resource_type="memory", patient_id=session.patient_id,
                 purpose=session.purpose, reason=reason)
    out = []
    for memory in memories:
        fact = memory_value(memory)
        if fact is not None:
            out.append({**fact, "memory_id": str(memory.memory_id)})
    return out


def session_context(*, identity: Identity, session_id: uuid.UUID, max_tokens: int,
                    turns: Sequence[TurnView] | None = None,
                    check: Callable[[ConversationSession], None] | None = None,
                    ) -> tuple[ConversationSession, BuiltContext]:
    """The model context of a live session within ``max_tokens`` (see conversations.context). ``check`` sees the
    session first and may refuse the read: then nothing else is read, and no turn goes to the summariser."""
    session = session_get_live(identity=identity, session_id=session_id)
    if check is not None:
        check(session)
    standing = standing_preferences(identity=identity, session=session, reason="conversation_context")
    built = build_context(purpose=session.purpose, patient_id=session.patient_id, slots=session.slots,
                          care_team_flags=session.care_team_flags, standing=standing,
                          turns=turns if turns is not None else turn_views(session=session), max_tokens=max_tokens,
                          summary_cache=session.summary_cache,
                          identifiers=identifier_values(session.organization_id, session.patient_id))
    audit.record(action="conversation.context", resource_type="conversation_session", resource_id=session_id,
                 patient_id=session.patient_id, purpose=session.purpose)
    return session, built


def care_team_flags(*, identity: Identity, patient_id: uuid.UUID, limit: int = 100, cursor: str | None = None,
                    purpose: str | None = None) -> tuple[list[dict], str | None]:
    """Clinical remarks the patient's conversations routed to the care team, for the staff who may see those
    conversations (row-level security: a grant for the session's purpose): the category, whether it is urgent,
    the turn that raised it and when; never what was said. Audited as a read of the patient's conversations.
    Flags live with their session: an ended session keeps them (``session_status`` says it ended) until the sweep
    removes the session, so an urgent flag raised just before the end is still seen; the audit trail keeps that one
    was raised. ``purpose``: the purpose of use the read names; only conversations held for it.

    A page at a time: every flag of ``limit`` flagged sessions, the sessions holding an urgent flag first, then
    newest first (within the page, urgent flags first, then newest), and the cursor of the next page (None on the
    last; ValueError for a cursor it did not give). The first 100 sessions were all there was. An agent naming no
    purpose reads the flags of the purposes the patient's consent is in force for."""
    sessions = ConversationSession.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
    if purpose is not None:
        sessions = sessions.filter(purpose=purpose)
    elif identity.is_agent:
        # an agent reads a conversation only for a purpose the patient's consent is in force for (the purpose rule of
        # its reads of the session): flags of the others are not its to read, as the session itself is not
        held = set(sessions.exclude(care_team_flags=[]).values_list("purpose", flat=True).distinct())
        sessions = sessions.filter(purpose__in=[p for p in sorted(held)
                                                if permits(identity, patient_id=patient_id, purpose=p)])
    urgent = ExpressionWrapper(Q(care_team_flags__contains=[{"urgent": True}]), output_field=BooleanField())
    sessions = sessions.exclude(care_team_flags=[]).annotate(has_urgent=urgent)
    if cursor:
        after_urgent, when, ident = _flags_position(cursor)
        after = Q(created_at__lt=when) | Q(created_at=when, session_id__lt=ident)
        sessions = sessions.filter((Q(has_urgent=True) & after) | Q(has_urgent=False) if after_urgent else
                                   Q(has_urgent=False) & after)
    page = list(sessions.order_by("-has_urgent", "-created_at", "-session_id")[:limit + 1])
    last = page[limit - 1] if len(page) > limit else None
    flags = [{"session_id": str(s.session_id), "purpose": s.purpose, "session_status": s.status,
              "category": f["category"], "urgent": bool(f["urgent"]), "source_id": f["source_id"],
              "flagged_at": f.get("flagged_at")} for s in page[:limit] for f in s.care_team_flags]
    flags.sort(key=lambda f: f["flagged_at"] or "", reverse=True)
    flags.sort(key=lambda f: not f["urgent"])
    audit.record(action="conversation.flags", resource_type="conversation_session", patient_id=patient_id,
                 purpose=purpose)
    return flags, _flags_cursor(last) if last is not None else None


# A page's cursor: the last session's place (core.cursors), behind "u" while the pages are still going through the
# sessions holding an urgent flag, "n" once they reached the others
def _flags_cursor(session: ConversationSession) -> str:
    urgent = session.has_urgent  # type: ignore[attr-defined]  # annotated by the query
    return ("u" if urgent else "n") + position_cursor(session.created_at, session.session_id)


def _flags_position(cursor: str) -> tuple[bool, datetime, uuid.UUID]:
    if cursor[:1] not in ("u", "n"):
        raise ValueError("not a cursor")
    return (cursor[0] == "u", *cursor_position(cursor[1:]))

