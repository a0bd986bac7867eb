"""Context packs: the smallest relevant context for a prompt, each recorded as a release (which memories went to
which agent, for which purpose, when) so deletion can reach it and the patient can see what was disclosed; and the
handler that withdraws a deleted memory from the releases that hold it."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.utils import timezone

from consent.access import may_access
from consent.purpose import permits
from core import audit
from core.errors import NoConsentOrAccess
from core.identity import Identity
from memory import representations
from memory.erasure import erasure_hold
from memory.guardrails import FETCH_LIVE_NOTE, guardrails_for
from memory.models import ReleaseMember, Representation
from memory.retrieval.candidates import Candidate
from memory.retrieval.scoring import HIGH, SAFETY_RULE, Hit, array_literal
from memory.retrieval.search import CARE_CONTEXT, memory_search
from memory.retrieval.selection import confidence_of
from memory.types import type_get

SAFETY_NOTE = ("Safety: the question concerns a medicine, vaccine, contrast agent, food, material or procedure, so "
               "every current allergy, intolerance and long-term medicine on record is included whatever its score; "
               "check each against what is planned.")
# Said whenever the caller may not read care context, whether or not the patient has any: its absence from the pack
# must not read as "no allergies", and its presence must not tell that there are some.
SAFETY_UNREACHED_NOTE = ("Safety: the question concerns a medicine, vaccine, contrast agent, food, material or "
                         "procedure, but allergies and long-term medicines are kept for care coordination, which this "
                         "pack cannot include for you: none are included, whether or not any are on record; check "
                         "them in the clinical record before acting.")

REVIEW_OVERDUE_NOTE = ("Some facts are past the date the care team set to review them (marked 'review overdue'): "
                       "confirm them with the care team before relying on them.")

@dataclass(frozen=True)
class ContextPack:
    """A context pack as released: everything a caller renders, so nothing is asked of retrieval afterwards."""
    release_id: uuid.UUID
    purpose: str
    hits: tuple[Hit, ...]  # what went into the prompt, best first
    guardrails: tuple[dict, ...]  # each hit's, as its memory renders them (its class, its type version's fetch_live)
    guardrail_notes: tuple[str, ...]
    confidence: str  # as for search, over what was found before best guesses were left out
    safety_rule_applied: bool
    left_out_low_confidence: int
    left_out_over_limit: int  # facts that reached the threshold but not the pack's limit
    # the safety rule applied but the caller may not read care context (SAFETY_UNREACHED_NOTE): none could come in
    safety_facts_filtered_out: bool
    text: str  # ready to insert into a prompt; cites memory ids, never the patient


def _moment(text: str) -> datetime:
    """A candidate's timestamp (PostgreSQL's text, in UTC) as the aware datetime the model would hold."""
    return datetime.fromisoformat(text)


def _overdue(hit: Hit, now: datetime) -> bool:
    """Past the review date the care team set (care context carries one): still served, but marked."""
    return bool(hit.memory.review_by) and _moment(hit.memory.review_by) <= now


def _block(hits: list[Hit], notes: list[str], left_out: int, over_limit: int = 0, *,
           now: datetime | None = None) -> str:
    """The ready-to-insert text. Cites memory ids; never names the patient or their identifier."""
    unsure = (f"Note: {left_out} lower-confidence match{'es were' if left_out != 1 else ' was'} left out; "
              "do not treat their absence as a negative answer." if left_out else "")
    cut = (f"Note: {over_limit} more relevant fact{'s were' if over_limit != 1 else ' was'} left out by the "
           "limit on facts; these facts are not the whole answer." if over_limit else "")
    if not hits:  # the notes still go with it: the safety note is what says allergies could not be included
        return "\n".join(["Known facts about this patient: none relevant on record.",
                          *(f"Note: {note}" for note in notes), *filter(None, [unsure])])
    lines = ["Known facts about this patient (from governed memory; cite the [memory id] you use):"]
    for hit in hits:
        m = hit.memory
        provenance = f"{m.source.replace('_', ' ')}, recorded {_moment(m.valid_from).date().isoformat()}"
        if m.valid_until:
            provenance += f", valid until {_moment(m.valid_until).date().isoformat()}"
        if now is not None and _overdue(hit, now):
            provenance += f", review overdue since {_moment(m.review_by).date().isoformat()}"
        lines.append(f"- [{m.memory_id}] {hit.text} ({provenance})")
    lines.extend(f"Note: {note}" for note in notes)
    lines.extend(filter(None, [cut, unsure]))
    return "\n".join(lines)


# A release, its members and their copies' records, and its audit row: one statement, however many facts the pack
# holds (the safety rule can bring every allergy and long-term medicine). Row-level security checks every row as
# for an ORM insert; the members' foreign key to the release holds at the statement's end.
RELEASE_SQL = """
WITH release AS (
  INSERT INTO memory_release (release_id, organization_id, patient_id, purpose, actor_sub, agent_client_id,
                              session_id, created_at)
  VALUES (%s, %s, %s, %s, %s, %s, %s, statement_timestamp())),
member AS (
  INSERT INTO memory_release_member (release_id, memory_id, organization_id, patient_id, purpose, score, included_at)
  SELECT %s, u.memory_id, %s, %s, u.purpose, u.score, statement_timestamp()
    FROM unnest(%s::uuid[], %s::text[], %s::float8[]) AS u(memory_id, purpose, score)),
copy AS (
  INSERT INTO memory_representation (memory_id, organization_id, patient_id, purpose, target, external_id, state,
                                     created_at)
  SELECT u.memory_id, %s, %s, u.purpose, %s, %s, %s, statement_timestamp()
    FROM unnest(%s::uuid[], %s::text[]) AS u(memory_id, purpose))
