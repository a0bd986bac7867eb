"""Retrieval by meaning: embeddings as representations of memories, deterministic filters first, then exact
ranking of the candidates by cosine similarity blended with PostgreSQL full-text rank; context packs for
prompts, each recorded as a release."""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.db import connection
from django.db.models import FloatField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from pgvector.django import CosineDistance

from consent.access import may_access
from core import audit, maintenance
from core.errors import NoConsentOrAccess
from core.identity import Identity, identity_context
from memory import representations, selectors
from memory.embeddings import EmbeddingUnavailable, provider
from memory.facts import fact_text
from memory.guardrails import FETCH_LIVE_NOTE, guardrails_for
from memory.lifecycle import memory_value
from memory.models import Memory, MemoryEmbedding, Release, ReleaseMember, Representation

log = logging.getLogger("anamnesis.retrieval")
CALIBRATION_FILE = Path(__file__).with_name("retrieval_calibration.json")


@dataclass(frozen=True)
class Calibration:
    min_score: float
    cosine_weight: float
    text_weight: float
    relative_cutoff: float
    limit: int


@lru_cache(maxsize=1)
def calibration() -> Calibration:
    """Threshold and blend weights measured on the evaluation set (``manage.py evaluate_retrieval --write``)."""
    data = json.loads(CALIBRATION_FILE.read_text())
    return Calibration(min_score=data["min_score"], cosine_weight=data["cosine_weight"],
                       text_weight=data["text_weight"], relative_cutoff=data.get("relative_cutoff", 0.0),
                       limit=data.get("limit", 5))


# --- the vector copy of a memory ---------------------------------------------------------------------------------

def memory_embed(*, memory: Memory, fact: dict) -> bool:
    """Embed a memory's text and record the vector as a representation. A provider outage leaves the memory
    without a vector (found later by ``reindex_embeddings``) rather than failing the write."""
    try:
        [vector] = provider().embed([fact_text(memory.memory_type, fact, memory.type_version)])
    except EmbeddingUnavailable:
        log.warning("memory stored without embedding: provider unavailable")
        return False
    row, _ = MemoryEmbedding.objects.update_or_create(
        memory_id=memory.memory_id, model=provider().name,
        defaults={"organization_id": memory.organization_id, "patient_id": memory.patient_id,
                  "purpose": memory.consent_purpose, "embedding": vector})
    representations.representation_add(memory=memory, target=Representation.Target.VECTOR,
                                        external_id=f"memory_embedding:{row.pk}")
    return True


def _vector_remove(rep: Representation) -> None:
    MemoryEmbedding.objects.filter(memory_id=rep.memory_id).delete()


def _vector_verify(rep: Representation) -> bool:
    return not MemoryEmbedding.objects.filter(memory_id=rep.memory_id).exists()


def _release_remove(rep: Representation) -> None:
    """We never store a pack's text; what remains is to withdraw the memory from the release so the agent that
    holds it is told (``GET /v1/releases/{id}``) to drop it from its conversation."""
    ReleaseMember.objects.filter(memory_id=rep.memory_id, release_id=rep.external_id.split(":", 1)[1],
                                 withdrawn_at__isnull=True).update(withdrawn_at=timezone.now())


def _release_verify(rep: Representation) -> bool:
    return not ReleaseMember.objects.filter(memory_id=rep.memory_id, release_id=rep.external_id.split(":", 1)[1],
                                            withdrawn_at__isnull=True).exists()


representations.register(Representation.Target.VECTOR,
                          representations.Handler(remove=_vector_remove, verify=_vector_verify))
representations.register(Representation.Target.PROVIDER_CONVERSATION,
                         representations.Handler(remove=_release_remove, verify=_release_verify))


# --- search ---------------------------------------------------------------------------------------------------

@dataclass
class Hit:
    memory: Memory
    text: str
    cosine: float
    text_rank: float
    score: float


