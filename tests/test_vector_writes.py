"""A new memory's vector is made and written after its write commits (memory.retrieval.vectors.VectorWrites): the write
does not wait for the model, search finds the memory by meaning meanwhile, a deletion that comes first leaves no vector
behind, and memories written together are embedded in one call."""

from __future__ import annotations

import logging
import threading

import pytest
from django.core.management import call_command

from core.identity import ACTOR_PATIENT, Identity, identity_context
from memory import embeddings
from memory.models import MemoryEmbedding, Representation
from memory.retrieval import scoring, vectors
from memory.retrieval.question import understand
from memory.retrieval.search import rank_candidates
from memory.retrieval.vectors import vector_writes
from tests.conftest import admin_connect, memory_body
from tests.fakes.embeddings import FakeEmbeddings

pytestmark = pytest.mark.django_db(transaction=True)


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


@pytest.fixture
def held_writer(monkeypatch):
    """The vector writer waits (with what it gathered) until ``release()``; what it embedded, call by call."""
    release = threading.Event()
    calls: list[list[str]] = []
    write = vector_writes._write

    def held(batch):
        release.wait(timeout=30)
        calls.append([text for _, text in batch])
        write(batch)

    monkeypatch.setattr(vector_writes, "_write", held)
    held.release, held.calls = release.set, calls  # type: ignore[attr-defined]
    yield held
    release.set()
    assert vector_writes.wait(timeout=30)


def vectors_stored(memory_id) -> int:
    """Vectors of the memory, counted past row-level security (nothing may hide one)."""
    with admin_connect() as conn:
        return conn.execute("SELECT count(*) FROM memory_embedding WHERE memory_id = %s", [memory_id]).fetchone()[0]


def patient(world) -> Identity:
    return Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a,
                    scopes=frozenset({"memory:read"}), actor_kind=ACTOR_PATIENT)


def test_a_write_answers_before_its_vector_and_search_finds_it_meanwhile(world, held_writer):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    created = api.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00"))
    assert created.status_code == 201, created.content
    memory_id = created.json()["memory_id"]
    assert vectors_stored(memory_id) == 0
    with identity_context(patient(world)):  # the vector's record is written with the memory
        assert Representation.objects.filter(memory_id=memory_id, target="vector").count() == 1

    question = "can I come in before ten in the morning?"
    with identity_context(patient(world)):
        meanwhile = rank_candidates(identity=patient(world), patient_id=world.patient_a, question=understand(question))
    held_writer.release()
    assert vector_writes.wait(timeout=30)
    assert vectors_stored(memory_id) == 1
    with identity_context(patient(world)):
        written = rank_candidates(identity=patient(world), patient_id=world.patient_a, question=understand(question))
    assert [str(h.memory.memory_id) for h in meanwhile] == [memory_id]
    assert meanwhile[0].cosine > 0.2
    assert meanwhile[0].cosine == pytest.approx(written[0].cosine, abs=1e-5)
    assert meanwhile[0].score == pytest.approx(written[0].score, abs=1e-5)
    found = api.get(f"{mem(world.patient_a)}/search", {"q": question}).json()["items"]
    assert [i["memory"]["memory_id"] for i in found] == [memory_id]


def test_a_memory_deleted_before_its_vector_is_written_never_gets_one(world, held_writer):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    memory_id = api.post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    receipt = api.client.delete(f"{mem(world.patient_a)}/{memory_id}",
                                HTTP_AUTHORIZATION=f"Bearer {api.token}").json()
    vector_lines = [line for line in receipt["representations"] if line["target"] == "vector"]
    assert len(vector_lines) == 1 and vector_lines[0]["state"] == "verified", receipt
    held_writer.release()
    assert vector_writes.wait(timeout=30)
    assert held_writer.calls, "the writer ran"
    assert vectors_stored(memory_id) == 0


