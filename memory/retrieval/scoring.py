"""How closely each candidate answers a question: its cosine similarity to the question, its PostgreSQL full-text
rank, the clinical lexicon's concept match and the question's intent for its type, scored by the learned
scoring head (:mod:`memory.retrieval.ranker`) as the probability that it answers.

The cosines and text ranks are measured by PostgreSQL in pipelined statements while the candidates are still being
decrypted and named (:func:`similarities`); every value is computed per row, so the answer is the same however
the batches fell. Each step is a module-level function looked up at call time (``bench.retrieval_api`` times
them one by one)."""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import uuid
from collections import OrderedDict
from concurrent.futures import Future
from contextlib import ExitStack
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from django.db import connection
from pgvector import Vector

from memory.embeddings import EmbeddingUnavailable, provider
from memory.lexicon import lexicon
from memory.retrieval.adapter import adapt
from memory.retrieval.candidates import Candidate, candidate_value
from memory.retrieval.coverage import Coverage, question_stems
from memory.retrieval.intent import TypeIntents
from memory.retrieval.question import Question
from memory.retrieval.ranker import ranker
from memory.retrieval.vectors import vector_model
from memory.types import fact_text

log = logging.getLogger("anamnesis.retrieval")

HIGH, LOW = "high", "low"
RELEVANCE, SAFETY_RULE = "relevance", "safety_rule"
SAFETY_KINDS = ("allergy", "long_term_indication")
KIND_DISCOUNT = 0.5
# What an allergy or long-term medicine is about is its substance or medicine; the rest of its text (the reaction,
# the indication, the monitoring, the note) is context: a link only through it counts this much. "What was his
# last HbA1c?" is not about insulin for diabetes the way "is he on insulin?" is; "is he allergic to latex?" is not
# answered by a chlorhexidine allergy whose note mentions theatre.
CONTEXT_WEIGHT = 0.5
HEAD_FIELDS = {"allergy": "substance", "long_term_indication": "medication"}


@dataclass(eq=False)
class Hit:
    memory: Candidate
    text: str
    cosine: float
    text_rank: float
    score: float
    concept: float = 0.0
    mismatch: float = 0.0
    intent: float = 0.0  # the question's intent for the memory's type
    safety: bool = False  # an allergy or long-term medicine: what the safety rule must include
    confidence: str = HIGH
    included_by: str = RELEVANCE
    value: dict | None = None  # the plaintext fact
    features: tuple[float, ...] = ()  # what the scoring head saw, as ranker.FEATURES (``train_ranker`` learns them)


@lru_cache(maxsize=512)
def _query_vector(model: str, scope: uuid.UUID | None, text: str) -> tuple[float, ...]:
    [vector] = provider().embed([text])
    return tuple(vector)


def query_vector(text: str, *, scope: uuid.UUID | None = None) -> list[float]:
    """A question's vector; recent ones are kept (agents repeat questions across turns and patients), apart for
    each ``scope`` (the asking organisation): a question another organisation asked is never answered faster,
    so how long a search takes says nothing about what others asked. Provider errors are not cached."""
    return list(_query_vector(vector_model(), scope, text))


# Any shared word counts (the question's lexemes OR-ed), so "INR" or a drug name matches on its own. The query is
# parsed once (MATERIALIZED), not once per text: the same values, a third of the time for 200 texts.
_QUESTION_CTE = """
WITH q AS MATERIALIZED (
  SELECT e.expr, CASE WHEN e.expr IS NULL THEN NULL ELSE to_tsquery('english', e.expr) END AS query
    FROM (SELECT NULLIF(replace(plainto_tsquery('english', %s)::text, ' & ', ' | '), '') AS expr) AS e)"""