def candidates(*, identity: Identity, patient_id: uuid.UUID, query_vector: list[float], purpose: str | None = None,
               memory_class: str | None = None) -> QuerySet[Memory]:
    """The deterministic filters (the same ``current()`` every read uses: organisation, patient, state,
    validity, retention, consent; then purpose and class), each memory annotated with its cosine similarity to
    the question (0 when it has no vector from the current model). One query; exact, no vector index."""
    distance = (MemoryEmbedding.objects.filter(memory_id=OuterRef("pk"), model=provider().name)
                .annotate(distance=CosineDistance("embedding", query_vector)).values("distance")[:1])
    qs = selectors.memory_list_current(identity=identity, patient_id=patient_id, consent_purpose=purpose)
    if memory_class:
        qs = qs.filter(memory_class=memory_class)
    return qs.annotate(cosine=Coalesce(1 - Subquery(distance), Value(0.0), output_field=FloatField()))

# Any shared word counts (the question's lexemes OR-ed), so "INR" or a drug name matches on its own.
TEXT_RANK_SQL = """
WITH q AS (SELECT NULLIF(replace(plainto_tsquery('english', %s)::text, ' & ', ' | '), '') AS expr)
SELECT CASE WHEN q.expr IS NULL THEN 0
            ELSE ts_rank(to_tsvector('english', t), to_tsquery('english', q.expr)) END
  FROM unnest(%s::text[]) WITH ORDINALITY AS u(t, n), q ORDER BY n
"""


def blend(cosine: float, text_rank: float, cosine_weight: float, text_weight: float) -> float:
    return cosine_weight * cosine + text_weight * text_rank


def _text_ranks(question: str, texts: list[str]) -> list[float]:
    if not texts:
        return []
    with connection.cursor() as cursor:
        cursor.execute(TEXT_RANK_SQL, [question, texts])
        return [float(r[0]) for r in cursor.fetchall()]


def rank_candidates(*, identity: Identity, patient_id: uuid.UUID, question: str, purpose: str | None = None,
                    memory_class: str | None = None) -> list[Hit]:
    """Every current memory of the patient that the caller may see, with its cosine similarity to the question
    and its full-text rank. Filters are deterministic and applied first (organisation, patient, purpose, class,
    state, validity, consent); ranking is exact over that small set."""
    [query_vector] = provider().embed([question])
    ordered = list(candidates(identity=identity, patient_id=patient_id, query_vector=query_vector, purpose=purpose,
                              memory_class=memory_class))
    texts = [fact_text(m.memory_type, memory_value(m), m.type_version) for m in ordered]
    ranks = _text_ranks(question, texts)
    cal = calibration()
    hits = []
    for memory, text, text_rank in zip(ordered, texts, ranks, strict=True):
        cosine = float(memory.cosine)
        # an exact word match (a drug, "INR") lifts a weak cosine: ts_rank is about 0.06 per shared word
        score = blend(cosine, text_rank, cal.cosine_weight, cal.text_weight)
        hits.append(Hit(memory=memory, text=text, cosine=cosine, text_rank=text_rank, score=score))
    hits.sort(key=lambda h: (-h.score, str(h.memory.memory_id)))
    return hits


def memory_search(*, identity: Identity, patient_id: uuid.UUID, question: str, limit: int | None = None,
                  min_score: float | None = None, purpose: str | None = None,
                  memory_class: str | None = None) -> list[Hit]:
    cal = calibration()
    ranked = rank_candidates(identity=identity, patient_id=patient_id, question=question, purpose=purpose,
                             memory_class=memory_class)
    threshold = cal.min_score if min_score is None else min_score
    if min_score is None and ranked:
        # with many memories, keep only hits close to the best one (calibrated on the evaluation set)
        threshold = max(threshold, cal.relative_cutoff * ranked[0].score)
    hits = [h for h in ranked if h.score >= threshold]
    hits = hits[: (limit or cal.limit)]
    audit.record(action="memory.search", resource_type="memory", patient_id=patient_id, purpose=purpose)
    return hits


# --- context packs ------------------------------------------------------------------------------------------------

