"""Retrieval by meaning: embeddings as representations of memories, deterministic filters first, then exact
ranking of the candidates by cosine similarity blended with PostgreSQL full-text rank and the clinical lexicon's
concept match; context packs for prompts, each recorded as a release.

Two rules come before ranking. **Safety**: a question that names a medicine, vaccine, contrast agent, food,
material or procedure (the lexicon decides) gets every current allergy, intolerance and long-term medicine the
caller may see, flagged ``fetch_live``, whatever their score. **No silent empty answers**: hits carry a confidence
band; when nothing reaches the calibrated threshold, search still answers its best few, marked ``low``."""

from __future__ import annotations

import atexit
import json
import logging
import queue
import re
import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import lru_cache, partial
from pathlib import Path
from typing import NamedTuple

from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.db.models import FloatField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from pgvector import Vector
from pgvector.django import CosineDistance

from consent.access import may_access
from core import audit, maintenance, rows
from core.errors import NoConsentOrAccess
from core.identity import Identity, commit_with_next_statement, identity_context
from core.parsers import fast_loads
from memory import representations, selectors
from memory.crypto import decrypt_fact
from memory.embeddings import EmbeddingUnavailable, LocalMiniLM, provider
from memory.guardrails import FETCH_LIVE_NOTE, guardrails_for
from memory.lexicon import lexicon
from memory.lifecycle import memory_value
from memory.models import Memory, MemoryEmbedding, Release, ReleaseMember, Representation
from memory.types import fact_text

log = logging.getLogger("anamnesis.retrieval")
CALIBRATION_FILE = Path(__file__).with_name("retrieval_calibration.json")


@dataclass(frozen=True)
class Calibration:
    min_score: float
    cosine_weight: float
    text_weight: float
    relative_cutoff: float
    limit: int
    concept_weight: float = 0.0
    mismatch_weight: float = 0.0
    low_limit: int = 3


@lru_cache(maxsize=1)
def calibration() -> Calibration:
    """Threshold and blend weights measured on the evaluation set (``manage.py evaluate_retrieval --write``)."""
    data = json.loads(CALIBRATION_FILE.read_text())
    return Calibration(min_score=data["min_score"], cosine_weight=data["cosine_weight"],
                       text_weight=data["text_weight"], relative_cutoff=data.get("relative_cutoff", 0.0),
                       limit=data.get("limit", 5), concept_weight=data.get("concept_weight", 0.0),
                       mismatch_weight=data.get("mismatch_weight", 0.0),
                       low_limit=data.get("low_limit", 3))


HIGH, LOW = "high", "low"
RELEVANCE, SAFETY_RULE = "relevance", "safety_rule"
SAFETY_KINDS = ("allergy", "long_term_indication")
SAFETY_NOTE = ("Safety: the question concerns a medicine, vaccine, contrast agent, food, material or procedure, so "
               "every current allergy, intolerance and long-term medicine on record is included whatever its score; "
               "check each against what is planned.")


def vector_model() -> str:
    """The key vectors are stored under: the model and the text it embedded (fact text expanded by this lexicon
    version). A new lexicon is a re-index (``reindex_embeddings``), never a silent mix of two kinds of vector."""
    return f"{provider().name}+{lexicon().version}"


def embedding_text(memory_type: str, fact: dict, version: int | None = None) -> str:
    """What a memory is embedded and searched as: its plain-language text plus the lexicon's class names."""
    return lexicon().expand(fact_text(memory_type, fact, version))


@lru_cache(maxsize=512)
def _query_vector(model: str, text: str) -> tuple[float, ...]:
    [vector] = provider().embed([text])
    return tuple(vector)


def query_vector(text: str) -> list[float]:
    """A question's vector; recent ones are kept (agents repeat questions across turns and patients). Provider
    errors are not cached."""
    return list(_query_vector(vector_model(), text))


# --- the vector copy of a memory ---------------------------------------------------------------------------------