_TEXT_RANK = "CASE WHEN q.expr IS NULL THEN 0 ELSE ts_rank(to_tsvector('english', u.t), q.query) END"
# A candidate's cosine similarity to the question, as ``candidates()`` annotates it, but NULL without a vector of the
# current model (:func:`similarities` embeds such a candidate's text itself); RLS applies to memory_embedding as to
# the candidates.
_COSINE = """1 - (SELECT me.embedding <=> %s::vector FROM memory_embedding me
                 WHERE me.memory_id = u.id AND me.model = %s LIMIT 1)"""

TEXT_RANK_SQL = (f"{_QUESTION_CTE}\nSELECT {_TEXT_RANK}\n"
                 "  FROM unnest(%s::text[]) WITH ORDINALITY AS u(t, n), q ORDER BY n")
# Each candidate's cosine and text rank in one statement (the vector was there when the texts were ready).
SIMILARITY_SQL = (f"{_QUESTION_CTE}\nSELECT {_COSINE},\n       {_TEXT_RANK}\n"
                  "  FROM unnest(%s::uuid[], %s::text[]) WITH ORDINALITY AS u(id, t, n), q ORDER BY n")
# The cosines alone, for a search whose texts were ranked while the question was still being embedded.
COSINE_SQL = f"SELECT {_COSINE}\n  FROM unnest(%s::uuid[]) WITH ORDINALITY AS u(id, n) ORDER BY n"