def test_a_deletion_waits_for_a_vector_being_written_and_removes_it(world, monkeypatch):
    """The writer's share lock holds the memory while its vector goes in; a deletion in the meantime waits for it,
    then finds the vector and removes it."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    inserting, go_on = threading.Event(), threading.Event()
    write = vectors._vector_write

    def slow(memory, value):
        from django.db import connection

        def held(execute, sql, params, many, context):
            result = execute(sql, params, many, context)
            if "memory_embedding" in sql:
                inserting.set()
                go_on.wait(timeout=30)
            return result
        with connection.execute_wrapper(held):
            return write(memory, value)

    monkeypatch.setattr(vectors, "_vector_write", slow)
    monkeypatch.setattr(vectors, "commit_with_next_statement", lambda: None)  # commits as its block ends
    memory_id = api.post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    assert inserting.wait(timeout=30)
    answers: list = []
    deleting = threading.Thread(target=lambda: answers.append(api.client.delete(
        f"{mem(world.patient_a)}/{memory_id}", HTTP_AUTHORIZATION=f"Bearer {api.token}")))
    deleting.start()
    deleting.join(timeout=1.0)
    assert deleting.is_alive(), "the deletion waits for the vector's transaction"
    go_on.set()
    deleting.join(timeout=30)
    assert vector_writes.wait(timeout=30)
    assert answers[0].status_code == 200, answers[0].content
    assert vectors_stored(memory_id) == 0


def test_memories_written_together_are_embedded_in_one_call(world, held_writer, monkeypatch):
    monkeypatch.setattr(vector_writes, "GATHER_SECONDS", 30.0)  # however slowly the two writes come
    monkeypatch.setattr(vector_writes, "BATCH", 2)
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    ids = [api.post(mem(world.patient_a), memory_body(cid, kind, at)).json()["memory_id"]
           for kind, at in (("earliest_time", "09:00"), ("latest_time", "16:00"))]
    held_writer.release()
    assert vector_writes.wait(timeout=30)
    assert [len(call) for call in held_writer.calls] == [2]
    assert [vectors_stored(i) for i in ids] == [1, 1]


def test_a_provider_down_when_the_vector_is_due_leaves_the_memory_to_reindexing(world, monkeypatch, caplog):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    fake = FakeEmbeddings()
    fake.stop()
    down = embeddings._Timed(embeddings.OpenAICompatible(base_url=fake.url, model=embeddings.LocalMiniLM.name,
                                                         api_key="", timeout=1), "openai")
    up = embeddings.provider()
    monkeypatch.setattr(embeddings, "_provider", down)
    with caplog.at_level(logging.WARNING, logger="anamnesis.retrieval"):
        created = api.post(mem(world.patient_a), memory_body(cid, "earliest_time", "07:45"))
        assert created.status_code == 201, created.content
        assert vector_writes.wait(timeout=30)
    memory_id = created.json()["memory_id"]
    assert vectors_stored(memory_id) == 0
    assert "stored without embedding" in caplog.text and "07:45" not in caplog.text
    monkeypatch.setattr(embeddings, "_provider", up)
    call_command("reindex_embeddings", verbosity=0)
    assert vectors_stored(memory_id) == 1


def test_search_embeds_only_the_newest_missing_vectors_itself(world, held_writer, monkeypatch):
    """Beyond ``EMBED_MISSING_AT_MOST`` candidates without a vector, the older ones count as dissimilar."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    older = api.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00")).json()["memory_id"]
    newer = api.post(mem(world.patient_a), memory_body(cid, "latest_time", "16:00")).json()["memory_id"]
    monkeypatch.setattr(scoring, "EMBED_MISSING_AT_MOST", 1)
    with identity_context(patient(world)):
        hits = rank_candidates(identity=patient(world), patient_id=world.patient_a,
                               question=understand("what time of day suits me for appointments?"))
    cosines = {str(h.memory.memory_id): h.cosine for h in hits}
    assert cosines[older] == 0.0 and cosines[newer] > 0.1


def test_vectors_stored_for_writes_are_the_memorys_own(world):
    """What the writer stores is the vector of the memory's own text, as a re-index would make it."""
    cid = world.consent(world.patient_a)
    memory_id = world.patient(world.patient_a).post(mem(world.patient_a),
                                                    memory_body(cid, "earliest_time", "08:15")).json()["memory_id"]
    assert vector_writes.wait(timeout=30)
    with identity_context(patient(world)):
        stored = list(MemoryEmbedding.objects.get(memory_id=memory_id).embedding)
    text = vectors.embedding_text("scheduling_preference", {"kind": "earliest_time", "time": "08:15"}, 1)
    [expected] = embeddings.provider().embed([text])
    assert stored == pytest.approx(expected, abs=1e-6)