def _vector_of(memory: Memory, fact: dict) -> list[float] | None:
    """The memory's vector, or None when the provider is unavailable: the memory is kept without one
    (``reindex_embeddings`` finds it later) rather than refused."""
    try:
        [value] = provider().embed([embedding_text(memory.memory_type, fact, memory.type_version)])
    except EmbeddingUnavailable:
        log.warning("memory stored without embedding: provider unavailable")
        return None
    return value


def memory_vector_copy(memory: Memory) -> Representation:
    """The record of a new memory's vector copy, written with the memory (``core.rows``) before the vector itself
    is (:func:`memory_vector_later`): a deletion that comes first removes and verifies it like any vector copy, and
    its receipt names it. One record per memory, whatever the model: its handler removes every vector of the
    memory."""
    return representations.copy_row(memory=memory, target=Representation.Target.VECTOR,
                                    external_id=f"memory_embedding:{memory.memory_id}")


def memory_vector_later(memory: Memory, fact: dict) -> None:
    """Have a new memory's vector written once its transaction has committed, by this process's vector writer
    (:class:`VectorWrites`): the write that makes the memory does not wait for the model. Until the vector is
    there, search embeds the memory's text itself (:func:`fill_missing_cosines`); if the process ends first,
    ``reindex_embeddings`` writes it. The text is worked out here, on the writing request's thread (an
    organisation's type is read from the database)."""
    text = embedding_text(memory.memory_type, fact, memory.type_version)
    transaction.on_commit(partial(vector_writes.put, memory, text))


# A new memory's vector goes in only while the memory is there: the share lock waits for a deletion, expiry or
# supersession that holds the row, and a deleted memory gets none (its deletion has removed what there was); a
# deletion that comes after waits for the vector's transaction, then removes the vector with the other copies.
_LIVE_SQL = ("SELECT memory_id FROM patient_memory WHERE memory_id = %s AND organization_id = %s "
             "AND state <> 'deleted' FOR SHARE")


def _vector_write(memory: Memory, value: list[float]) -> bool:
    """Write the vector of a memory whose transaction committed, under a service identity scoped to its patient and
    purpose, in one round trip (identity, share lock, insert and commit travel together). False when the memory is
    gone or already has a vector of this model."""
    row = MemoryEmbedding(memory_id=memory.memory_id, model=vector_model(), organization_id=memory.organization_id,
                          patient_id=memory.patient_id, purpose=memory.consent_purpose, embedding=value)
    sql, params = rows.statement([("live", (_LIVE_SQL, [memory.memory_id, memory.organization_id])),
                                  ("vector", rows.insert(row, source="live"))])
    identity = Identity.service(org_id=memory.organization_id, name="memory-vector", patient_id=memory.patient_id,
                                purpose=memory.consent_purpose)
    with identity_context(identity, commit_early=True), connection.cursor() as cursor:
        commit_with_next_statement()
        cursor.execute(f"{sql} ON CONFLICT DO NOTHING", params)
        return cursor.rowcount == 1


