"""Search's fast path answers exactly what the model-and-serializer path did: the same items, byte for
byte, the same compiled filters as the ORM's ``candidates()``, the audit row in the search's own statement, and a
lexicon pattern that finds exactly what the plain alternation of its terms finds."""

from __future__ import annotations

import random
import re
import uuid
from concurrent.futures import Future
from datetime import UTC, datetime, timedelta

import pytest
from rest_framework.renderers import JSONRenderer

from core.identity import ACTOR_PATIENT, Identity, identity_context
from core.models import AuditEvent
from memory.lexicon import NAME_AFTER, NAME_BEFORE, _normal, lexicon
from memory.models import Memory
from memory.retrieval import candidates, scoring, search, vectors
from memory.retrieval.adapter import adapt
from memory.retrieval.question import understand
from tests.conftest import memory_body
from tests.reference_rendering import ReferenceMemoryOut


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


@pytest.mark.django_db
def test_search_items_are_byte_identical_to_the_serializer_path(world):
    """Plain, encrypted (care context) and bounded-validity memories render in a search answer exactly as
    ReferenceMemoryOut renders the model instance; the safety rule's inclusions too."""
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    world.grant(world.patient_a, "nurse-1", "care_coordination")
    nurse = world.staff("nurse-1")
    until = (datetime.now(UTC) + timedelta(days=3)).isoformat()
    assert nurse.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00")).status_code == 201
    assert nurse.post(mem(world.patient_a), memory_body(cid, "latest_time", "16:30",
                                                        valid_until=until)).status_code == 201
    for fact in ({"kind": "allergy", "substance": "penicillin", "reaction": "rash", "severity": "moderate"},
                 {"kind": "long_term_indication", "medication": "warfarin", "indication": "atrial fibrillation",
                  "monitoring": "INR"}):
        assert nurse.post(mem(world.patient_a), {
            "memory_type": "care_context", "consent_purpose": "care_coordination", "fact": fact,
            "review_by": (datetime.now(UTC) + timedelta(days=180)).isoformat(), "source": "ehr_import",
            "source_ref": "ehr:AllergyIntolerance/991"}).status_code == 201

    staff = Identity(org_id=world.org, actor_sub="nurse-1", scopes=frozenset({"memory:read"}))
    for question in ("can we prescribe amoxicillin?", "when can the patient come in?"):
        r = nurse.get(f"{mem(world.patient_a)}/search", {"q": question})
        assert r.status_code == 200
        items = r.json()["items"]
        assert items
        with identity_context(staff):
            by_id = {str(m.memory_id): m for m in Memory.objects.filter(
                memory_id__in=[i["memory"]["memory_id"] for i in items])}
            expected = JSONRenderer().render([ReferenceMemoryOut(by_id[i["memory"]["memory_id"]]).data for i in items])
        assert JSONRenderer().render([i["memory"] for i in items]) == expected


@pytest.mark.django_db
@pytest.mark.parametrize("purpose, memory_class, memory_types", [
    (None, None, None), ("communication", None, None), (None, "care_context", None),
    ("care_coordination", "care_context", None), (None, None, "scheduling_preference"),
    ("appointment_scheduling", None, "scheduling_preference,accessibility_need")])
def test_the_compiled_candidates_query_is_what_the_orm_compiles(purpose, memory_class, memory_types):
    for _ in range(2):  # the first call compiles the shape's template, the second uses it
        values = {"org_id": uuid.uuid4(), "patient_id": uuid.uuid4(), "purpose": purpose,
                  "memory_class": memory_class, "memory_types": memory_types, "now": datetime.now(UTC)}
        assert candidates.candidates_sql(**values) == candidates._compile_candidates(**values)
    assert (purpose is not None, memory_class is not None, memory_types is not None) in candidates._CANDIDATES_SQL


@pytest.mark.django_db
def test_the_search_audit_row_travels_with_the_candidates_query(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem(world.patient_a), memory_body(cid)).status_code == 201
    r = api.get(f"{mem(world.patient_a)}/search", {"q": "when can I come in?", "consent_purpose":
                                                    "appointment_scheduling"},
                headers={"X-Request-ID": "req-search-fast-1"})
    assert r.status_code == 200 and r.json()["items"]
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        row = AuditEvent.objects.get(action="memory.search", correlation_id="req-search-fast-1")
    assert (row.organization_id, row.patient_id, row.actor_sub, row.actor_kind, row.resource_type,
            row.purpose, row.outcome) == (world.org, world.patient_a, f"patient-{world.patient_a}", ACTOR_PATIENT,
                                          "memory", "appointment_scheduling", "success")