"""


def record_release(*, identity: Identity, release_id: uuid.UUID, patient_id: uuid.UUID, purpose: str,
                   session_id: uuid.UUID | None, hits: list[Hit]) -> None:
    """Record a context pack as a release (which memories went to which agent, for which purpose, when), each
    member's copy (so deletion withdraws it), and the ``memory.context_pack`` audit row, in one round trip."""
    audit_sql, audit_params = audit.insert_statement(action="memory.context_pack", resource_type="memory_release",
                                                     resource_id=release_id, patient_id=patient_id, purpose=purpose)
    ids = array_literal([h.memory.memory_id for h in hits])
    purposes = array_literal([h.memory.consent_purpose for h in hits])
    params = [release_id, identity.org_id, patient_id, purpose, identity.actor_sub, identity.agent_client_id,
              session_id,
              release_id, identity.org_id, patient_id, ids, purposes,
              "{" + ",".join(repr(float(h.score)) for h in hits) + "}",
              identity.org_id, patient_id, Representation.Target.PROVIDER_CONVERSATION, f"release:{release_id}",
              Representation.State.ACTIVE, ids, purposes]
    with connection.cursor() as cursor:
        cursor.execute(RELEASE_SQL + audit_sql, params + audit_params)


def _fetch_live(hit: Hit) -> bool | None:
    spec = type_get(hit.memory.memory_type, hit.memory.type_version)
    return spec.fetch_live if spec is not None else None


def context_pack(*, identity: Identity, patient_id: uuid.UUID, question: str, purpose: str,
                 limit: int | None = None, session_id: uuid.UUID | None = None) -> ContextPack:
    """The smallest relevant context for a prompt, recorded as a release (which memories went to which agent,
    for which purpose, when) so deletion can reach it and the patient can see what was disclosed."""
    if not may_access(patient_id=patient_id, purpose=purpose):
        raise NoConsentOrAccess()
    # Before anything is read: an erase-all under way is waited for (the pack then finds nothing erased), or waits
    # for this one and withdraws what it released; read in between, a release it never saw held erased values.
    erasure_hold(identity, patient_id, shared=True)
    # Purpose limitation, before anything is ranked (another purpose's memories would take the limit's places and
    # sway the answer's confidence): memories kept for this purpose, plus clinical context (safety) the caller may
    # also read for the purpose it is kept for: an agent in a patient's context only under the patient's consent
    # for it, as its own search or list for that purpose would be refused
    readable = {purpose: True}

    def kept(memory: Candidate) -> bool:
        if memory.consent_purpose != purpose and memory.memory_class != CARE_CONTEXT:
            return False
        if memory.consent_purpose not in readable:
            readable[memory.consent_purpose] = permits(identity, patient_id=patient_id, purpose=memory.consent_purpose)
        return readable[memory.consent_purpose]

    # one read, one audit row: the release's (record_release), naming what went out and why; the search writes none
    result = memory_search(identity=identity, patient_id=patient_id, question=question, limit=limit,
                           audited=False, keep=kept)
    found = list(result.hits)
    # A prompt gets what reached the threshold and what the safety rule requires; best guesses stay out, counted.
    hits = [h for h in found if h.confidence == HIGH or h.included_by == SAFETY_RULE]
    # a memory's guardrails are its class's and its own type version's (an organisation's type may say fetch_live)
    guardrails = tuple(guardrails_for(h.memory.memory_class, fetch_live=_fetch_live(h)) for h in hits)
    notes = sorted({FETCH_LIVE_NOTE for g in guardrails if g["fetch_live"]})
    unreached = result.safety_rule_applied and not any(h.safety for h in hits) and not any(
        readable[p] if p in readable else permits(identity, patient_id=patient_id, purpose=p)
        for p in type_get(CARE_CONTEXT).purposes)
    if result.safety_rule_applied and any(h.safety for h in hits):
        notes.append(SAFETY_NOTE)
    elif unreached:
        notes.append(SAFETY_UNREACHED_NOTE)
    now = timezone.now()
    if any(_overdue(h, now) for h in hits):
        notes.append(REVIEW_OVERDUE_NOTE)
    release_id = uuid.uuid4()
    record_release(identity=identity, release_id=release_id, patient_id=patient_id, purpose=purpose,
                   session_id=session_id, hits=hits)
    left_out = len(found) - len(hits)
    return ContextPack(release_id=release_id, purpose=purpose, hits=tuple(hits), guardrails=guardrails,
                       guardrail_notes=tuple(notes), confidence=confidence_of(found),
                       safety_rule_applied=result.safety_rule_applied, left_out_low_confidence=left_out,
                       left_out_over_limit=result.over_limit, safety_facts_filtered_out=unreached,
                       text=_block(hits, notes, left_out, result.over_limit, now=now))


def _release_remove(rep: Representation) -> None:
    """We never store a pack's text; what remains is to withdraw the memory from the release so the agent that
    holds it is told (``GET /v1/releases/{id}``) to drop it from its conversation."""
    ReleaseMember.objects.filter(memory_id=rep.memory_id, release_id=rep.external_id.split(":", 1)[1],
                                 withdrawn_at__isnull=True).update(withdrawn_at=timezone.now())


def _release_verify(rep: Representation) -> bool:
    return not ReleaseMember.objects.filter(memory_id=rep.memory_id, release_id=rep.external_id.split(":", 1)[1],
                                            withdrawn_at__isnull=True).exists()


representations.register(Representation.Target.PROVIDER_CONVERSATION,
                         representations.Handler(remove=_release_remove, verify=_release_verify))