class VectorWrites:
    """New memories' vectors, made and written by one thread per process after each memory's transaction commits.

    The thread gathers the memories written within :data:`GATHER_SECONDS` of each other (at most :data:`BATCH`)
    and has the model embed them in one call: most of a short text's cost is the call itself, so a memory's
    vector costs about half as much in a batch of four as alone. Each vector is then written in its own
    transaction (:func:`_vector_write`). A failure is logged (its kind only) and leaves the memories without
    vectors, as an unavailable provider does. :meth:`wait` returns once every vector handed over so far is
    written or given up on (tests, evaluation, and the process's exit, which waits a few seconds)."""

    GATHER_SECONDS = 0.1
    BATCH = LocalMiniLM.SMALL_CALL
    EXIT_WAIT_SECONDS = 10.0
    IDLE_SECONDS = 1.0  # the thread's database connection goes back after this long without work

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Memory, str]] = queue.SimpleQueue()
        self._pending = 0
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None  # started by the first write (after a fork, again)
        atexit.register(self.wait, self.EXIT_WAIT_SECONDS)

    def put(self, memory: Memory, text: str) -> None:
        with self._changed:
            self._pending += 1
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="memory-vector-writer", daemon=True)
                self._thread.start()
        self._jobs.put((memory, text))

    def wait(self, timeout: float | None = None) -> bool:
        """Whether every vector handed over so far is written (or given up on), waiting up to ``timeout``."""
        with self._changed:
            return self._changed.wait_for(lambda: self._pending == 0, timeout)

    def _gather(self) -> list[tuple[Memory, str]]:
        batch = [self._jobs.get(timeout=self.IDLE_SECONDS)]
        deadline = time.monotonic() + self.GATHER_SECONDS
        while len(batch) < self.BATCH and (left := deadline - time.monotonic()) > 0:
            try:
                batch.append(self._jobs.get(timeout=left))
            except queue.Empty:
                break
        return batch

    def _serve(self) -> None:
        while True:
            try:
                batch = self._gather()
            except queue.Empty:
                connection.close()  # nothing to write for a while: the connection goes back to the pool
                continue
            try:
                self._write(batch)
            finally:
                with self._changed:
                    self._pending -= len(batch)
                    self._changed.notify_all()

    @staticmethod
    def _write(batch: list[tuple[Memory, str]]) -> None:
        try:
            vectors = provider().embed([text for _, text in batch])
        except EmbeddingUnavailable:
            log.warning("%d memories stored without embedding: provider unavailable", len(batch))
            return
        except Exception as exc:  # noqa: BLE001 (the memories stay without vectors; reindexing writes them)
            log.warning("%d memories stored without embedding: %s", len(batch), type(exc).__name__)
            return
        for (memory, _), vector in zip(batch, vectors, strict=True):
            try:
                _vector_write(memory, vector)
            except Exception as exc:  # noqa: BLE001 (as above, for this memory)
                log.warning("memory vector not written: %s", type(exc).__name__)
                connection.close()


vector_writes = VectorWrites()


def memory_embed(*, memory: Memory, fact: dict) -> bool:
    """Embed an existing memory's text (again) and record the vector as a representation; False when the provider
    is unavailable."""
    value = _vector_of(memory, fact)
    if value is None:
        return False
    fields = {"organization_id": memory.organization_id, "patient_id": memory.patient_id,
              "purpose": memory.consent_purpose, "embedding": value}
    MemoryEmbedding.objects.update_or_create(memory_id=memory.memory_id, model=vector_model(), defaults=fields)
    representations.representation_add(memory=memory, target=Representation.Target.VECTOR,
                                        external_id=f"memory_embedding:{memory.memory_id}")
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

@dataclass(eq=False)
class Hit:
    memory: Candidate
    text: str
    cosine: float
    text_rank: float
    score: float
    concept: float = 0.0
    mismatch: float = 0.0
    safety: bool = False  # an allergy or long-term medicine: what the safety rule must include
    confidence: str = HIGH
    included_by: str = RELEVANCE
    value: dict | None = None  # the plaintext fact


def candidates(*, identity: Identity, patient_id: uuid.UUID, query_vector: list[float] | None,
               purpose: str | None = None, memory_class: str | None = None, now=None,
               model: str | None = None) -> QuerySet[Memory]:
    """The deterministic filters (the same ``current()`` every read uses: organisation, patient, state,
    validity, retention, consent; then purpose and class), each memory annotated with its cosine similarity to
    the question (0 when it has no vector from the current model). One query; exact, no vector index.

    Without ``query_vector``, the filters alone: search reads them while the question is being embedded, then
    asks for the same cosine (:data:`SIMILARITY_SQL`) once the vector is there."""
    qs = selectors.memory_list_current(identity=identity, patient_id=patient_id, consent_purpose=purpose, now=now)
    if memory_class:
        qs = qs.filter(memory_class=memory_class)
    if query_vector is None:
        return qs
    distance = (MemoryEmbedding.objects.filter(memory_id=OuterRef("pk"), model=model or vector_model())
                .annotate(distance=CosineDistance("embedding", query_vector)).values("distance")[:1])
    return qs.annotate(cosine=Coalesce(1 - Subquery(distance), Value(0.0), output_field=FloatField()))

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