@pytest.mark.django_db
def test_a_search_that_fails_after_its_candidates_query_leaves_no_audit_row(world, monkeypatch):
    """The audit row commits with the answer, or not at all."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem(world.patient_a), memory_body(cid)).status_code == 201

    def broken(*args, **kwargs):
        raise RuntimeError("similarity statement failed")

    monkeypatch.setattr(search, "similarities", broken)
    me = Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a,
                  scopes=frozenset({"memory:read"}), actor_kind=ACTOR_PATIENT)
    with pytest.raises(RuntimeError), identity_context(me):
        search.memory_search(identity=me, patient_id=world.patient_a, question="when can I come in?")
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        assert not AuditEvent.objects.filter(action="memory.search", patient_id=world.patient_a).exists()


def test_the_lexicon_trie_finds_what_the_alternation_of_its_terms_finds():
    lex = lexicon()
    terms = sorted(lex.by_term, key=len, reverse=True)
    plain = re.compile(NAME_BEFORE + "(?:" + "|".join(re.escape(t) for t in terms) + ")" + NAME_AFTER)
    rng = random.Random(12)
    texts = [_normal(" ".join(rng.choice(terms) + rng.choice(["", "s", "-x", "-1", " ", "'s", ",", "ing", " and"])
                              for _ in range(rng.randrange(1, 6)))) for _ in range(3000)]
    texts += ["can we prescribe amoxicillin?", "is the inr in range?", "latex-free gloves", "co-trimoxazole 480mg"]
    for text in texts:
        assert ([(m.start(), m.group(0)) for m in lex.pattern.finditer(text)]
                == [(m.start(), m.group(0)) for m in plain.finditer(text)]), text


class Arrives(Future):
    """A question vector that is there once ``after`` batches were made (``done()`` is asked once per batch)."""

    def __init__(self, vector: list[float], after: int) -> None:
        super().__init__()
        self._vector, self._after = vector, after

    def done(self) -> bool:
        if self._after <= 0 and not super().done():
            self.set_result(self._vector)
        self._after -= 1
        return super().done()

    def result(self, timeout=None):
        if not super().done():
            self.set_result(self._vector)
        return super().result(timeout)


class Embedder:
    """In place of search's thread pool: embeds the question at once, and reports the vector there only once
    ``after`` batches were made (what the pool's timing decides in a real search)."""

    def __init__(self, after: int) -> None:
        self.after = after

    def submit(self, fn, *args, **kwargs):
        return Arrives(fn(*args, **kwargs), self.after)


@pytest.mark.django_db(transaction=True)
def test_similarities_are_the_cosines_the_orm_annotates_however_the_batches_fall(world, monkeypatch):
    """The cosines search reads batch by batch (the question is embedded meanwhile) are exactly the ones
    ``candidates()`` annotates in one query, and the text ranks those of one statement over every text, for plain
    and encrypted memories: whether the vector was there before the first batch, arrived between two, or came after
    the last. A candidate without a vector of the current model (``candidates()`` says 0) gets the cosine of its
    text, embedded by the search itself."""
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    world.grant(world.patient_a, "nurse-1", "care_coordination")
    nurse = world.staff("nurse-1")
    assert nurse.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00")).status_code == 201
    for fact in ({"kind": "allergy", "substance": "penicillin", "reaction": "rash"},
                 {"kind": "long_term_indication", "medication": "warfarin", "indication": "atrial fibrillation"}):
        assert nurse.post(mem(world.patient_a), {
            "memory_type": "care_context", "consent_purpose": "care_coordination", "fact": fact,
            "review_by": (datetime.now(UTC) + timedelta(days=180)).isoformat(), "source": "ehr_import",
            "source_ref": "ehr:AllergyIntolerance/991"}).status_code == 201
    assert vectors.vector_writes.wait(timeout=30)
    staff = Identity(org_id=world.org, actor_sub="nurse-1", scopes=frozenset({"memory:read"}))
    q = understand("is the penicillin allergy or the warfarin a problem for an appointment?")
    vector = scoring.query_vector(q.expanded)
    moved = adapt(vector)  # the question's vector as it meets the memories' (the question adapter)
    assert moved != vector
    monkeypatch.setattr(scoring, "BATCH", 1)  # one statement per candidate: three batches
    with identity_context(staff):
        from django.db import connection

        from memory.models import MemoryEmbedding

        annotated = list(candidates.candidates(identity=staff, patient_id=world.patient_a, query_vector=moved))
        MemoryEmbedding.objects.filter(memory_id=annotated[1].memory_id).delete()  # one without a vector
        annotated = list(candidates.candidates(identity=staff, patient_id=world.patient_a, query_vector=moved))
        ordered = candidates.fetch_candidates(identity=staff, patient_id=world.patient_a)
        assert len(ordered) == 3 and [c.memory_id for c in ordered] == [m.memory_id for m in annotated]
        answers = [scoring.similarities(q, ordered, Arrives(vector, after)) for after in (0, 1, 2, 3, 9)]
        made, cosines, ranks = answers[0]
        assert cosines[::2] == [m.cosine for m in annotated][::2] and all(cosines[::2])
        expanded = scoring.expand_texts(made.texts, made.named)
        [own] = scoring.provider().embed([expanded[1]])
        assert annotated[1].cosine == 0.0
        assert cosines[1] == pytest.approx(sum(a * b for a, b in zip(moved, own, strict=True)), abs=1e-9)
        assert cosines[1] != 0.0
        with connection.cursor() as cursor:
            cursor.execute(scoring.TEXT_RANK_SQL, [q.expanded, scoring.array_literal(expanded)])
            assert ranks == [float(r[0]) for r in cursor.fetchall()] and sum(r > 0 for r in ranks) >= 2
        assert all(answer == answers[0] for answer in answers[1:])


@pytest.mark.django_db
def test_a_search_answers_the_same_whether_its_vector_was_waiting_or_ready(world, monkeypatch):
    """A question being embedded has its texts ranked meanwhile and its cosines read once the vector is there
    (two statements); a cached one takes one statement for both: the hits, scores and order are the same."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    for kind, at in (("earliest_time", "10:00"), ("latest_time", "16:30")):
        assert api.post(mem(world.patient_a), memory_body(cid, kind, at)).status_code == 201
    me = Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a,
                  scopes=frozenset({"memory:read"}), actor_kind=ACTOR_PATIENT)
    question = "what time can I come in?"
    calls = []
    for name in ("send_text_ranks", "send_cosines", "send_similarities"):
        monkeypatch.setattr(scoring, name, _spy(calls, name, getattr(scoring, name)))
    monkeypatch.setattr(search, "_embedder", lambda: Embedder(after=10**6))  # there only when waited for
    with identity_context(me):
        waiting = search.rank_candidates(identity=me, patient_id=world.patient_a, question=understand(question))
    monkeypatch.setattr(search, "_embedder", lambda: Embedder(after=0))  # there before the first batch
    with identity_context(me):
        ready = search.rank_candidates(identity=me, patient_id=world.patient_a, question=understand(question))
    assert calls == ["send_text_ranks", "send_cosines", "send_similarities"]
    assert waiting and [(h.memory.memory_id, h.score, h.cosine, h.text_rank) for h in waiting] == [
        (h.memory.memory_id, h.score, h.cosine, h.text_rank) for h in ready]


@pytest.mark.django_db
def test_a_failing_similarity_statement_fails_the_search_and_rolls_back_its_audit_row(world, monkeypatch):
    """An error in a statement sent in pipeline mode surfaces as Django's database error and the request's
    transaction rolls back, the search's audit row with it."""
    from django.db import DatabaseError

    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00")).status_code == 201
    me = Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a,
                  scopes=frozenset({"memory:read"}), actor_kind=ACTOR_PATIENT)
    monkeypatch.setattr(scoring, "TEXT_RANK_SQL", "SELECT 1 / 0 FROM (SELECT %s::text, %s::text[]) AS x")
    monkeypatch.setattr(scoring, "SIMILARITY_SQL",
                        "SELECT 1 / 0, 0 FROM (SELECT %s::text, %s::text, %s::text, %s::text, %s::text) AS x")
    question = "what time can I come in?"
    with pytest.raises(DatabaseError), identity_context(me):
        search.memory_search(identity=me, patient_id=world.patient_a, question=question)
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        assert not AuditEvent.objects.filter(action="memory.search", patient_id=world.patient_a).exists()
    monkeypatch.undo()
    with identity_context(me):  # the connection serves the next search
        assert search.memory_search(identity=me, patient_id=world.patient_a, question=question).hits


