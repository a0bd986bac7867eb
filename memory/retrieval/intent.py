"""Intent before ranking: which types could answer a question, decided from what each type says it serves.

Every type the organisation may use carries short phrases naming the situations and questions it answers
(``serves``: "how to address the patient", "which room to book"), built in or written by the organisation's
administrator (:func:`memory.types.type_serves`). A question's intent for a type is its vector's best cosine
with those phrases; ranking weighs each candidate by its own type's intent and by how far that type is behind the
type the question is most about, so "what do we call her in the waiting room?" lands on the preferred name even
when its words are nearer another fact. An organisation's own type takes part without code.

The phrases' vectors are kept per process, per model and phrase: a type's phrases are embedded once, on the first
search that needs them (an edit is new phrases, embedded on its next search)."""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass

import numpy as np

from memory.embeddings import provider
from memory.types import type_serves

_vectors: dict[tuple[str, str], np.ndarray] = {}
_lock = threading.Lock()
_MAX_PHRASES = 20_000  # a bound on the per-process cache (about 30 MB of 384-dimension vectors)


def _phrase_vectors(model: str, phrases: list[str]) -> dict[str, np.ndarray]:
    """Each phrase's vector, embedding in one call those this process has not seen under ``model``."""
    missing = [p for p in dict.fromkeys(phrases) if (model, p) not in _vectors]
    if missing:
        made = provider().embed(missing)  # EmbeddingUnavailable propagates: search cannot rank without vectors
        with _lock:
            if len(_vectors) + len(made) > _MAX_PHRASES:
                _vectors.clear()
            _vectors.update({(model, p): np.asarray(v, dtype=np.float32) for p, v in zip(missing, made,
                                                                                         strict=True)})
    return {p: _vectors[(model, p)] for p in phrases}


@dataclass(frozen=True)
class TypeIntents:
    """A question's intent for every type the organisation may use: the best cosine of its vector with the
    type's phrases; ``best`` is the highest of them (the type the question is most about)."""
    by_type: dict[str, float]
    best: float

    def of(self, memory_type: str) -> float:
        """The intent for a candidate's type; a type the registry no longer lists (its memories may outlive it)
        is as far behind as the least likely type."""
        return self.by_type.get(memory_type, min(self.by_type.values(), default=0.0))


@dataclass(frozen=True)
class TypePhrases:
    """Every phrase of every type the organisation may use, as one matrix (a type's phrases in consecutive rows),
    ready before the question's vector is: measuring the intents is then one product."""
    names: tuple[str, ...]
    starts: np.ndarray  # the first row of each type's phrases
    matrix: np.ndarray  # one row per phrase
    # each type's phrases and name as one text: what may cover a question's words besides a memory's own text
    # (memory.retrieval.coverage)
    texts: dict[str, str]

    def intents(self, question_vector: list[float]) -> TypeIntents:
        if not self.names:
            return TypeIntents(by_type={}, best=0.0)
        cosines = self.matrix @ np.asarray(question_vector, dtype=np.float32)
        best = np.maximum.reduceat(cosines, self.starts).tolist()
        return TypeIntents(by_type=dict(zip(self.names, best, strict=True)), best=max(best))


def type_phrases(*, org_id: uuid.UUID, model: str) -> TypePhrases:
    """The phrases of every type the organisation may use (:func:`memory.types.type_serves`: its own wording,
    else the type's, else its label), embedded (once per process and phrase)."""
    serves = {name: phrases for name, phrases in type_serves(org_id=org_id).items() if phrases}
    vectors = _phrase_vectors(model, [p for phrases in serves.values() for p in phrases])
    rows = [vectors[p] for phrases in serves.values() for p in phrases]
    starts = np.cumsum([0] + [len(phrases) for phrases in serves.values()][:-1])
    return TypePhrases(names=tuple(serves), starts=np.asarray(starts, dtype=np.intp),
                       matrix=np.vstack(rows) if rows else np.zeros((0, 0), dtype=np.float32),
                       texts={name: " ".join((*phrases, name.replace("_", " "))) for name, phrases in serves.items()})