def blend(cosine: float, text_rank: float, cosine_weight: float, text_weight: float, concept: float = 0.0,
          concept_weight: float = 0.0, mismatch: float = 0.0, mismatch_weight: float = 0.0) -> float:
    return cosine_weight * cosine + text_weight * text_rank + concept_weight * concept - mismatch_weight * mismatch


KIND_DISCOUNT = 0.5
_ALLERGY_WORDS = re.compile(r"\b(?:allerg\w*|intoleran\w*|react\w*|sensitiv\w*|anaphyla\w*|hypersensitiv\w*)",
                            re.IGNORECASE)
_TAKING_WORDS = re.compile(r"\b(?:is|are|he's|she's|they're|currently|still|been)\s+(?:\w+\s+){0,2}on\b"
                           r"|\b(?:taking|take|takes|took|prescribed|using|uses|therapy|treated|treatment|"
                           r"regular|long-term|maintenance|anticoagulated|dose|doses|dosing|level|levels|monitoring)\b",
                           re.IGNORECASE)


def asks_about_allergy(question: str) -> bool:
    return bool(_ALLERGY_WORDS.search(question))


def asks_about_taking(question: str) -> bool:
    return bool(_TAKING_WORDS.search(question))


def safety_rule_applies(question: str) -> bool:
    """The question names something a patient could be given or exposed to (lexicon: medicines and their
    classes, vaccines, contrast agents, foods, materials, procedures, and the products they hide in)."""
    return bool(lexicon().mentions(question))


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
# whose vectors are on their way (:class:`VectorWrites`). More than that means vectors are missing for another
# reason (a new model before ``reindex_embeddings``, a provider outage at write time); the rest count as
# dissimilar (cosine 0) and are still found by their words.
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


class Texts(NamedTuple):
    """What a search makes of its candidates in Python, in their order."""
    values: list[dict]  # the plaintext facts
    texts: list[str]  # their plain-language texts
    named: list[dict[str, float]]  # what each text names (lexicon concepts)


def similarities(q: Question, ordered: list[Candidate], pending: Future) -> tuple[Texts, list[float], list[float]]:
    """Each candidate's texts, cosine similarity to the question and full-text rank.

    The texts are made :data:`BATCH` candidates at a time. Once the question's vector (``pending``) is there, each
    batch's :data:`SIMILARITY_SQL` goes to PostgreSQL as soon as its texts are ready (psycopg's pipeline mode), so
    the server ranks one batch while the next is decrypted and named. Texts made while the question is still being
    embedded wait, and go in one statement when it arrives, or, if it has not when the texts are done, are
    text-ranked at once (:data:`TEXT_RANK_SQL`) and get their cosines when it does (:data:`COSINE_SQL`): on a
    machine this small, a statement running beside the embedding slows the embedding down more than it saves.
    Every value is computed per row, so the answer is the same however the batches fell."""
    made = Texts([], [], [])
    if not ordered:
        return made, [], []  # nothing to send: no pipeline (its sync is a round trip of its own)
    sent: list = []
    held_ids: list[uuid.UUID] = []
    held_texts: list[str] = []
    expanded: list[str] = []
    connection.ensure_connection()
    with ExitStack() as cursors, connection.wrap_database_errors, connection.connection.pipeline():
        for start in range(0, len(ordered), BATCH):
            batch = ordered[start:start + BATCH]
            values, texts = candidate_texts(batch)
            named = name_texts(texts)
            made.values.extend(values)
            made.texts.extend(texts)
            made.named.extend(named)
            held_ids.extend(m.memory_id for m in batch)
            batch_expanded = expand_texts(texts, named)
            held_texts.extend(batch_expanded)
            expanded.extend(batch_expanded)
            if pending.done():
                vector = Vector(pending.result()).to_text()  # a provider error surfaces here
                sent.append((cursors.enter_context(send_similarities(vector, q.expanded, held_ids, held_texts)),
                             None))
                held_ids, held_texts = [], []
        if held_ids:
            text_ranks = cursors.enter_context(send_text_ranks(q.expanded, held_texts))
            vector = Vector(pending.result()).to_text()
            sent.append((text_ranks, cursors.enter_context(send_cosines(vector, held_ids))))
        cosines, ranks = read_similarities(sent)
    return made, fill_missing_cosines(cosines, ordered, expanded, pending.result()), ranks