@pytest.mark.django_db
def test_a_search_whose_question_cannot_be_embedded_answers_503_and_leaves_no_audit_row(world, monkeypatch):
    """The embedding provider down: 503 ``embedding_provider_unavailable`` whether the patient has memories to
    rank or none, and the search's audit row rolls back with the request."""
    from memory.embeddings import EmbeddingUnavailable

    class Down:
        name = scoring.provider().name

        def embed(self, texts):
            raise EmbeddingUnavailable()

    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00")).status_code == 201
    world.consent(world.patient_b)
    monkeypatch.setattr(scoring, "provider", lambda: Down())
    scoring._query_vector.cache_clear()
    for patient in (world.patient_a, world.patient_b):  # one memory to rank, then none
        r = world.patient(patient).get(f"{mem(patient)}/search", {"q": "when can I come in on Tuesdays?"})
        assert r.status_code == 503 and r.json()["code"] == "embedding_provider_unavailable", r.content
        assert int(r["Retry-After"]) >= 1, "as every 503, it says when to come back"
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        assert not AuditEvent.objects.filter(action="memory.search").exists()


def _spy(calls, name, fn):
    def wrapper(*args, **kwargs):
        calls.append(name)
        return fn(*args, **kwargs)
    return wrapper


@pytest.mark.django_db
def test_array_literals_reach_postgresql_as_the_values_they_hold():
    """Texts and ids go to the search statements as array literals: every character comes back unchanged."""
    from django.db import connection

    texts = ['say "hi"', "back\\slash", "\\", '"', "{braces}, commas", "NULL", "", "  spaced  ", "é 日本 —",
             "line\nbreak\ttab", "a,b", "}{", "'quoted'", "\\\"both\\\""]
    ids = [uuid.uuid4() for _ in range(3)]
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::text[], %s::uuid[], %s::text[]", [scoring.array_literal(texts),
                                                                    scoring.array_literal(ids),
                                                                    scoring.array_literal([])])
        got_texts, got_ids, empty = cursor.fetchone()
    assert got_texts == texts and got_ids == ids and empty == []


