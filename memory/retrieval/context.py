"""Context packs: the smallest relevant context for a prompt, each recorded as a release (which memories went to
which agent, for which purpose, when) so deletion can reach it and the patient can see what was disclosed; and the
handler that withdraws a deleted memory from the releases that hold it."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from consent.access import may_access
from core import audit
from core.errors import NoConsentOrAccess
from core.identity import Identity
from memory import representations
from memory.guardrails import FETCH_LIVE_NOTE, guardrails_for
from memory.models import Release, ReleaseMember, Representation
from memory.retrieval.scoring import HIGH, SAFETY_RULE, Hit
from memory.retrieval.search import memory_search
from memory.retrieval.selection import confidence_of

SAFETY_NOTE = ("Safety: the question concerns a medicine, vaccine, contrast agent, food, material or procedure, so "
               "every current allergy, intolerance and long-term medicine on record is included whatever its score; "
               "check each against what is planned.")


@dataclass(frozen=True)
class ContextPack:
    """A context pack as released: everything a caller renders, so nothing is asked of retrieval afterwards."""
    release_id: uuid.UUID
    purpose: str
    hits: tuple[Hit, ...]  # what went into the prompt, best first
    guardrail_notes: tuple[str, ...]
    confidence: str  # as for search, over what was found before best guesses were left out
    safety_rule_applied: bool
    left_out_low_confidence: int
    text: str  # ready to insert into a prompt; cites memory ids, never the patient


def _moment(text: str) -> datetime:
    """A candidate's timestamp (PostgreSQL's text, in UTC) as the aware datetime the model would hold."""
    return datetime.fromisoformat(text)


def _block(hits: list[Hit], notes: list[str], left_out: int) -> str:
    """The ready-to-insert text. Cites memory ids; never names the patient or their identifier."""
    unsure = (f"Note: {left_out} lower-confidence match{'es were' if left_out != 1 else ' was'} left out; "
              "do not treat their absence as a negative answer." if left_out else "")
    if not hits:
        return "\n".join(filter(None, ["Known facts about this patient: none relevant on record.", unsure]))
    lines = ["Known facts about this patient (from governed memory; cite the [memory id] you use):"]
    for hit in hits:
        m = hit.memory
        provenance = f"{m.source.replace('_', ' ')}, recorded {_moment(m.valid_from).date().isoformat()}"
        if m.valid_until:
            provenance += f", valid until {_moment(m.valid_until).date().isoformat()}"
        lines.append(f"- [{m.memory_id}] {hit.text} ({provenance})")
    lines.extend(f"Note: {note}" for note in notes)
    if unsure:
        lines.append(unsure)
    return "\n".join(lines)


def context_pack(*, identity: Identity, patient_id: uuid.UUID, question: str, purpose: str,
                 limit: int | None = None, session_id: uuid.UUID | None = None) -> ContextPack:
    """The smallest relevant context for a prompt, recorded as a release (which memories went to which agent,
    for which purpose, when) so deletion can reach it and the patient can see what was disclosed."""
    if not may_access(patient_id=patient_id, purpose=purpose):
        raise NoConsentOrAccess()
    result = memory_search(identity=identity, patient_id=patient_id, question=question, limit=limit)
    # Purpose limitation: memories kept for this purpose, plus clinical context the caller may see (safety).
    found = [h for h in result.hits if h.memory.consent_purpose == purpose or h.memory.memory_class == "care_context"]
    # A prompt gets what reached the threshold and what the safety rule requires; best guesses stay out, counted.
    hits = [h for h in found if h.confidence == HIGH or h.included_by == SAFETY_RULE]
    notes = sorted({FETCH_LIVE_NOTE for h in hits if guardrails_for(h.memory.memory_class)["fetch_live"]})
    if result.safety_rule_applied and any(h.safety for h in hits):
        notes.append(SAFETY_NOTE)
    release = Release.objects.create(organization_id=identity.org_id, patient_id=patient_id, purpose=purpose,
                                     actor_sub=identity.actor_sub, agent_client_id=identity.agent_client_id,
                                     session_id=session_id)
    # one statement for the members and one for their copies' records, however many facts the pack holds (the
    # safety rule can bring every allergy and long-term medicine); a new release has no copies yet to collide with
    ReleaseMember.objects.bulk_create([
        ReleaseMember(release=release, memory_id=hit.memory.memory_id, organization_id=identity.org_id,
                      patient_id=patient_id, purpose=hit.memory.consent_purpose, score=hit.score) for hit in hits])
    Representation.objects.bulk_create([
        representations.copy_row(memory=hit.memory, target=Representation.Target.PROVIDER_CONVERSATION,
                                 external_id=f"release:{release.release_id}") for hit in hits])
    audit.record(action="memory.context_pack", resource_type="memory_release", resource_id=release.release_id,
                 patient_id=patient_id, purpose=purpose)
    return ContextPack(release_id=release.release_id, purpose=purpose, hits=tuple(hits),
                       guardrail_notes=tuple(notes), confidence=confidence_of(found),
                       safety_rule_applied=result.safety_rule_applied, left_out_low_confidence=len(found) - len(hits),
                       text=_block(hits, notes, len(found) - len(hits)))


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