@dataclass(frozen=True)
class Question:
    """What the lexicon reads in a question, once per search."""
    text: str
    expanded: str  # the question plus the class names of what it names: what is embedded and text-ranked
    asked: dict[str, float]  # concepts named, monitoring tests included
    substances: dict[str, float]  # concepts named, without monitoring tests
    about_allergy: bool
    about_taking: bool


def understand(question: str) -> Question:
    lex = lexicon()
    return Question(text=question, expanded=lex.expand(question), asked=lex.mentions(question),
                    substances=lex.mentions(question, tests=False), about_allergy=asks_about_allergy(question),
                    about_taking=asks_about_taking(question))


class Candidate(NamedTuple):
    """One candidate memory as the search query read it: the columns of an API memory item, then the organisation
    (``CANDIDATE_COLUMNS``; attributes named as on :class:`Memory`, ``fact`` as JSON text, timestamps as
    PostgreSQL's text in UTC: :attr:`row` renders them as the API does, for the few that are answered). A tuple,
    not a model instance: a search reads every current memory of the patient, and builds an answer from a few of
    them. Its repr names the memory only, never a value."""

    memory_id: uuid.UUID
    patient_id: uuid.UUID
    memory_class: str
    memory_type: str
    type_version: int
    attribute: str
    fact: str | None
    fact_ciphertext: bytes | None
    fact_key_id: str | None
    state: str
    source: str
    source_ref: str
    confidence: Decimal
    policy_revision: str
    consent_purpose: str
    consent_record_id: uuid.UUID | None
    valid_from: str
    valid_until: str | None
    expires_at: str | None
    review_by: str | None
    superseded_by_id: uuid.UUID | None
    created_by: str
    agent_client_id: str | None
    created_at: str
    organization_id: uuid.UUID

    @property
    def row(self) -> tuple:
        """What memory.api.memory_item renders (timestamps as ISO 8601 text in UTC)."""
        row = list(self[:len(selectors.ITEM_COLUMNS)])
        for i in _TIMESTAMPS:
            if row[i] is not None:
                row[i] = selectors.utc_iso(row[i])
        return tuple(row)

    def __repr__(self) -> str:
        return f"<Candidate {self.memory_id}>"


# What a search reads of each candidate: the columns of an API memory item, then the organisation.
CANDIDATE_COLUMNS = Candidate._fields
if CANDIDATE_COLUMNS != (*selectors.ITEM_COLUMNS, "organization_id"):
    raise ImportError("memory.retrieval.Candidate must list memory.selectors.ITEM_COLUMNS, then organization_id")
_TIMESTAMPS = tuple(i for i, name in enumerate(selectors.ITEM_COLUMNS)
                    if name in {"valid_from", "valid_until", "expires_at", "review_by", "created_at"})


_CANDIDATES_SQL: dict[tuple[bool, bool], tuple[str, list]] = {}


def _compile_candidates(*, org_id, patient_id, purpose, memory_class, now) -> tuple[str, list]:
    # Only the organisation of the identity shapes the query; RLS supplies the rest at run time.
    qs = candidates(identity=Identity(org_id=org_id, actor_sub="query-compiler"), patient_id=patient_id,
                    query_vector=None, purpose=purpose, memory_class=memory_class, now=now)
    sql, params = qs.values_list(*CANDIDATE_COLUMNS).query.get_compiler(using=DEFAULT_DB_ALIAS).as_sql()
    return sql, list(params)