def test_what_a_memory_text_names_is_kept_by_digest_and_bounded(monkeypatch):
    """Searches that meet the same memory read what its text names once; the cache holds digests, never a fact's
    words, and keeps at most NAMED_KEPT texts."""
    from collections import OrderedDict

    monkeypatch.setattr(scoring, "_named", OrderedDict())
    monkeypatch.setattr(scoring, "NAMED_KEPT", 2)
    texts = ["Long-term warfarin therapy for atrial fibrillation", "Documented latex allergy (reaction: hives)",
             "Preferred name: Nell"]
    first = scoring.name_texts(texts[:2])
    assert first == [lexicon().mentions(t) for t in texts[:2]] and "warfarin" in first[0]
    again = scoring.name_texts(texts[:1])
    assert again[0] is first[0]  # read once
    scoring.name_texts(texts[2:])
    assert len(scoring._named) == 2  # the oldest dropped
    assert all(isinstance(k, bytes) and len(k) == 16 for k in scoring._named)  # digests, not texts


@pytest.mark.django_db
def test_a_question_another_organisation_asked_is_embedded_again(world, monkeypatch):
    """Recent question vectors are kept apart for each organisation: a question is embedded once per organisation
    that asks it, so a search's time never tells one organisation what another asked."""
    real = scoring.provider()
    embedded: list[str] = []

    class Counting:
        name = real.name

        def embed(self, texts):
            embedded.extend(texts)
            return real.embed(texts)

    monkeypatch.setattr(scoring, "provider", lambda: Counting())
    scoring._query_vector.cache_clear()
    question = "which entrance has step-free access?"
    asked = [(world.patient(world.patient_a), world.patient_a), (world.patient(world.patient_a), world.patient_a),
             (world.patient(world.patient_b, org=world.other_org), world.patient_b)]
    for api, patient in asked:
        r = api.get(f"{mem(patient)}/search", {"q": question})
        assert r.status_code == 200, r.content
    assert len([t for t in embedded if t.startswith(question)]) == 2  # the repeat was kept; the other org's was not