def _block(hits: list[Hit], notes: list[str]) -> str:
    """The ready-to-insert text. Cites memory ids; never names the patient or their identifier."""
    if not hits:
        return "Known facts about this patient: none relevant on record."
    lines = ["Known facts about this patient (from governed memory; cite the [memory id] you use):"]
    for hit in hits:
        m = hit.memory
        provenance = f"{m.source.replace('_', ' ')}, recorded {m.valid_from.date().isoformat()}"
        if m.valid_until:
            provenance += f", valid until {m.valid_until.date().isoformat()}"
        lines.append(f"- [{m.memory_id}] {hit.text} ({provenance})")
    lines.extend(f"Note: {note}" for note in notes)
    return "\n".join(lines)


def context_pack(*, identity: Identity, patient_id: uuid.UUID, question: str, purpose: str,
                 limit: int | None = None, session_id: uuid.UUID | None = None) -> dict:
    """The smallest relevant context for a prompt, recorded as a release (which memories went to which agent,
    for which purpose, when) so deletion can reach it and the patient can see what was disclosed."""
    if not may_access(patient_id=patient_id, purpose=purpose):
        raise NoConsentOrAccess()
    hits = memory_search(identity=identity, patient_id=patient_id, question=question, limit=limit)
    # Purpose limitation: memories kept for this purpose, plus clinical context the caller may see (safety).
    hits = [h for h in hits if h.memory.consent_purpose == purpose or h.memory.memory_class == "care_context"]
    notes = sorted({FETCH_LIVE_NOTE for h in hits if guardrails_for(h.memory.memory_class)["fetch_live"]})
    release = Release.objects.create(organization_id=identity.org_id, patient_id=patient_id, purpose=purpose,
                                     actor_sub=identity.actor_sub, session_id=session_id)
    for hit in hits:
        ReleaseMember.objects.create(release=release, memory=hit.memory, organization_id=identity.org_id,
                                     patient_id=patient_id, purpose=hit.memory.consent_purpose, score=hit.score)
        representations.representation_add(memory=hit.memory, target=Representation.Target.PROVIDER_CONVERSATION,
                                            external_id=f"release:{release.release_id}")
    audit.record(action="memory.context_pack", resource_type="memory_release", resource_id=release.release_id,
                 patient_id=patient_id, purpose=purpose)
    return {
        "release_id": str(release.release_id),
        "purpose": purpose,
        "facts": [{"memory_id": str(h.memory.memory_id), "text": h.text, "memory_class": h.memory.memory_class,
                   "source": h.memory.source, "created_by": h.memory.created_by,
                   "valid_from": h.memory.valid_from.isoformat(),
                   "valid_until": h.memory.valid_until.isoformat() if h.memory.valid_until else None,
                   "score": round(h.score, 4), "guardrails": guardrails_for(h.memory.memory_class)} for h in hits],
        "guardrail_notes": notes,
        "text": _block(hits, notes),
    }


def memory_reindex(*, batch: int = 200, progress=None) -> int:
    """Embed every live memory that has no vector from the current model (after a model change, or after the
    provider was down at write time). Idempotent. Discovery walks live memories once, in key order, through the
    narrow 'reindex' maintenance policy (ids only); each one is checked and embedded under a service identity
    scoped to its patient and purpose."""
    model = provider().name
    done = 0
    after = ("-infinity", uuid.UUID(int=0))
    while True:
        due = maintenance.discover(
            "reindex",
            "SELECT created_at, memory_id, organization_id, patient_id, consent_purpose FROM patient_memory "
            "WHERE state IN ('active', 'proposed', 'quarantined') AND (created_at, memory_id) > (%s, %s) "
            "ORDER BY created_at, memory_id LIMIT %s", [after[0], after[1], batch])
        if not due:
            return done
        for created_at, memory_id, org_id, patient_id, purpose in due:
            after = (created_at, memory_id)
            identity = Identity.service(org_id=org_id, name="reindex", patient_id=patient_id, purpose=purpose)
            with identity_context(identity):
                if MemoryEmbedding.objects.filter(memory_id=memory_id, model=model).exists():
                    continue
                memory = Memory.objects.filter(pk=memory_id).first()
                if memory is None or not memory_embed(memory=memory, fact=memory_value(memory)):
                    continue
                MemoryEmbedding.objects.filter(memory_id=memory_id).exclude(model=model).delete()
                done += 1
            if progress:
                progress(1)