def candidates_sql(*, org_id: uuid.UUID, patient_id: uuid.UUID, purpose: str | None, memory_class: str | None,
                   now) -> tuple[str, list]:
    """The compiled SQL of ``candidates(query_vector=None, ...).values_list(*CANDIDATE_COLUMNS)``, compiled once per
    shape, as the list's query is (:func:`memory.selectors.compiled_once`)."""
    return selectors.compiled_once(_CANDIDATES_SQL, _compile_candidates, org_id=org_id, patient_id=patient_id,
                                   now=now, purpose=purpose, memory_class=memory_class)


def fetch_candidates(*, identity: Identity, patient_id: uuid.UUID, purpose: str | None = None,
                     memory_class: str | None = None, audit_row: tuple[str, list] | None = None) -> list[Candidate]:
    """The candidates, in one round trip; ``audit_row`` (from :func:`core.audit.insert_statement`) travels in the
    same statement as a data-modifying CTE, committing or rolling back with the request like any audit row."""
    sql, params = candidates_sql(org_id=identity.org_id, patient_id=patient_id, purpose=purpose,
                                 memory_class=memory_class, now=timezone.now())
    return [Candidate._make(row) for row in selectors.read_rows(sql, params, audit=audit_row, iso_timestamps=False)]


def _value(memory: Candidate) -> dict | None:
    """The plaintext fact of a candidate (``fact`` arrives as JSON text), decrypting a sensitive one."""
    if memory.fact is not None:
        return fast_loads(memory.fact)
    if memory.fact_ciphertext is not None:
        return decrypt_fact(memory.fact_ciphertext, key_id=memory.fact_key_id or "", memory_id=memory.memory_id,
                            patient_id=memory.patient_id)
    return None


def candidate_texts(ordered: list[Candidate]) -> tuple[list[dict], list[str]]:
    """Each candidate's plaintext value (decrypted) and its plain-language text."""
    values = [_value(m) for m in ordered]
    texts = [fact_text(m.memory_type, v, m.type_version) for m, v in zip(ordered, values, strict=True)]
    return values, texts


def name_texts(texts: list[str]) -> list[dict[str, float]]:
    """What each text names (lexicon concepts), once per text: both its expansion and its scoring use it."""
    lex = lexicon()
    return [lex.mentions(t) for t in texts]


def expand_texts(texts: list[str], named: list[dict[str, float]]) -> list[str]:
    lex = lexicon()
    return [lex.expand(t, mentioned=m) for t, m in zip(texts, named, strict=True)]


def score_candidates(q: Question, ordered: list[Candidate], values: list[dict], texts: list[str],
                     cosines: list[float], ranks: list[float], mentioned: list[dict[str, float]]) -> list[Hit]:
    lex = lexicon()
    cal = calibration()
    hits = []
    for memory, value, text, cosine, text_rank, names in zip(ordered, values, texts, cosines, ranks, mentioned,
                                                              strict=True):
        safety = memory.memory_class == "care_context" and value.get("kind") in SAFETY_KINDS
        named = names if safety else {}
        taken = value.get("kind") == "long_term_indication"
        # interactions matter for what the patient takes, unless the question is about allergies
        concept = lex.relevance(q.asked, named, taken=taken and not q.about_allergy)
        if q.about_taking and not q.about_allergy and not taken:
            concept *= KIND_DISCOUNT  # "is she on blood thinners?" is about a medicine taken, not an allergy
        mismatch = lex.mismatch(q.substances, named, taken=taken)
        # an exact word match (a drug, "INR") lifts a weak cosine: ts_rank is about 0.06 per shared word; a named
        # class that meets the memory's (Bactrim and a sulfonamide allergy) lifts it further
        score = blend(cosine, text_rank, cal.cosine_weight, cal.text_weight, concept, cal.concept_weight, mismatch,
                      cal.mismatch_weight)
        hits.append(Hit(memory=memory, text=text, cosine=cosine, text_rank=text_rank, score=score, concept=concept,
                        mismatch=mismatch, safety=safety, value=value))
    hits.sort(key=lambda h: (-h.score, h.memory.memory_id))  # a UUID orders as its text does, without building it
    return hits


