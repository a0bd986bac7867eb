"""Search's candidates: the deterministic filters every read uses, applied before any ranking, and the rows they
give, read in one round trip as tuples (a search reads every current memory of the patient and answers with a
few of them)."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import NamedTuple

from django.db import DEFAULT_DB_ALIAS
from django.db.models import FloatField, OuterRef, QuerySet, Subquery, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.utils import timezone
from pgvector.django import CosineDistance

from core.identity import Identity
from core.parsers import fast_loads
from memory import selectors
from memory.crypto import decrypt_fact
from memory.models import Memory, MemoryEmbedding
from memory.retrieval.vectors import vector_model


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
    raise ImportError("memory.retrieval.candidates.Candidate must list memory.selectors.ITEM_COLUMNS, "
                      "then organization_id")
_TIMESTAMPS = tuple(i for i, name in enumerate(selectors.ITEM_COLUMNS)
                    if name in {"valid_from", "valid_until", "expires_at", "review_by", "created_at"})


def candidates(*, identity: Identity, patient_id: uuid.UUID, query_vector: list[float] | None,
               purpose: str | None = None, memory_class: str | None = None, memory_types: str | None = None,
               now=None, model: str | None = None) -> QuerySet[Memory]:
    """The deterministic filters (the same ``current()`` every read uses: organisation, patient, state,
    validity, retention, consent; then purpose, class and types: ``memory_types``, names separated by commas),
    each memory annotated with its cosine similarity to the question (0 when it has no vector from the current
    model). One query; exact, no vector index.

    Without ``query_vector``, the filters alone: search reads them while the question is being embedded, then
    asks for the same cosine (:data:`memory.retrieval.scoring.SIMILARITY_SQL`) once the vector is there."""
    qs = selectors.memory_list_current(identity=identity, patient_id=patient_id, consent_purpose=purpose, now=now)
    if memory_class:
        qs = qs.filter(memory_class=memory_class)
    if memory_types:  # one parameter, however many names: the statement is compiled once for every list
        qs = qs.filter(memory_type__in=RawSQL("SELECT unnest(string_to_array(%s, ','))", [memory_types]))
    if query_vector is None:
        return qs
    distance = (MemoryEmbedding.objects.filter(memory_id=OuterRef("pk"), model=model or vector_model())
                .annotate(distance=CosineDistance("embedding", query_vector)).values("distance")[:1])
    return qs.annotate(cosine=Coalesce(1 - Subquery(distance), Value(0.0), output_field=FloatField()))


_CANDIDATES_SQL: dict[tuple[bool, bool], tuple[str, list]] = {}


def _compile_candidates(*, org_id, patient_id, purpose, memory_class, memory_types, now) -> tuple[str, list]:
    # Only the organisation of the identity shapes the query; RLS supplies the rest at run time.
    qs = candidates(identity=Identity(org_id=org_id, actor_sub="query-compiler"), patient_id=patient_id,
                    query_vector=None, purpose=purpose, memory_class=memory_class, memory_types=memory_types,
                    now=now)
    sql, params = qs.values_list(*CANDIDATE_COLUMNS).query.get_compiler(using=DEFAULT_DB_ALIAS).as_sql()
    return sql, list(params)


def candidates_sql(*, org_id: uuid.UUID, patient_id: uuid.UUID, purpose: str | None, memory_class: str | None,
                   now, memory_types: str | None = None) -> tuple[str, list]:
    """The compiled SQL of ``candidates(query_vector=None, ...).values_list(*CANDIDATE_COLUMNS)``, compiled once per
    shape, as the list's query is (:func:`memory.selectors.compiled_once`)."""
    return selectors.compiled_once(_CANDIDATES_SQL, _compile_candidates, org_id=org_id, patient_id=patient_id,
                                   now=now, purpose=purpose, memory_class=memory_class,
                                   memory_types=memory_types)


def fetch_candidates(*, identity: Identity, patient_id: uuid.UUID, purpose: str | None = None,
                     memory_class: str | None = None, memory_types: tuple[str, ...] = (),
                     audit_row: tuple[str, list] | None = None) -> list[Candidate]:
    """The candidates (of ``memory_types`` alone when given), in one round trip; ``audit_row`` (from
    :func:`core.audit.insert_statement`) travels in the same statement as a data-modifying CTE, committing or
    rolling back with the request like any audit row."""
    sql, params = candidates_sql(org_id=identity.org_id, patient_id=patient_id, purpose=purpose,
                                 memory_class=memory_class, memory_types=",".join(memory_types) or None,
                                 now=timezone.now())
    return [Candidate._make(row) for row in selectors.read_rows(sql, params, audit=audit_row, iso_timestamps=False)]


def candidate_value(memory: Candidate) -> dict | None:
    """The plaintext fact of a candidate (``fact`` arrives as JSON text), decrypting a sensitive one."""
    if memory.fact is not None:
        return fast_loads(memory.fact)
    if memory.fact_ciphertext is not None:
        return decrypt_fact(memory.fact_ciphertext, key_id=memory.fact_key_id or "", memory_id=memory.memory_id,
                            patient_id=memory.patient_id)
    return None
