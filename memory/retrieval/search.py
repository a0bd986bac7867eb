"""Search by meaning: the question understood once, the candidates read through the deterministic filters, ranked
exactly over that small set (no vector index), the answer selected and returned as one :class:`SearchResult`
that the API renders as it is.

Each step is a module-level function looked up at call time (``bench.retrieval_api`` times them one by one)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

from core import audit
from core.identity import Identity
from memory.models import MemoryClass
from memory.retrieval.candidates import Candidate, fetch_candidates
from memory.retrieval.intent import type_phrases
from memory.retrieval.question import Question, understand
from memory.retrieval.ranker import ranker
from memory.retrieval.scoring import Hit, query_vector, score_candidates, similarities, uncovered_shares
from memory.retrieval.selection import confidence_of, select
from memory.retrieval.vectors import vector_model
from memory.types import type_get

CARE_CONTEXT = MemoryClass.CARE_CONTEXT  # the class, and the built-in type, that hold allergies and medicines


@dataclass(frozen=True)
class SearchResult:
    """A search's whole answer: everything a caller renders, so nothing is asked of retrieval afterwards."""
    hits: tuple[Hit, ...]  # best first
    min_score: float  # the threshold asked for, or the calibrated one (before the relative cut-off)
    confidence: str  # the answer's band (:func:`memory.retrieval.selection.confidence_of`)
    safety_rule_applied: bool  # the question named something a patient could be given or exposed to
    over_limit: int = 0  # hits that reached their threshold but were left out by the limit
    # the safety rule applied, but the search's filters (class, types, purpose) left out the care context that holds
    # allergies and long-term medicines: decided by the filters alone, so it tells nothing of what is on record
    safety_facts_filtered_out: bool = False


_embedder_pool: ThreadPoolExecutor | None = None
_embedder_lock = threading.Lock()


def _embedder() -> ThreadPoolExecutor:
    """Threads that wait for the vectors of questions and of memories being written (no database work happens
    in them); created on first use, in the process that embeds (after any fork)."""
    global _embedder_pool
    with _embedder_lock:
        if _embedder_pool is None:
            _embedder_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="query-vector")
        return _embedder_pool


def rank_candidates(*, identity: Identity, patient_id: uuid.UUID, question: Question, purpose: str | None = None,
                    memory_class: str | None = None, memory_types: tuple[str, ...] = (),
                    audit_row: tuple[str, list] | None = None,
                    keep: Callable[[Candidate], bool] | None = None) -> list[Hit]:
    """Every current memory of the patient that the caller may see, scored: its cosine similarity to the
    question, its full-text rank, the lexicon's concept match and the question's intent for its type. Filters are
    deterministic and applied first (organisation, patient, purpose, class, types, state, validity, consent, and
    ``keep`` when given); ranking is exact over that small set."""
    # The question is embedded (over HTTP, by the machine's embedding server) while the candidates are read,
    # decrypted, named and text-ranked: the waits overlap instead of adding up.
    pending = _embedder().submit(query_vector, question.expanded, scope=identity.org_id)
    try:
        ordered = fetch_candidates(identity=identity, patient_id=patient_id, purpose=purpose,
                                   memory_class=memory_class, memory_types=memory_types, audit_row=audit_row)
        if keep is not None:
            ordered = [c for c in ordered if keep(c)]
        # what each type serves, read and embedded before the question's vector is there
        phrases = type_phrases(org_id=identity.org_id, model=vector_model()) if ordered else None
        made, cosines, ranks = similarities(question, ordered, pending)
    finally:
        wait([pending])  # never leave the question's embedding running behind the request
    vector = pending.result()  # a provider error surfaces even when there was nothing to rank
    if phrases is None:
        return []
    return score_candidates(ordered, made, cosines, ranks, phrases.intents(vector),
                            uncovered_shares(question, ordered, made, phrases.texts))


def filters_exclude_care_context(*, purpose: str | None, memory_class: str | None,
                                 memory_types: tuple[str, ...]) -> bool:
    """Whether a search with these filters can never reach care context (allergies and long-term medicines): another
    class, types that leave it out, or a purpose it is not kept for."""
    if memory_class is not None and memory_class != CARE_CONTEXT:
        return True
    if memory_types and CARE_CONTEXT not in memory_types:
        return True
    spec = type_get(CARE_CONTEXT)
    return purpose is not None and spec is not None and purpose not in spec.purposes


def memory_search(*, identity: Identity, patient_id: uuid.UUID, question: str, limit: int | None = None,
                  min_score: float | None = None, purpose: str | None = None,
                  memory_class: str | None = None, memory_types: tuple[str, ...] = (), audited: bool = True,
                  keep: Callable[[Candidate], bool] | None = None) -> SearchResult:
    """Ranked and selected hits with the answer's confidence; the ``memory.search`` audit row is written by the
    candidates query itself, in the request's transaction. ``memory_types``: the only types searched (names the
    caller checked against the registry), before anything is ranked. ``audited=False``: no row of its own, for a caller
    that records the read itself (a context pack: one read, one row, the release's); ``keep``: the candidates
    it may answer with (a context pack's), decided before anything is ranked or selected."""
    q = understand(question)
    # A named purpose is checked by the candidates statement itself (refused there: SQLSTATE AP403).
    row = audit.insert_statement(action="memory.search", resource_type="memory", patient_id=patient_id,
                                 purpose=purpose, outcome_by_access=purpose is None,
                                 require_purpose=purpose is not None) if audited else None
    ranked = rank_candidates(identity=identity, patient_id=patient_id, question=q, purpose=purpose,
                             memory_class=memory_class, memory_types=memory_types, audit_row=row, keep=keep)
    selection = select(ranked, question=q, limit=limit, min_score=min_score)
    hits = selection.hits
    return SearchResult(hits=tuple(hits), min_score=ranker().threshold if min_score is None else min_score,
                        confidence=confidence_of(hits), safety_rule_applied=q.safety_rule,
                        over_limit=selection.over_limit,
                        safety_facts_filtered_out=q.safety_rule and filters_exclude_care_context(
                            purpose=purpose, memory_class=memory_class, memory_types=memory_types))