def rank_candidates(*, identity: Identity, patient_id: uuid.UUID, question: str, purpose: str | None = None,
                    memory_class: str | None = None, audit_row: tuple[str, list] | None = None) -> list[Hit]:
    """Every current memory of the patient that the caller may see, with its cosine similarity to the question
    and its full-text rank. Filters are deterministic and applied first (organisation, patient, purpose, class,
    state, validity, consent); ranking is exact over that small set.

    Each step is a module-level function looked up at call time (``bench.retrieval_api`` times them one by one)."""
    q = understand(question)
    # The question is embedded (over HTTP, by the machine's embedding server) while the candidates are read,
    # decrypted, named and text-ranked: the waits overlap instead of adding up.
    pending = _embedder().submit(query_vector, q.expanded)
    try:
        ordered = fetch_candidates(identity=identity, patient_id=patient_id, purpose=purpose,
                                   memory_class=memory_class, audit_row=audit_row)
        made, cosines, ranks = similarities(q, ordered, pending)
    finally:
        wait([pending])  # never leave the question's embedding running behind the request
    pending.result()  # a provider error surfaces even when there was nothing to rank
    return score_candidates(q, ordered, made.values, made.texts, cosines, ranks, made.named)


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


def select_hits(ranked: list[Hit], *, question: str, limit: int | None = None,
                min_score: float | None = None) -> list[Hit]:
    """From hits ranked best first: those that reach the threshold (``high``), or else the best few (``low``);
    then, when the question names something a patient could be given or exposed to, every allergy and long-term
    medicine among the candidates, whatever its score (``included_by: safety_rule``). Best first."""
    cal = calibration()
    threshold = cal.min_score if min_score is None else min_score
    if min_score is None and ranked:
        # with many memories, keep only hits close to the best one (calibrated on the evaluation set)
        threshold = max(threshold, cal.relative_cutoff * ranked[0].score)
    chosen = [h for h in ranked if h.score >= threshold][: (limit or cal.limit)]
    for h in chosen:
        h.confidence, h.included_by = HIGH, RELEVANCE
    if not chosen:
        chosen = ranked[: min(limit or cal.low_limit, cal.low_limit)]
        for h in chosen:
            h.confidence, h.included_by = LOW, RELEVANCE
    if safety_rule_applies(question):
        # every allergy and long-term medicine, also one already among the low-confidence best guesses: those
        # are left out of context packs, a safety inclusion never is
        taken = {id(h) for h in chosen}
        for h in ranked:
            if not h.safety or (id(h) in taken and h.confidence == HIGH):
                continue
            h.confidence = HIGH if h.score >= threshold else LOW
            h.included_by = SAFETY_RULE
            if id(h) not in taken:
                chosen.append(h)
    chosen.sort(key=lambda h: (-h.score, h.memory.memory_id))
    return chosen


def confidence_of(hits: list[Hit]) -> str:
    """The answer's band: ``high`` when a hit reached the threshold on relevance, ``low`` when only the best
    guesses (or safety inclusions) are there, ``none`` when the patient has nothing the caller may see."""
    if any(h.confidence == HIGH and h.included_by == RELEVANCE for h in hits):
        return HIGH
    return LOW if hits else "none"


