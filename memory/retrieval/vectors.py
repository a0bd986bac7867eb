"""The vector copy of a memory: what a memory is embedded as, the thread that writes a new memory's vector once its
write has committed, re-embedding (``reindex_embeddings``), and the handler that removes and verifies vectors when
a memory is deleted.

Vectors are stored under :func:`vector_model` (the model and the lexicon version that expanded the text), so a new
model or lexicon means a re-index, never a silent mix of two kinds of vector."""

from __future__ import annotations

import atexit
import logging
import queue
import threading
import time
import uuid
from functools import partial

from django.db import connection, transaction

from core import maintenance, rows
from core.identity import Identity, commit_with_next_statement, identity_context
from memory import representations
from memory.embeddings import EmbeddingUnavailable, LocalMiniLM, provider
from memory.lexicon import lexicon
from memory.lifecycle import memory_value
from memory.models import Memory, MemoryEmbedding, Representation
from memory.types import fact_text

log = logging.getLogger("anamnesis.retrieval")


def vector_model() -> str:
    """The key vectors are stored under: the model and the text it embedded (fact text expanded by this lexicon
    version). A new lexicon is a re-index (``reindex_embeddings``), never a silent mix of two kinds of vector."""
    return f"{provider().name}+{lexicon().version}"


def embedding_text(memory_type: str, fact: dict, version: int | None = None) -> str:
    """What a memory is embedded and searched as: its plain-language text plus the lexicon's class names."""
    return lexicon().expand(fact_text(memory_type, fact, version))


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
    there, search embeds the memory's text itself (:func:`memory.retrieval.scoring.fill_missing_cosines`); if the
    process ends first, ``reindex_embeddings`` writes it. The text is worked out here, on the writing request's
    thread (an organisation's type is read from the database)."""
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
                # Deleted since the page was read: left alone (its deletion removed every copy and receipted it;
                # its fact is gone). The share lock makes a deletion that comes now wait, then remove this vector.
                with connection.cursor() as cursor:
                    cursor.execute(_LIVE_SQL, [memory_id, org_id])
                    live = cursor.fetchone() is not None
                memory = Memory.objects.filter(pk=memory_id).first() if live else None
                if memory is None or not memory_embed(memory=memory, fact=memory_value(memory)):
                    continue
                MemoryEmbedding.objects.filter(memory_id=memory_id).exclude(model=model).delete()
                done += 1
            if progress:
                progress(1)


def _vector_remove(rep: Representation) -> None:
    MemoryEmbedding.objects.filter(memory_id=rep.memory_id).delete()


def _vector_verify(rep: Representation) -> bool:
    return not MemoryEmbedding.objects.filter(memory_id=rep.memory_id).exists()


representations.register(Representation.Target.VECTOR,
                         representations.Handler(remove=_vector_remove, verify=_vector_verify))