def array_literal(values: list) -> str:
    """A one-dimensional PostgreSQL array literal (for a ``%s::text[]`` or ``%s::uuid[]`` parameter): every
    element double-quoted with its backslashes and quotes escaped. Five times cheaper than the driver's list
    adaptation for the 200 texts and ids a search sends."""
    return "{" + ",".join('"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}"


# Candidates per statement once the question's vector is there: PostgreSQL computes one batch's cosines and text
# ranks while the next batch is being decrypted and named (see :func:`similarities`).
BATCH = 50


def send_text_ranks(question: str, texts: list[str]):
    """Send :data:`TEXT_RANK_SQL` for ``texts`` (in pipeline mode: without waiting); the cursor its rows come to."""
    cursor = connection.cursor()
    cursor.execute(TEXT_RANK_SQL, [question, array_literal(texts)])
    return cursor


def send_similarities(vector: str, question: str, memory_ids: list[uuid.UUID], texts: list[str]):
    """Send :data:`SIMILARITY_SQL` (cosine and text rank of each candidate; ``vector`` as pgvector text)."""
    cursor = connection.cursor()
    cursor.execute(SIMILARITY_SQL, [question, vector, vector_model(), array_literal(memory_ids), array_literal(texts)])
    return cursor


def send_cosines(vector: str, memory_ids: list[uuid.UUID]):
    """Send :data:`COSINE_SQL` (the cosine of each candidate; ``vector`` as pgvector text)."""
    cursor = connection.cursor()
    cursor.execute(COSINE_SQL, [vector, vector_model(), array_literal(memory_ids)])
    return cursor


def _cosine(value) -> float | None:
    return None if value is None else float(value)


def read_similarities(sent: list) -> tuple[list[float | None], list[float]]:
    """The cosines (None for a candidate without a vector) and text ranks of the statements ``sent``, in candidate
    order: per run of candidates, either ``(similarity_cursor, None)`` or ``(text_rank_cursor, cosine_cursor)``.
    Waits for what PostgreSQL has not answered yet."""
    cosines: list[float | None] = []
    ranks: list[float] = []
    for cursor, cosine_cursor in sent:
        rows = cursor.fetchall()
        if cosine_cursor is None:
            cosines += [_cosine(r[0]) for r in rows]
            ranks += [float(r[1]) for r in rows]
        else:
            cosines += [_cosine(r[0]) for r in cosine_cursor.fetchall()]
            ranks += [float(r[0]) for r in rows]
    return cosines, ranks


# How many candidates without a vector a search embeds itself (the newest first): memories written a moment ago,
# whose vectors are on their way (:class:`memory.retrieval.vectors.VectorWrites`). More than that means vectors are
# missing for another reason (a new model before ``reindex_embeddings``, a provider outage at write time); the rest
# count as dissimilar (cosine 0) and are still found by their words.
EMBED_MISSING_AT_MOST = 32


def fill_missing_cosines(cosines: list[float | None], ordered: list[Candidate], expanded: list[str],
                         question_vector: list[float]) -> list[float]:
    """Each candidate's cosine, embedding the texts (``expanded``, as they are embedded when written) of those
    without a vector; 0 for those beyond :data:`EMBED_MISSING_AT_MOST`, or all of them if the provider fails."""
    missing = sorted((i for i, c in enumerate(cosines) if c is None),
                     key=lambda i: ordered[i].created_at, reverse=True)[:EMBED_MISSING_AT_MOST]
    found: dict[int, float] = {}
    if missing:
        try:
            vectors = provider().embed([expanded[i] for i in missing])
        except EmbeddingUnavailable:
            log.warning("search without the vectors of %d new memories: provider unavailable", len(missing))
        else:
            found = {i: sum(a * b for a, b in zip(question_vector, v, strict=True))
                     for i, v in zip(missing, vectors, strict=True)}
    return [c if c is not None else found.get(i, 0.0) for i, c in enumerate(cosines)]


class Lexical(NamedTuple):
    """How a candidate's own words meet the question's, by the clinical lexicon (none of it needs a vector)."""
    concept: float
    mismatch: float
    safety: bool  # an allergy or long-term medicine: what the safety rule must include
    safety_asked: bool  # ... and the question names something a patient could be given or exposed to
    allergy_asked: bool  # an allergy, and the question speaks of allergies or reactions
    taking_asked: bool  # a long-term medicine, and the question asks what the patient takes
    name_echo: bool  # the patient's preferred name, and the question calls the patient by it


class Texts(NamedTuple):
    """What a search makes of its candidates in Python, in their order."""
    values: list[dict]  # the plaintext facts
    texts: list[str]  # their plain-language texts
    named: list[dict[str, float]]  # what each text names (lexicon concepts)
    lexical: list[Lexical]  # how each meets the question by the lexicon
    expanded: list[str]  # each text with the lexicon's class names, as it is embedded and text-ranked


def candidate_texts(ordered: list[Candidate]) -> tuple[list[dict], list[str]]:
    """Each candidate's plaintext value (decrypted) and its plain-language text."""
    values = [candidate_value(m) for m in ordered]
    texts = [fact_text(m.memory_type, v, m.type_version) for m, v in zip(ordered, values, strict=True)]
    return values, texts


# What a memory's text names is the same on every search that meets it (agents ask several questions about one
# patient): kept per process, under a digest of the text, never the text itself (a fact's words stay out of the
# cache), for at most NAMED_KEPT texts (about 10 MB), the oldest dropped first.
NAMED_KEPT = 20_000
_named: OrderedDict[bytes, dict[str, float]] = OrderedDict()
_named_lock = threading.Lock()


def name_texts(texts: list[str]) -> list[dict[str, float]]:
    """What each text names (lexicon concepts), once per text: both its expansion and its scoring use it. The
    answers are shared: read them, never change them."""
    lex = lexicon()
    out = []
    for text in texts:
        key = hashlib.blake2b(text.encode(), digest_size=16).digest()
        found = _named.get(key)
        if found is None:
            found = lex.mentions(text)
            with _named_lock:
                _named[key] = found
                if len(_named) > NAMED_KEPT:
                    _named.popitem(last=False)
        out.append(found)
    return out


def lexical_features(q: Question, batch: list[Candidate], values: list[dict],
                     named: list[dict[str, float]]) -> list[Lexical]:
    """The lexicon's part of each candidate's score, made while the question is still being embedded."""
    lex = lexicon()
    out = []
    for memory, value, names in zip(batch, values, named, strict=True):
        kind = value.get("kind") if memory.memory_class == "care_context" else None
        safety = kind in SAFETY_KINDS
        taken = kind == "long_term_indication"
        mine = names if safety else {}
        # interactions matter for what the patient takes, unless the question is about allergies or only asks
        # whether the patient takes what it names
        interacts = taken and not q.about_allergy and not q.whether_taken
        # "is she on apixaban?" asks whether she takes what it names: a related medicine she takes (warfarin) is
        # another answer's subject, not this one's
        sideways = not (taken and q.whether_taken and not q.about_allergy)
        concept = lex.relevance(q.concerns, mine, taken=interacts, sideways=sideways)
        if safety and concept > 0:
            head = lex.mentions(str(value.get(HEAD_FIELDS[kind], "")))  # a few words: not kept (a fact's value)
            concept = max(lex.relevance(q.concerns, head, taken=interacts, sideways=sideways),
                          CONTEXT_WEIGHT * concept)
        if q.about_taking and not q.about_allergy and not taken:
            concept *= KIND_DISCOUNT  # "is she on blood thinners?" is about a medicine taken, not an allergy
        mismatch = lex.mismatch(q.substances, mine, taken=interacts, sideways=sideways)
        out.append(Lexical(concept=concept, mismatch=mismatch, safety=safety,
                           safety_asked=safety and q.safety_rule, allergy_asked=q.about_allergy and kind == "allergy",
                           taking_asked=q.about_taking and taken, name_echo=_name_echo(q, memory, value)))
    return out


def _name_echo(q: Question, memory: Candidate, value: dict) -> bool:
    """Whether the question calls the patient by the name this memory holds ("Does Stan have a fistula?"). Such a
    question is about Stan, not about his name, but the name alone brings the two texts close; the scoring head
    learns how much that closeness is worth."""
    name = value.get("preferred_name") if memory.memory_type == "preferred_name" else None
    return isinstance(name, str) and bool(name.strip()) and re.search(
        rf"(?<!\w){re.escape(name.strip())}(?!\w)", q.text, re.IGNORECASE) is not None


def expand_texts(texts: list[str], named: list[dict[str, float]]) -> list[str]:
    lex = lexicon()
    return [lex.expand(t, mentioned=m) for t, m in zip(texts, named, strict=True)]


def similarities(q: Question, ordered: list[Candidate], pending: Future) -> tuple[Texts, list[float], list[float]]:
    """Each candidate's texts, cosine similarity to the question and full-text rank.

    The texts are made :data:`BATCH` candidates at a time. Once the question's vector (``pending``) is there, each
    batch's :data:`SIMILARITY_SQL` goes to PostgreSQL as soon as its texts are ready (psycopg's pipeline mode), so
    the server ranks one batch while the next is decrypted and named. Texts made while the question is still being
    embedded wait, and go in one statement when it arrives, or, if it has not when the texts are done, are
    text-ranked at once (:data:`TEXT_RANK_SQL`) and get their cosines when it does (:data:`COSINE_SQL`): on a
    machine this small, a statement running beside the embedding slows the embedding down more than it saves.
    Every value is computed per row, so the answer is the same however the batches fell."""
    made = Texts([], [], [], [], [])
    if not ordered:
        return made, [], []  # nothing to send: no pipeline (its sync is a round trip of its own)
    sent: list = []
    held_ids: list[uuid.UUID] = []
    held_texts: list[str] = []
    adapted: list[float] | None = None
    vector_text: str | None = None

    def question_vector() -> list[float]:
        """The question's vector as it meets the memories' (moved by the question adapter), made once per search
        (a provider error surfaces here)."""
        nonlocal adapted
        if adapted is None:
            adapted = adapt(pending.result())
        return adapted

    def vector() -> str:
        """:func:`question_vector` as pgvector text."""
        nonlocal vector_text
        if vector_text is None:
            vector_text = Vector(question_vector()).to_text()
        return vector_text

    connection.ensure_connection()
    with ExitStack() as cursors, connection.wrap_database_errors, connection.connection.pipeline():
        for start in range(0, len(ordered), BATCH):
            batch = ordered[start:start + BATCH]
            values, texts = candidate_texts(batch)
            named = name_texts(texts)
            made.values.extend(values)
            made.texts.extend(texts)
            made.named.extend(named)
            made.lexical.extend(lexical_features(q, batch, values, named))
            held_ids.extend(m.memory_id for m in batch)
            batch_expanded = expand_texts(texts, named)
            held_texts.extend(batch_expanded)
            made.expanded.extend(batch_expanded)
            if pending.done():
                sent.append((cursors.enter_context(send_similarities(vector(), q.expanded, held_ids, held_texts)),
                             None))
                held_ids, held_texts = [], []
        if held_ids:
            text_ranks = cursors.enter_context(send_text_ranks(q.expanded, held_texts))
            sent.append((text_ranks, cursors.enter_context(send_cosines(vector(), held_ids))))
        cosines, ranks = read_similarities(sent)
    return made, fill_missing_cosines(cosines, ordered, made.expanded, question_vector()), ranks


def uncovered_shares(q: Question, ordered: list[Candidate], made: Texts, type_texts: dict[str, str]) -> list[float]:
    """For each candidate, the share of the question's content words that neither its expanded text nor its
    type's phrases and name hold (:mod:`memory.retrieval.coverage`); the patient's own preferred name is not a
    content word."""
    names = [v["preferred_name"] for m, v in zip(ordered, made.values, strict=True)
             if m.memory_type == "preferred_name" and isinstance(v.get("preferred_name"), str)]
    coverage = Coverage(question_stems(q.text, names=names))
    if not coverage.stems:
        return [0.0] * len(ordered)
    by_type: dict[str, frozenset[str]] = {}
    shares = []
    for memory, text in zip(ordered, made.expanded, strict=True):
        kind = memory.memory_type
        if kind not in by_type:
            by_type[kind] = coverage.found(type_texts.get(kind, kind.replace("_", " ")))
        shares.append(coverage.uncovered(coverage.found(text) | by_type[kind]))
    return shares


def score_candidates(ordered: list[Candidate], made: Texts, cosines: list[float], ranks: list[float],
                     intents: TypeIntents, uncovered: list[float]) -> list[Hit]:
    """Each candidate scored by the learned head (the probability that it answers), best first; equal scores in
    memory id order, so an answer never depends on the order the rows came in. ``uncovered``: each candidate's
    :func:`uncovered_shares`."""
    best_cosine = max(cosines, default=0.0)
    best_covered = min(uncovered, default=0.0)
    hits = []
    rows = []
    for memory, value, text, cosine, text_rank, lexical, left in zip(
            ordered, made.values, made.texts, cosines, ranks, made.lexical, uncovered, strict=True):
        intent = intents.of(memory.memory_type)
        features = (cosine, text_rank, lexical.concept, lexical.mismatch, intent, intent - intents.best,
                    cosine - best_cosine, float(lexical.safety_asked), float(lexical.allergy_asked),
                    float(lexical.taking_asked), float(lexical.name_echo), left, left - best_covered,
                    1.0)  # as ranker.FEATURES
        rows.append(features)
        hits.append(Hit(memory=memory, text=text, cosine=cosine, text_rank=text_rank, score=0.0,
                        concept=lexical.concept, mismatch=lexical.mismatch, intent=intent, safety=lexical.safety,
                        value=value, features=features))
    if hits:
        for hit, score in zip(hits, ranker().scores(np.array(rows)).tolist(), strict=True):
            hit.score = score
    hits.sort(key=lambda h: (-h.score, h.memory.memory_id))  # a UUID orders as its text does, without building it
    return hits