def memory_search(*, identity: Identity, patient_id: uuid.UUID, question: str, limit: int | None = None,
                  min_score: float | None = None, purpose: str | None = None,
                  memory_class: str | None = None) -> list[Hit]:
    """Ranked and selected hits; the ``memory.search`` audit row is written by the candidates query itself, in
    the request's transaction."""
    row = audit.insert_statement(action="memory.search", resource_type="memory", patient_id=patient_id,
                                 purpose=purpose, outcome_by_access=True)
    ranked = rank_candidates(identity=identity, patient_id=patient_id, question=question, purpose=purpose,
                             memory_class=memory_class, audit_row=row)
    return select_hits(ranked, question=question, limit=limit, min_score=min_score)


# --- context packs ------------------------------------------------------------------------------------------------

def _moment(text: str) -> datetime:
    """A candidate's timestamp (PostgreSQL's text, in UTC) as the aware datetime the model would hold."""
    return datetime.fromisoformat(text)


def _block(hits: list[Hit], notes: list[str]) -> str:
    """The ready-to-insert text. Cites memory ids; never names the patient or their identifier."""
    if not hits:
        return "Known facts about this patient: none relevant on record."
    lines = ["Known facts about this patient (from governed memory; cite the [memory id] you use):"]
    for hit in hits:
        m = hit.memory
        provenance = f"{m.source.replace('_', ' ')}, recorded {_moment(m.valid_from).date().isoformat()}"
        if m.valid_until:
            provenance += f", valid until {_moment(m.valid_until).date().isoformat()}"
        lines.append(f"- [{m.memory_id}] {hit.text} ({provenance})")
    lines.extend(f"Note: {note}" for note in notes)
    return "\n".join(lines)


def context_pack(*, identity: Identity, patient_id: uuid.UUID, question: str, purpose: str,
                 limit: int | None = None, session_id: uuid.UUID | None = None) -> dict:
    """The smallest relevant context for a prompt, recorded as a release (which memories went to which agent,
    for which purpose, when) so deletion can reach it and the patient can see what was disclosed."""
    if not may_access(patient_id=patient_id, purpose=purpose):
        raise NoConsentOrAccess()
    found = memory_search(identity=identity, patient_id=patient_id, question=question, limit=limit)
    # Purpose limitation: memories kept for this purpose, plus clinical context the caller may see (safety).
    found = [h for h in found if h.memory.consent_purpose == purpose or h.memory.memory_class == "care_context"]
    # A prompt gets what reached the threshold and what the safety rule requires; best guesses stay out, counted.
    hits = [h for h in found if h.confidence == HIGH or h.included_by == SAFETY_RULE]
    left_out = len(found) - len(hits)
    notes = sorted({FETCH_LIVE_NOTE for h in hits if guardrails_for(h.memory.memory_class)["fetch_live"]})
    if safety_rule_applies(question) and any(h.safety for h in hits):
        notes.append(SAFETY_NOTE)
    release = Release.objects.create(organization_id=identity.org_id, patient_id=patient_id, purpose=purpose,
                                     actor_sub=identity.actor_sub, agent_client_id=identity.agent_client_id,
                                     session_id=session_id)
    for hit in hits:
        ReleaseMember.objects.create(release=release, memory_id=hit.memory.memory_id, organization_id=identity.org_id,
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
                   "valid_from": _moment(h.memory.valid_from).isoformat(),
                   "valid_until": _moment(h.memory.valid_until).isoformat() if h.memory.valid_until else None,
                   "score": round(h.score, 4), "guardrails": guardrails_for(h.memory.memory_class),
                   "confidence": h.confidence, "included_by": h.included_by} for h in hits],
        "guardrail_notes": notes,
        "confidence": confidence_of(found),
        "safety_rule_applied": safety_rule_applies(question),
        "left_out_low_confidence": left_out,
        "text": _block(hits, notes),
    }


def memory_reindex(*, batch: int = 200, progress=None) -> int:
    """Embed every live memory that has no vector from the current model (after a model change, or after the
    provider was down at write time). Idempotent. Discovery walks live memories once, in key order, through the
    narrow 'reindex' maintenance policy (ids only); each one is checked and embedded under a service identity
    scoped to its patient and purpose."""
    model = vector_model()
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
