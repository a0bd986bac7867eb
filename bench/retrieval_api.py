"""Benchmark retrieval by meaning: the write path's embeddings, and memory search through the whole stack.

    .venv/bin/python -m bench.retrieval_api [--patients 10000] [--target-memories 200] [--requests 500]
                                            [--concurrency 4] [--reuse]
    .venv/bin/python -m bench.retrieval_api --patients 500 --requests 100        # quick check

1. (Re)creates its own database ``anamnesis_bench_retrieval`` (never another one), migrates it as the owner role
   and bulk-seeds ``--patients`` - 1 background patients as the superuser (COPY): two granted consents and
   ``--per-patient`` current memories each (a scheduling and a communication preference, an allergy and a
   long-term indication, the care facts AES-GCM encrypted as the service stores them), each with an
   all-MiniLM-L6-v2 vector. Vectors are real embeddings of each memory's own text, computed once per distinct
   text (a pool of ~180 facts) and copied onto every memory holding that text.
2. The target patient gets ``--target-memories`` current memories through the real service
   (``memory.services.memory_record`` under ``identity_context``; consents recorded by the patient, a
   care_coordination grant created by an admin for the clinician who records the care facts), so encryption,
   embedding, representations and lifecycle events are real. Timed per call: memories/second, then how long
   until every vector was written (the vectors are made after each write commits:
   memory.retrieval.vectors.VectorWrites).
   Then the raw provider throughput: texts/second for batches of 1 and of 64.
3. Service level, in-process, through the shared embedding server: ``memory_search`` and the rendering of its
   answer for rotating questions (warm: cached query vectors) and for questions never asked before (cold), each
   split by the real steps of ``memory_search`` (module-level functions wrapped by a clock for the run, never a
   re-implementation), checked to answer exactly as a plain ``memory_search``.
4. Through the API, laid out as ``manage.py serve`` does: ``run_embedding_server`` on loopback and
   gunicorn with ``EMBEDDING_PROVIDER=local-server`` (no model in any web worker), a local JWKS;
   ``--requests`` ``GET /v1/patients/{id}/memories/search?q=...`` with the target patient's token over
   ``--concurrency`` keep-alive connections, then over one connection ``--serial`` questions each new to the
   service (``api.serial``: the search goal's figure) and ``--serial`` repeated ones (``api.serial_warm``), with the CPU
   time per search of the web workers, the embedding server and PostgreSQL. Every answer must be 200 with items
   of the target patient only; answers are compared with the in-process ``memory_search`` for the same question,
   and one ``memory.search`` audit row must exist per request.
5. EXPLAIN (ANALYZE, BUFFERS) of the candidates query as the runtime role with the patient's identity set: it must use
   the patient index and scan neither patient_memory nor memory_embedding sequentially.
6. Prints a summary and writes ``bench/results/retrieval_api.json``. Exits non-zero on any failed request, an
   item of another patient, a missing audit row or a sequential scan.

Helpers (load driver, keep-alive sessions, gunicorn worker balancing, percentiles) come from bench.memories_api.
"""

from __future__ import annotations

from bench.bootstrap import ORIGINAL_ENV, setup_django
from bench.common import bench_db_name

# anamnesis_bench_retrieval unless BENCH_RETRIEVAL_DB names another anamnesis_bench* database (bench.scale's sizes)
DB_NAME = bench_db_name("BENCH_RETRIEVAL_DB", "anamnesis_bench_retrieval")
setup_django(DB_NAME)  # settings now point at DB_NAME for the life of this process

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections import Counter  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402
from pathlib import Path  # noqa: E402
from urllib.parse import urlencode  # noqa: E402

import psycopg  # noqa: E402
import torch  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from django.utils import timezone  # noqa: E402
from pgvector import Vector  # noqa: E402
from psycopg.types.json import Jsonb  # noqa: E402

from bench import common  # noqa: E402
from bench import memories_api as base  # noqa: E402  (its setup_django() changes nothing: ours ran)
from bench.common import log  # noqa: E402
from bench.retrieval_data import ALLERGENS, MEDICATIONS, PREFERENCES, QUESTIONS, REACTIONS, SEVERITIES, fresh_questions  # noqa: E402
from bench.tokens import AUDIENCE, ISSUER, PATIENT_SCOPES, JwksServer, SigningKey, mint  # noqa: E402
from consent.services import consent_record, grant_create  # noqa: E402
from core.bootstrap import bootstrap  # noqa: E402
from core.identity import ACTOR_PATIENT, Identity, identity_context  # noqa: E402
from core.renderers import OrjsonRenderer  # noqa: E402
from directory.services import patient_register  # noqa: E402
from memory.api_search import search_body  # noqa: E402
from memory.crypto import encrypt_fact, new_salt  # noqa: E402
from memory.embeddings import SharedLocalServer, provider  # noqa: E402
from memory.lifecycle import memory_value  # noqa: E402
from memory.models import Memory  # noqa: E402
from memory.retrieval import scoring, search, vectors  # noqa: E402
from memory.retrieval.candidates import candidates_sql  # noqa: E402
from memory.retrieval.search import SearchResult, memory_search  # noqa: E402
from memory.retrieval.vectors import embedding_text, vector_model, vector_writes  # noqa: E402
from memory.selectors import memory_list_current  # noqa: E402
from memory.services import memory_record  # noqa: E402
from memory.types import builtin_latest, fact_text, validate_fact  # noqa: E402

BASE_DIR = Path(__file__).resolve().parent.parent
RESULTS_DIR = BASE_DIR / "bench" / "results"
HOST = base.HOST
NAMESPACE = uuid.UUID("5b0f4c1e-8a55-4d0e-9a51-2f1c7d3e9b10")
CLINICIAN = "bench-clinician"
ADMIN = "bench-admin"

# The identity the service sets (core.identity._SET_SQL): transaction-local, read by the RLS policies.
SET_IDENTITY_SQL = (
    "SELECT set_config('app.org_id', %s, true), set_config('app.actor_sub', %s, true), "
    "set_config('app.patient_self_id', %s, true), set_config('app.scopes', %s, true), "
    "set_config('app.service_patient_id', '', true), set_config('app.service_purpose', '', true)"
)

def admin_conninfo() -> str:
    return common.admin_conninfo(DB_NAME)


def check_topology() -> None:
    common.check_topology(DB_NAME)


def stats(values_ms: list[float]) -> dict:
    ordered = sorted(values_ms)
    return {"n": len(ordered), "mean_ms": round(sum(ordered) / len(ordered), 2) if ordered else None,
            "p50_ms": base.percentile(ordered, 50), "p95_ms": base.percentile(ordered, 95),
            "p99_ms": base.percentile(ordered, 99), "max_ms": round(ordered[-1], 2) if ordered else None}


# --- the cast -----------------------------------------------------------------------------------------------
class Cast:
    """Deterministic organisations and target patient, and the identities that act on the target."""

    def __init__(self, orgs: int, seed: int) -> None:
        self.orgs = [uuid.uuid5(NAMESPACE, f"org:{seed}:{i}") for i in range(orgs)]
        self.org = self.orgs[0]
        self.target = uuid.uuid5(NAMESPACE, f"target:{seed}")
        self.patient = Identity(org_id=self.org, actor_sub=f"patient-{self.target}", patient_self_id=self.target,
                                scopes=frozenset(PATIENT_SCOPES.split()), actor_kind=ACTOR_PATIENT)
        self.admin = Identity(org_id=self.org, actor_sub=ADMIN, scopes=frozenset({"grant:write", "patient:write"}))
        self.clinician = Identity(org_id=self.org, actor_sub=CLINICIAN,
                                  scopes=frozenset({"memory:read", "memory:write"}))


def allergy(i: int, substance: str) -> dict:
    return {"kind": "allergy", "substance": substance, "reaction": REACTIONS[i % len(REACTIONS)],
            "severity": SEVERITIES[(i // 3) % len(SEVERITIES)]}


def indication(medication: str, why: str, monitoring: str | None) -> dict:
    fact = {"kind": "long_term_indication", "medication": medication, "indication": why}
    if monitoring:
        fact["monitoring"] = monitoring
    return fact


def target_facts(count: int) -> list[tuple[str, str, dict]]:
    """count facts, all current together: the preferences, then allergies and indications alternately."""
    facts = list(PREFERENCES[:count])
    allergies = [("care_context", "care_coordination", allergy(i, s)) for i, s in enumerate(ALLERGENS)]
    indications = [("care_context", "care_coordination", indication(*m)) for m in MEDICATIONS]
    for a, b in zip(allergies, indications, strict=False):
        facts.extend((a, b))
    facts = facts[:count]
    if len(facts) < count:
        raise SystemExit(f"at most {len(PREFERENCES) + 2 * min(len(ALLERGENS), len(MEDICATIONS))} target memories")
    keys = {(t, validate_fact(t, f)[0], p) for t, p, f in facts}
    assert len(keys) == count, "two target facts share (memory_type, attribute, purpose)"
    return facts


# --- background patients (superuser, COPY) --------------------------------------------------------------------
def background_pool() -> dict[str, list[tuple[str, str, dict]]]:
    """The distinct facts background patients hold, by slot (one current value per slot and patient)."""
    sched = ([{"kind": "earliest_time", "time": f"{h:02d}:{m:02d}"} for h in (7, 8, 9, 10) for m in (0, 30)]
             + [{"kind": "latest_time", "time": f"{h:02d}:{m:02d}"} for h in (14, 15, 16, 17) for m in (0, 30)]
             + [{"kind": "excluded_days", "days": d} for d in (["monday"], ["friday"], ["saturday", "sunday"],
                                                              ["tuesday", "thursday"], ["wednesday"])]
             + [{"kind": "excluded_periods", "periods": p} for p in (["morning"], ["afternoon"], ["evening"])])
    comm = ([{"kind": "channel", "channel": c} for c in ("sms", "email", "phone", "portal", "letter")]
            + [{"kind": "language", "language": lang} for lang in ("en", "pl-PL", "es", "de", "fr", "uk", "ar")]
            + [{"kind": "contact_window", "start": s, "end": e}
               for s, e in (("08:00", "12:00"), ("09:00", "17:00"), ("12:00", "14:00"), ("17:00", "20:00"))])
    return {
        "scheduling": [("scheduling_preference", "appointment_scheduling", f) for f in sched],
        "allergy": [("care_context", "care_coordination", allergy(i, s)) for i, s in enumerate(ALLERGENS[:60])],
        "communication": [("communication_preference", "communication", f) for f in comm],
        "indication": [("care_context", "care_coordination", indication(*m)) for m in MEDICATIONS[:60]],
    }


SLOTS = ("scheduling", "allergy", "communication", "indication")  # --per-patient takes the first n
CONSENT_COLUMNS = ("consent_record_id", "organization_id", "patient_id", "purpose", "status", "granted_at",
                   "revoked_at", "expires_at", "evidence_ref", "policy_revision", "recorded_by", "revoked_by",
                   "created_at")
MEMORY_COLUMNS = tuple(f.column for f in Memory._meta.concrete_fields)

EMBEDDINGS_FROM_POOL_SQL = """
INSERT INTO memory_embedding (memory_id, organization_id, patient_id, purpose, model, embedding, created_at)
SELECT m.memory_id, m.organization_id, m.patient_id, m.consent_purpose, %(model)s, p.vec, m.created_at
  FROM bench_memory_text x
  JOIN patient_memory m ON m.memory_id = x.memory_id
  JOIN bench_text_vector p ON p.k = x.k
"""


def seed_background(args, cast: Cast) -> dict:
    """Patients 2..n with two consents and --per-patient memories each, in one transaction as the superuser."""
    pool = background_pool()
    slots = SLOTS[:args.per_patient]
    entries = [(slot, t, p, f) for slot in slots for t, p, f in pool[slot]]
    t0 = time.perf_counter()
    texts = [embedding_text(t, f) for _, t, _, f in entries]
    vectors = provider().embed(texts)
    embed_s = time.perf_counter() - t0
    log(f"  embedded the {len(texts)} distinct background texts in {embed_s:.1f}s (real vectors, one per text)")
    by_slot: dict[str, list[int]] = {}
    for k, (slot, *_rest) in enumerate(entries):
        by_slot.setdefault(slot, []).append(k)
    attributes = [validate_fact(t, f)[0] for _, t, _, f in entries]

    rng = random.Random(args.seed)
    now = timezone.now()
    policy = settings.MEMORY_POLICY_REVISION
    latest = builtin_latest()
    started = time.perf_counter()
    counts = Counter()
    with psycopg.connect(admin_conninfo()) as conn:
        conn.execute("SET synchronous_commit = off")  # the seed is reproducible; only the load is measured
        conn.execute("INSERT INTO organization (id, name, created_at, trusted_issuers) "
                     "SELECT id, 'bench-retrieval-org-' || n, now() - interval '400 days', ARRAY[%s] "
                     "FROM unnest(%s::uuid[]) WITH ORDINALITY AS o(id, n)", (ISSUER, cast.orgs))
        conn.execute("CREATE TEMP TABLE bench_text_vector (k int PRIMARY KEY, vec vector) ON COMMIT DROP")
        conn.execute("CREATE TEMP TABLE bench_memory_text (memory_id uuid, k int) ON COMMIT DROP")
        with conn.cursor().copy("COPY bench_text_vector (k, vec) FROM STDIN") as copy:
            for k, vec in enumerate(vectors):
                copy.write_row((k, "[" + ",".join(repr(float(x)) for x in vec) + "]"))
        consents, memories, links = [], [], []
        for i in range(args.patients - 1):
            org = cast.orgs[(i + 1) % len(cast.orgs)]
            patient = uuid.UUID(int=rng.getrandbits(128), version=4)
            since = now - timedelta(days=30 + rng.randrange(300), minutes=rng.randrange(1440))
            consent_ids = {}
            for purpose in ("appointment_scheduling", "communication"):
                cid = uuid.UUID(int=rng.getrandbits(128), version=4)
                consent_ids[purpose] = cid
                consents.append((cid, org, patient, purpose, "granted", since, None, None, "bench:seed", policy,
                                 f"patient-{patient}", None, since))
            for slot in slots:
                k = rng.choice(by_slot[slot])
                _, memory_type, purpose, fact = entries[k]
                memory_id = uuid.UUID(int=rng.getrandbits(128), version=4)
                care = latest[memory_type].memory_class == "care_context"
                ciphertext = key_id = None
                if care:
                    ciphertext, key_id = encrypt_fact(fact, memory_id=memory_id, patient_id=patient)
                created = since + timedelta(minutes=1 + len(links))
                row = {
                    "memory_id": memory_id, "organization_id": org, "patient_id": patient,
                    "memory_class": latest[memory_type].memory_class, "memory_type": memory_type,
                    "type_version": latest[memory_type].version, "agent_client_id": None,
                    "attribute": attributes[k], "fact": None if care else Jsonb(fact),
                    "fact_ciphertext": ciphertext, "fact_key_id": key_id, "digest_salt": new_salt(),
                    "state": "active", "source": "ehr_import" if care else "patient_stated",
                    "source_ref": f"ehr:bench-{i}" if care else "bench:seed", "confidence": 1,
                    "policy_revision": policy, "consent_purpose": purpose,
                    "consent_record_id": None if care else consent_ids[purpose], "valid_from": created,
                    "valid_until": None,
                    "expires_at": created + timedelta(days=settings.MEMORY_RETENTION_DAYS[
                        latest[memory_type].memory_class]),
                    "review_by": now + timedelta(days=180) if care else None, "superseded_by": None,
                    "created_by": CLINICIAN if care else f"patient-{patient}", "created_at": created,
                    "updated_at": created, "deleted_at": None,
                }
                memories.append(tuple(row[c] for c in MEMORY_COLUMNS))
                links.append((memory_id, k))
        t1 = time.perf_counter()
        for table, columns, rows in (("patient_consent", CONSENT_COLUMNS, consents),
                                     ("patient_memory", MEMORY_COLUMNS, memories),
                                     ("bench_memory_text", ("memory_id", "k"), links)):
            with conn.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            counts[table] = len(rows)
        counts["memory_embedding"] = conn.execute(EMBEDDINGS_FROM_POOL_SQL, {"model": vector_model()}).rowcount
        conn.commit()
        log(f"  built {len(memories):,} rows in Python (encryption included) in {t1 - started:.1f}s, "
            f"copied in {time.perf_counter() - t1:.1f}s: "
            + ", ".join(f"{table} {n:,}" for table, n in counts.items() if not table.startswith("bench_")))
    return {"seconds": round(time.perf_counter() - started, 1), "pool_texts": len(texts),
            "pool_embed_s": round(embed_s, 1), "rows": {k: v for k, v in counts.items()
                                                        if not k.startswith("bench_")}}


def vacuum_analyze() -> float:
    t0 = time.perf_counter()
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        # Hint bits, visibility map and statistics, so the measured reads do not pay for the bulk load.
        conn.execute("VACUUM (ANALYZE) organization, patient_consent, patient_access_grants, patient_memory, "
                     "memory_embedding, memory_representation, memory_lifecycle_event")
    return time.perf_counter() - t0


# --- the target patient, through the service ---------------------------------------------------------------
class TimedProvider:
    """Delegates to the real provider and adds up the time spent embedding (installed in this process only)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.seconds = 0.0
        self.calls = 0

    def embed(self, texts: list[str]) -> list[list[float]]:
        t0 = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - t0
            self.calls += 1


@contextmanager
def timed_embeddings():
    """memory.retrieval.vectors looks up ``provider`` in its module at call time: swap in a timing proxy."""
    timed = TimedProvider(provider())
    original = vectors.provider
    vectors.provider = lambda: timed
    try:
        yield timed
    finally:
        vectors.provider = original


def seed_target(args, cast: Cast) -> dict:
    """Consents (by the patient), a care_coordination grant (by an admin), then every memory via memory_record."""
    with identity_context(cast.admin):  # a grant is only for a patient in the organisation's directory
        patient_register(identity=cast.admin, patient_id=cast.target, display_name="Bench patient", birth_date=None,
                         identifiers=[])
        grant_create(identity=cast.admin, patient_id=cast.target, actor_sub=CLINICIAN, purpose="care_coordination",
                     expires_at=None, reason="bench: care team")
    consents = {}
    with identity_context(cast.patient):
        for purpose in ("appointment_scheduling", "communication"):
            consents[purpose] = consent_record(identity=cast.patient, patient_id=cast.target, purpose=purpose,
                                               evidence_ref="bench:portal-checkbox")[0].consent_record_id
    facts = target_facts(args.target_memories)
    random.Random(args.seed).shuffle(facts)
    review_by = timezone.now() + timedelta(days=180)
    per_class: dict[str, list[float]] = {"preference": [], "care_context": []}
    with timed_embeddings() as timed:
        started = time.perf_counter()
        for i, (memory_type, purpose, fact) in enumerate(facts):
            memory_class = builtin_latest()[memory_type].memory_class
            if memory_class == "care_context":
                who = cast.clinician
                extra = {"review_by": review_by, "source": "ehr_import" if i % 2 else "staff_entered",
                         "source_ref": f"ehr:bench-target-{i}" if i % 2 else ""}
            else:
                who = cast.patient
                extra = {"consent_record_id": consents[purpose]}
            t0 = time.perf_counter()
            with identity_context(who):
                memory_record(identity=who, patient_id=cast.target, memory_type=memory_type, fact=fact,
                              consent_purpose=purpose, **extra)
            per_class[memory_class].append((time.perf_counter() - t0) * 1000)
        total = time.perf_counter() - started
        # the vectors are made and written after each write commits (memory.retrieval.VectorWrites)
        if not vector_writes.wait(timeout=600):
            raise RuntimeError("the target's vectors were not written within 10 minutes")
        with_vectors = time.perf_counter() - started
    with identity_context(cast.patient):
        current = memory_list_current(identity=cast.patient, patient_id=cast.target).count()
    if current != args.target_memories:
        raise RuntimeError(f"the target has {current} current memories, expected {args.target_memories}")
    all_ms = per_class["preference"] + per_class["care_context"]
    return {"memories": len(facts), "current": current, "seconds": round(total, 2),
            "per_s": round(len(facts) / total, 1), "latency": stats(all_ms),
            "latency_preference": stats(per_class["preference"]),
            "latency_care_context": stats(per_class["care_context"]),
            "embed_calls": timed.calls, "embed_s": round(timed.seconds, 2),
            "vectors_written_s": round(with_vectors, 2)}


def target_texts(cast: Cast) -> list[str]:
    with identity_context(cast.patient):
        return [fact_text(m.memory_type, memory_value(m))
                for m in memory_list_current(identity=cast.patient, patient_id=cast.target)]


def provider_throughput(texts: list[str], singles: int, batches: int, embed=None) -> dict:
    embed = embed or provider().embed
    embed(texts[:1])  # loaded already; one call so neither series pays for a first call
    sample = [texts[i % len(texts)] for i in range(singles)]
    t0 = time.perf_counter()
    for text in sample:
        embed([text])
    single_s = time.perf_counter() - t0
    chunks = [[texts[(b * 64 + j) % len(texts)] for j in range(64)] for b in range(batches)]
    t0 = time.perf_counter()
    for chunk in chunks:
        embed(chunk)
    batch_s = time.perf_counter() - t0
    return {"batch_1": {"texts": singles, "seconds": round(single_s, 2), "texts_per_s": round(singles / single_s, 1),
                        "ms_per_call": round(single_s / singles * 1000, 2)},
            "batch_64": {"texts": 64 * batches, "seconds": round(batch_s, 2),
                         "texts_per_s": round(64 * batches / batch_s, 1),
                         "ms_per_call": round(batch_s / batches * 1000, 2)} if batches else None}


# --- service level, in-process -------------------------------------------------------------------------------
# The steps of memory.retrieval.search.memory_search, each a module-level function looked up at call time in the
# module named here: the split times the real functions (wrapped by a clock for the run), never a
# re-implementation of the ranking.
STEPS = {"understand": "question: lexicon", "query_vector": "query embedding (overlapped)",
         "fetch_candidates": "candidates SQL", "candidate_texts": "decrypt + text", "name_texts": "texts: lexicon",
         "lexical_features": "texts: concept match", "type_phrases": "types: what each serves",
         "expand_texts": "texts: expansion", "send_text_ranks": "text rank SQL sent (while embedding)",
         "send_similarities": "cosine + text rank SQL sent (vector there)", "send_cosines": "cosine SQL sent",
         "read_similarities": "waiting for the similarity rows", "uncovered_shares": "question words uncovered",
         "score_candidates": "score + sort",
         "select": "select hits"}
STEP_MODULES = {name: search for name in ("understand", "query_vector", "fetch_candidates", "score_candidates",
                                          "select", "type_phrases", "uncovered_shares")}
STEP_MODULES.update({name: scoring for name in STEPS if name not in STEP_MODULES})
# query_vector runs in a thread of its own while the candidates are read (its time overlaps theirs)
OVERLAPPED = {"query_vector"}


@contextmanager
def timed_steps():
    """Wrap each step of memory_search with a clock; yields the seconds spent per step."""
    spent = dict.fromkeys(STEPS, 0.0)
    originals = {name: getattr(STEP_MODULES[name], name) for name in STEPS}

    def clocked(name, fn):
        def run(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - t0
        return run

    for name, fn in originals.items():
        setattr(STEP_MODULES[name], name, clocked(name, fn))
    try:
        yield spent
    finally:
        for name, fn in originals.items():
            setattr(STEP_MODULES[name], name, fn)


def render_search(result: SearchResult) -> bytes:
    """What the API view does with memory_search's result: the response body, rendered as the service renders it."""
    return OrjsonRenderer().render(search_body(result))


def one_search(cast: Cast, question: str, cold: bool) -> tuple[list[str], dict[str, float]]:
    """memory_search and the rendering of its answer, as the view runs them, in the patient's identity context
    (identity statement and commit included); the time per step, and the rest (identity, audit, commit)."""
    if cold:
        scoring._query_vector.cache_clear()
    with timed_steps() as spent:
        t0 = time.perf_counter()
        with identity_context(cast.patient):
            result = memory_search(identity=cast.patient, patient_id=cast.target, question=question)
            t1 = time.perf_counter()
            render_search(result)
            t2 = time.perf_counter()
        t3 = time.perf_counter()
    split = {STEPS[name]: seconds * 1000 for name, seconds in spent.items()}
    split["render (JSON)"] = (t2 - t1) * 1000
    serial_steps = sum(v for name, v in spent.items() if name not in OVERLAPPED)
    split["identity, vector wait, commit"] = ((t1 - t0) + (t3 - t2) - serial_steps) * 1000
    split["total"] = (t3 - t0) * 1000
    return [str(h.memory.memory_id) for h in result.hits], split


def service_level(cast: Cast, plan: list[str], cold_plan: list[str]) -> dict:
    """In one worker thread: the warm plan (questions repeat: query vectors from the cache) and the cold plan
    (every question new, the cache cleared before each search), each split by step; CPU time of the thread."""
    # The clocked run must answer exactly as the plain one (the clock wraps, it does not re-implement).
    for question in QUESTIONS:
        with identity_context(cast.patient):
            plain = [str(h.memory.memory_id) for h in memory_search(
                identity=cast.patient, patient_id=cast.target, question=question).hits]
        if one_search(cast, question, cold=False)[0] != plain:
            raise RuntimeError(f"the timed run answers differently from memory_search for {question!r}")
    out = {}
    candidates = set()
    for label, questions, cold in (("warm", plan, False), ("cold", cold_plan, True)):
        parts: dict[str, list[float]] = {}
        cpu0, t0 = time.thread_time(), time.perf_counter()
        for question in questions:
            ids, split = one_search(cast, question, cold)
            candidates.add(len(ids))
            for name, ms in split.items():
                parts.setdefault(name, []).append(ms)
        wall, cpu = time.perf_counter() - t0, time.thread_time() - cpu0
        means = {name: sum(v) / len(v) for name, v in parts.items()}
        whole = means.pop("total")
        out[label] = {"search": {**stats(parts.pop("total")), "per_s": round(len(questions) / wall, 1),
                                 "cpu_ms_per_search": round(cpu / len(questions) * 1000, 2)},
                      "split": {name: {**stats(v), "share": round(means[name] / whole, 3)}
                                for name, v in parts.items()}}
    return {**out, "hits_per_search": sorted(candidates), "checked_against_memory_search": len(QUESTIONS)}


def expected_answers(cast: Cast, questions: list[str]) -> tuple[dict[str, list[str]], list[dict]]:
    """What memory_search (the API's service call) returns in-process for each question: ids, and for the
    rotating QUESTIONS the top texts (shown in the summary)."""
    expected, table = {}, []
    with identity_context(cast.patient):
        for question in dict.fromkeys(questions):
            hits = memory_search(identity=cast.patient, patient_id=cast.target, question=question).hits
            expected[question] = [str(h.memory.memory_id) for h in hits]
            if question in QUESTIONS:
                table.append({"q": question, "hits": len(hits),
                              "top": hits[0].text if hits else None,
                              "top_score": round(hits[0].score, 3) if hits else None})
    return expected, table


# --- through the API ---------------------------------------------------------------------------------------------
def gunicorn_settings() -> list:
    from gunicorn.config import KNOWN_SETTINGS

    return KNOWN_SETTINGS


def start_service(args, jwks_url: str, embedding_url: str,
                  log_path: Path) -> tuple[subprocess.Popen, int, object]:
    """bench.memories_api.start_service, with this benchmark's database and the shared embedding server."""
    port = base.free_port()
    env = dict(ORIGINAL_ENV)
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings", "ANAMNESIS_DB_NAME": DB_NAME,
        "OIDC_JWKS_URL": jwks_url, "OIDC_ISSUER": ISSUER, "OIDC_AUDIENCE": AUDIENCE, "LOG_LEVEL": "WARNING",
        "API_RATE_LIMIT_PER_SUBJECT": "1000000000", "API_RATE_LIMIT_PER_ORGANIZATION": "1000000000",
        # as ``manage.py serve`` runs them: the machine's one embedding process, no model in any web worker
        "EMBEDDING_PROVIDER": "local-server", "EMBEDDING_BASE_URL": embedding_url,
    })
    argv = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"{HOST}:{port}",
            "--workers", str(args.workers), "--threads", str(args.threads), "--graceful-timeout", "10",
            "--keep-alive", str(args.keep_alive)]
    # Gunicorn 27 opens a control socket at one fixed path per user (~/.gunicorn/gunicorn.ctl), shared with any other
    # gunicorn on the machine; this benchmark does not use it.
    if any(s.name == "control_socket_disable" for s in gunicorn_settings()):
        argv.append("--no-control-socket")
    log_file = open(log_path, "w")  # closed by base.stop_service
    proc = subprocess.Popen(argv, cwd=BASE_DIR, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    common.wait_until_ready(proc, port, log_file, log_path, args.startup_timeout, base.stop_service, name="gunicorn")
    return proc, port, log_file


def search_path(cast: Cast, question: str) -> str:
    return f"/v1/patients/{cast.target}/memories/search?" + urlencode({"q": question})


def search_op(cast: Cast, plan: list[str], token: str, expected: dict[str, list[str]], differing: list[str]):
    target = str(cast.target)

    def op(session: base.HttpSession, i: int) -> tuple[float, str | None]:
        question = plan[i]
        t0 = time.perf_counter()
        status, body = session.get(search_path(cast, question), token)
        latency = (time.perf_counter() - t0) * 1000
        if status != 200:
            return latency, f"HTTP {status}: {body[:200]!r}"
        items = json.loads(body)["items"]
        if any(item["memory"]["patient_id"] != target for item in items):
            return latency, "an item of another patient"
        if [item["memory"]["memory_id"] for item in items] != expected[question]:
            differing.append(question)  # list.append is atomic; reported, not a failure
        return latency, None
    return op


def context_op(cast: Cast, plan: list[str], token: str):
    """A context pack for each question of ``plan`` (``POST /v1/patients/{id}/context``, purpose
    care_coordination): 200, and a text that never names the patient's identifier."""
    target = str(cast.target)

    def op(session: base.HttpSession, i: int) -> tuple[float, str | None]:
        t0 = time.perf_counter()
        status, body = session.post(f"/v1/patients/{target}/context",
                                    {"question": plan[i], "purpose": "care_coordination"}, token)
        latency = (time.perf_counter() - t0) * 1000
        if status != 200:
            return latency, f"HTTP {status}: {body[:200]!r}"
        if target in json.loads(body)["text"]:
            return latency, "the pack's text names the patient's identifier"
        return latency, None
    return op


def warm_every_worker(cast: Cast, sessions: list[base.HttpSession], token: str) -> list[str]:
    """Each gunicorn worker's first search connects to the database and the embedding server: make every
    connection search twice first."""
    problems = []
    for session in sessions:
        for question in QUESTIONS[:2]:
            status, body = session.get(search_path(cast, question), token)
            if status != 200:
                problems.append(f"warm-up HTTP {status}: {body[:200]!r}")
    return problems


def audit_rows_since(since: datetime, actor_sub: str) -> int:
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        # a search writes memory.search, a context pack one memory.context_pack (its own search writes none)
        return conn.execute("SELECT count(*) FROM audit_event WHERE action IN ('memory.search', 'memory.context_pack') "
                            "AND actor_sub = %s AND occurred_at >= %s", (actor_sub, since)).fetchone()[0]


@contextmanager
def embedding_server(log_path: Path, timeout: float):
    """``manage.py run_embedding_server`` on a free loopback port, as ``manage.py serve`` starts it; yields
    (process, base URL)."""
    port = base.free_port()
    env = dict(ORIGINAL_ENV, DJANGO_SETTINGS_MODULE="config.settings", ANAMNESIS_DB_NAME=DB_NAME,
               LOG_LEVEL="WARNING")
    log_file = open(log_path, "w")
    proc = subprocess.Popen([sys.executable, str(BASE_DIR / "manage.py"), "run_embedding_server", "--port",
                             str(port)], cwd=BASE_DIR, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    url = f"http://{HOST}:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the embedding server exited with {proc.returncode} (see {log_path})")
            try:
                conn = http.client.HTTPConnection(HOST, port, timeout=2)
                conn.request("GET", "/health")
                ready = conn.getresponse().status == 200
                conn.close()
                if ready:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the embedding server was not ready within {timeout}s (see {log_path})")
            time.sleep(0.2)
        yield proc, url
    finally:
        base.stop_service(proc, log_file)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (Linux /proc; 0 when gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_server_pid() -> int | None:
    """The postmaster of the benchmark's database, when it runs on this machine (its backends are its children)."""
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
    try:
        return int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def children_cpu(pid: int | None) -> float:
    if pid is None:
        return 0.0
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    return sum(cpu_seconds(int(c)) for c in children)


class CpuMeter:
    """CPU seconds spent by the web workers, the embedding server and the database's backends over a phase."""

    def __init__(self, master_pid: int, embedder_pid: int, postmaster_pid: int | None) -> None:
        self.pids = (master_pid, embedder_pid, postmaster_pid)

    def read(self) -> dict[str, float]:
        master, embedder, postmaster = self.pids
        return {"web_workers": children_cpu(master), "embedding_server": cpu_seconds(embedder),
                "postgres": children_cpu(postmaster)}

    @staticmethod
    def per_request(before: dict[str, float], after: dict[str, float], requests: int) -> dict[str, float]:
        out = {k: round((after[k] - before[k]) / max(requests, 1) * 1000, 2) for k in before}
        out["total"] = round(sum(out.values()), 2)
        return out


def api_phase(args, cast: Cast, plan: list[str], serial_plan: list[str], warm_plan: list[str],
              context_plan: list[str], expected: dict[str, list[str]], embedder, embedding_url: str) -> dict:
    """Concurrent searches (the rotating realistic questions), then over one connection: ``serial``, every
    question new to the service (cold: its vector is computed by the embedding server), and ``serial_warm``, the
    rotating questions again (their vectors cached in the workers). CPU time per search for each serial run."""
    keys = SigningKey()
    token = mint(keys, sub=f"patient-{cast.target}", org_id=cast.org, patient_id=cast.target, scope=PATIENT_SCOPES,
                 exp_in=3600)
    jwks = JwksServer(keys)
    log_path = RESULTS_DIR / "retrieval_gunicorn.log"
    proc = log_file = None
    differing: list[str] = []
    serial_runs: dict[str, tuple[base.Run, list[str], dict]] = {}
    try:
        t0 = time.perf_counter()
        proc, port, log_file = start_service(args, jwks.url, embedding_url, log_path)
        log(f"gunicorn ({args.workers} workers x {args.threads} threads) ready on {HOST}:{port} in "
            f"{time.perf_counter() - t0:.1f}s; JWKS at {jwks.url}; embeddings from {embedding_url}")
        meter = CpuMeter(proc.pid, embedder.pid, postgres_server_pid())
        audit_since = datetime.now(UTC)
        sessions = [base.HttpSession(port) for _ in range(args.concurrency)]
        try:
            t0 = time.perf_counter()
            warm_problems = warm_every_worker(cast, sessions, token)
            split_before = base.split(proc.pid, port, sessions)
            split_used, reopened = (base.balance(proc.pid, port, sessions) if args.balance
                                    else (split_before, 0))
            if reopened:  # a reopened connection may be held by a worker that has not searched yet
                warm_problems += warm_every_worker(cast, sessions, token)
            warm_s = time.perf_counter() - t0
            warm_requests = 2 * len(sessions) * (2 if reopened else 1)
            log(f"API warm-up ({warm_requests} searches) {warm_s:.1f}s; keep-alive connections per worker "
                f"{split_before}" + (f", rebalanced to {split_used} ({reopened} reopened)" if reopened else ""))
            cpu0 = meter.read()
            api = base.drive(args.requests, sessions, search_op(cast, plan, token, expected, differing))
            api_cpu = CpuMeter.per_request(cpu0, meter.read(), api.ok)
            split_after = base.split(proc.pid, port, sessions)
            log(f"API: {api.ok}/{args.requests} ok in {api.wall_s:.1f}s at concurrency {args.concurrency}")
        finally:
            for s in sessions:
                s.close()
        serial_session = base.HttpSession(port)
        try:
            serial_session.get("/health/live")
            for name, questions in (("serial", serial_plan), ("serial_warm", warm_plan)):
                differs: list[str] = []
                cpu0 = meter.read()
                run = base.drive(len(questions), [serial_session],
                                 search_op(cast, questions, token, expected, differs))
                serial_runs[name] = (run, differs, CpuMeter.per_request(cpu0, meter.read(), run.ok))
                log(f"API {name}: {run.ok}/{len(questions)} ok in {run.wall_s:.1f}s over one connection, "
                    f"p50 {run.summary()['p50_ms']} ms")
            cpu0 = meter.read()
            context = base.drive(len(context_plan), [serial_session], context_op(cast, context_plan, token))
            context_cpu = CpuMeter.per_request(cpu0, meter.read(), context.ok)
            log(f"API context packs: {context.ok}/{len(context_plan)} ok in {context.wall_s:.1f}s over one "
                f"connection, p50 {context.summary()['p50_ms']} ms")
        finally:
            serial_session.close()
        reconnects = sum(s.reconnects for s in sessions) + serial_session.reconnects
    finally:
        gunicorn_rc = base.stop_service(proc, log_file) if proc is not None else None
        jwks.stop()
    log(f"gunicorn stopped (exit {gunicorn_rc}); JWKS server stopped after {jwks.hits} fetch(es)")
    audited = audit_rows_since(audit_since, f"patient-{cast.target}")
    serial_ok = sum(run.ok for run, _, _ in serial_runs.values())
    expected_audit = api.ok + serial_ok + context.ok + warm_requests - len(warm_problems)
    failures = (api.failures + [f for run, _, _ in serial_runs.values() for f in run.failures]
                + context.failures)
    serial = {name: {**run.summary(), "questions": ("every question new (cold: no cached query vector); "
                                                    "bench.retrieval_data.fresh_questions: ~45% medicines, 25% "
                                                    "scheduling, 20% contact, 10% nothing on record")
                     if name == "serial" else "the 20 rotating QUESTIONS, each asked before (warm: cached vector)",
                     "cpu_ms_per_search": cpu, "answers_differing_from_in_process": len(differs)}
              for name, (run, differs, cpu) in serial_runs.items()}
    return {
        "concurrent": {**api.summary(), "concurrency": args.concurrency, "cpu_ms_per_search": api_cpu,
                       "answers_differing_from_in_process": len(differing),
                       "differing_questions": sorted(set(differing))},
        **serial,
        "context_serial": {**context.summary(), "questions": "every question new, a context pack each "
                           "(purpose care_coordination), over one connection", "cpu_ms_per_pack": context_cpu},
        "connections_per_worker": {"after_warmup": split_before, "measured": split_used, "at_end": split_after},
        "warmup": {"requests": warm_requests, "seconds": round(warm_s, 1), "problems": warm_problems},
        "reconnects": reconnects, "gunicorn_exit": gunicorn_rc, "jwks_fetches": jwks.hits,
        "audit_rows": audited, "audit_rows_expected": expected_audit,
        "failures_sample": failures[:5], "failed": len(failures),
    }


# --- the plan ------------------------------------------------------------------------------------------------
def explain_candidates(cast: Cast) -> tuple[str, dict]:
    """The plans of search's two statements: the candidates query (``candidates_sql``, as it runs) and
    the similarity statement (``scoring.SIMILARITY_SQL``) over its candidates."""
    [query_vector] = provider().embed([QUESTIONS[0]])
    sql, params = candidates_sql(org_id=cast.org, patient_id=cast.target, purpose=None, memory_class=None,
                                 now=timezone.now())
    identity = (str(cast.org), cast.patient.actor_sub, str(cast.target), " ".join(sorted(cast.patient.scopes)))
    with psycopg.connect(settings.DB_TOPOLOGY.runtime.conninfo(), autocommit=True) as conn, conn.transaction():
        role = conn.execute("SELECT current_user, rolsuper, rolbypassrls FROM pg_roles "
                            "WHERE rolname = current_user").fetchone()
        conn.execute(SET_IDENTITY_SQL, identity)
        cur = psycopg.ClientCursor(conn)  # literal parameters, as Django's client-side binding sends them
        statement = "EXPLAIN (ANALYZE, BUFFERS) " + sql
        cur.execute(statement, params)  # warm the caches
        cur.execute(statement, params)
        plan = "\n".join(row[0] for row in cur.fetchall())
        found = cur.execute(sql, params).fetchall()
        rows = len(found)
        ids = [r[0] for r in found]
        texts = [f"text {i}" for i in range(len(ids))]
        similarity = [QUESTIONS[0], Vector(query_vector).to_text(), vector_model(), ids, texts]
        cur.execute("EXPLAIN (ANALYZE, BUFFERS) " + scoring.SIMILARITY_SQL, similarity)
        plan += "\n\nsimilarities:\n" + "\n".join(row[0] for row in cur.fetchall())
    indexes = sorted(set(re.findall(r"(?:Index Scan|Index Only Scan|Bitmap Index Scan)(?: Backward)? "
                                    r"(?:using|on) (\w+)", plan)))
    seq = sorted(set(re.findall(r"Seq Scan on (\w+)", plan)))
    execution = re.search(r"Execution Time: ([\d.]+) ms", plan)
    planning = re.search(r"Planning Time: ([\d.]+) ms", plan)
    patient_indexes = [i for i in indexes if i in ("memory_patient_lookup", "patient_memory_one_current")]
    return plan, {
        "role": role[0], "superuser": role[1], "bypassrls": role[2], "candidate_rows": rows,
        "indexes": indexes, "patient_index_used": bool(patient_indexes), "seq_scans": seq,
        "seq_scan_on_patient_memory": "patient_memory" in seq, "seq_scan_on_memory_embedding":
            "memory_embedding" in seq,
        "planning_ms": float(planning.group(1)) if planning else None,
        "execution_ms": float(execution.group(1)) if execution else None,
    }


def database_facts() -> dict:
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        facts = {"server_version": conn.execute("SHOW server_version").fetchone()[0]}
        for table in ("patient_memory", "memory_embedding", "patient_consent"):
            facts[f"{table}_rows"] = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            facts[f"{table}_total_mb"] = round(conn.execute(
                "SELECT pg_total_relation_size(%s)", (table,)).fetchone()[0] / 2**20, 1)
        facts["patients"] = conn.execute("SELECT count(DISTINCT patient_id) FROM patient_consent").fetchone()[0]
    return facts


# --- database preparation ----------------------------------------------------------------------------------
def existing_seed(args, cast: Cast) -> str | None:
    """None when the database already holds exactly this seed, otherwise why it cannot be reused."""
    with psycopg.connect(settings.DB_TOPOLOGY.admin.conninfo(dbname="postgres"), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DB_NAME,)).fetchone() is None:
            return "no database yet"
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('public.memory_embedding')").fetchone()[0] is None:
            return "not migrated"
        patients = conn.execute("SELECT count(DISTINCT patient_id) FROM patient_consent").fetchone()[0]
        target = conn.execute("SELECT count(*) FROM patient_memory WHERE patient_id = %s AND state = 'active'",
                              (cast.target,)).fetchone()[0]
        background = conn.execute("SELECT count(*) FROM patient_memory WHERE patient_id <> %s",
                                  (cast.target,)).fetchone()[0]
    wanted = (args.patients, args.target_memories, (args.patients - 1) * args.per_patient)
    if (patients, target, background) != wanted:
        return f"it holds {patients} patients / {target} target / {background} other memories, wanted {wanted}"
    return None


def prepare_database(args, cast: Cast) -> dict | None:
    """Fresh database with the background seed; None when --reuse keeps an existing full seed."""
    for conn in connections.all():
        conn.close()
    if args.reuse:
        why_not = existing_seed(args, cast)
        if why_not is None:
            bootstrap(settings.DB_TOPOLOGY, drop_first=False)
            call_command("migrate", database="owner", verbosity=0)
            connections["owner"].close()
            log(f"reusing the seeded database {DB_NAME} (no write-path figures this time)")
            return None
        log(f"--reuse: cannot keep {DB_NAME} ({why_not}); reseeding")
    t0 = time.perf_counter()
    bootstrap(settings.DB_TOPOLOGY, drop_first=True)
    call_command("migrate", database="owner", verbosity=0)
    connections["owner"].close()
    migrate_s = time.perf_counter() - t0
    log(f"created and migrated {DB_NAME} in {migrate_s:.1f}s")
    seeded = seed_background(args, cast)
    seeded["vacuum_s"] = round(vacuum_analyze(), 1)
    seeded["migrate_s"] = round(migrate_s, 1)
    log(f"seeded {args.patients - 1:,} background patients in {seeded['seconds']}s "
        f"(VACUUM ANALYZE {seeded['vacuum_s']}s)")
    return seeded


# --- main --------------------------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    positive = base.positive
    p = argparse.ArgumentParser(prog="python -m bench.retrieval_api", description=__doc__.split("\n")[0])
    p.add_argument("--patients", type=positive, default=10_000, help="patients in the database, target included")
    p.add_argument("--per-patient", type=positive, default=4, help="memories per background patient (1-4)")
    p.add_argument("--target-memories", type=positive, default=200, help="current memories of the target")
    p.add_argument("--orgs", type=positive, default=10, help="organisations the patients are spread over")
    p.add_argument("--requests", type=positive, default=500, help="measured API searches at --concurrency")
    p.add_argument("--concurrency", type=positive, default=4, help="client threads (keep-alive connections)")
    p.add_argument("--serial", type=positive, default=200,
                   help="measured API searches over one connection, cold (every question new), and as many warm")
    p.add_argument("--service-runs", type=positive, default=200,
                   help="in-process memory_search runs, timed step by step: as many warm and cold")
    p.add_argument("--singles", type=positive, default=100, help="texts embedded one at a time")
    p.add_argument("--batches", type=positive, default=6, help="batches of 64 texts embedded")
    p.add_argument("--main-singles", type=positive, default=25,
                   help="texts embedded one at a time from the main thread (for contrast)")
    p.add_argument("--main-batches", type=positive, default=2, help="batches of 64 from the main thread")
    p.add_argument("--keep-alive", type=positive, default=30,
                   help="gunicorn keep-alive seconds (its default 2 s closes connections left idle while a worker "
                        "loads the model)")
    p.add_argument("--workers", type=positive, default=2, help="gunicorn workers")
    p.add_argument("--threads", type=positive, default=4, help="gunicorn threads per worker")
    p.add_argument("--no-balance", dest="balance", action="store_false",
                   help="measure with however accept() spread the keep-alive connections over the workers")
    p.add_argument("--reuse", action="store_true", help="keep the database if it already holds this seed")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--startup-timeout", type=float, default=90.0)
    p.add_argument("--output", type=Path, default=RESULTS_DIR / "retrieval_api.json")
    args = p.parse_args(argv)
    if args.per_patient > len(SLOTS):
        p.error(f"--per-patient is at most {len(SLOTS)}")
    if args.orgs > args.patients:
        p.error("--orgs may not exceed --patients")
    return args


def run_in_thread(fn, *args, **kwargs):
    """Run fn in a fresh thread, as gunicorn's gthread workers run requests; its connections close at the end.

    Measured on this machine: torch in the process's main thread (2 intra-op threads) embeds one text an order of
    magnitude slower than from any other thread when the CPUs are shared; the service never embeds from a main
    thread, so the in-process figures are taken from a worker thread (and the main-thread figure shown apart)."""
    box: dict = {}

    def target() -> None:
        try:
            box["result"] = fn(*args, **kwargs)
        except BaseException as exc:  # re-raised in the caller
            box["error"] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=target, name="bench-in-process")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


@contextmanager
def provider_for_search(server_provider):
    """Search in this process reaches the embedding server, as the web workers do (the model loaded here stays
    for the write path and the provider figures)."""
    original = scoring.provider
    scoring.provider = lambda: server_provider
    try:
        yield
    finally:
        scoring.provider = original


def in_process(args, cast: Cast, write: bool, service_plan: list[str], cold_plan: list[str],
               asked: list[str], server_provider) -> dict:
    writer = None
    if write:
        writer = seed_target(args, cast)
        log(f"write path: {writer['memories']} memory_record calls in {writer['seconds']}s = {writer['per_s']}/s "
            f"(p50 {writer['latency']['p50_ms']} ms); every vector written after {writer['vectors_written_s']}s "
            f"({writer['embed_calls']} embedding calls)")
        vacuum_analyze()
    texts = target_texts(cast)
    raw = provider_throughput(texts, args.singles, args.batches)
    log(f"provider (worker thread): batch of 1 {raw['batch_1']['texts_per_s']} texts/s, batch of 64 "
        f"{raw['batch_64']['texts_per_s']} texts/s")
    with provider_for_search(server_provider):
        server = provider_throughput(texts, args.singles, 0, embed=server_provider.embed)
        log(f"embedding server (HTTP, one text per call): {server['batch_1']['ms_per_call']} ms/call")
        expected, answers = expected_answers(cast, asked)
        service = service_level(cast, service_plan, cold_plan)
    for label in ("cold", "warm"):
        v = service[label]["search"]
        log(f"service level, {label}: memory_search + render p50 {v['p50_ms']} ms, {v['cpu_ms_per_search']} ms "
            f"CPU in this thread per search ({v['per_s']}/s, one thread)")
    return {"writer": writer, "texts": texts, "provider": raw, "server": server, "expected": expected,
            "answers": answers, "service": service}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    check_topology()
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    cast = Cast(args.orgs, args.seed)
    started = time.perf_counter()
    load_at_start = round(os.getloadavg()[0], 2)
    log(f"benchmark database {DB_NAME}: {args.patients:,} patients ({args.patients - 1:,} x {args.per_patient} "
        f"memories + 1 target x {args.target_memories}), {args.orgs} organisations; load average {load_at_start}")
    t0 = time.perf_counter()
    provider().embed(["warm up"])
    model_load_s = time.perf_counter() - t0
    log(f"loaded {provider().name} in {model_load_s:.1f}s")

    seeded = prepare_database(args, cast)
    rng = random.Random(args.seed)
    service_plan = [rng.choice(QUESTIONS) for _ in range(args.service_runs)]
    api_plan = [rng.choice(QUESTIONS) for _ in range(args.requests)]
    warm_plan = [rng.choice(QUESTIONS) for _ in range(args.serial)]
    # every question new: the in-process cold runs and the API's serial run get disjoint sets
    fresh = fresh_questions(args.service_runs + 2 * args.serial, seed=args.seed)
    cold_plan, serial_plan = fresh[:args.service_runs], fresh[args.service_runs:args.service_runs + args.serial]
    context_plan = fresh[args.service_runs + args.serial:]
    with embedding_server(RESULTS_DIR / "retrieval_embedding_server.log", args.startup_timeout) as (embedder, url):
        server_provider = SharedLocalServer(base_url=url, timeout=settings.EMBEDDING_TIMEOUT_SECONDS)
        local = run_in_thread(in_process, args, cast, seeded is not None, service_plan, cold_plan,
                              QUESTIONS + serial_plan, server_provider)
        writer, raw, expected, answers, service = (local["writer"], local["provider"], local["expected"],
                                                   local["answers"], local["service"])
        raw_main = provider_throughput(local["texts"], args.main_singles, args.main_batches)
        log(f"provider (main thread): batch of 1 {raw_main['batch_1']['texts_per_s']} texts/s, batch of 64 "
            f"{raw_main['batch_64']['texts_per_s']} texts/s")
        facts = database_facts()
        log(f"patient_memory {facts['patient_memory_rows']:,} rows ({facts['patient_memory_total_mb']} MB), "
            f"memory_embedding {facts['memory_embedding_rows']:,} rows ({facts['memory_embedding_total_mb']} MB)")
        api = api_phase(args, cast, api_plan, serial_plan, warm_plan, context_plan, expected, embedder, url)
    plan_text, plan_facts = explain_candidates(cast)
    log("\nEXPLAIN (ANALYZE, BUFFERS) of the candidates query as the runtime role, target patient's identity:\n"
        + plan_text + "\n")

    result = {
        "benchmark": "retrieval_api",
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "torch_threads": torch.get_num_threads(), "load_average_1m_at_start": load_at_start,
                    "load_average_1m_at_end": round(os.getloadavg()[0], 2), **facts},
        "dataset": {"database": DB_NAME, "patients": args.patients, "per_patient": args.per_patient,
                    "target_memories": args.target_memories, "orgs": args.orgs, "reused": seeded is None,
                    "seed": seeded, "background_vectors": "real embeddings of each memory's own text, computed once "
                                                          "per distinct text and copied"},
        "model": {"name": provider().name, "load_s": round(model_load_s, 1)},
        "write_path": writer,
        "provider": {"worker_thread": raw, "main_thread": raw_main, "embedding_server_http": local["server"]},
        "service": service,
        "api": api,
        "answers": answers,
        "explain": plan_facts,
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print_summary(result)
    log(f"written to {args.output}")
    problems = []
    if api["failed"] or api["warmup"]["problems"]:
        problems.append("failed requests")
    if api["audit_rows"] != api["audit_rows_expected"]:
        problems.append(f"{api['audit_rows']} search and context pack audit rows, "
                        f"expected {api['audit_rows_expected']}")
    if plan_facts["seq_scan_on_patient_memory"] or plan_facts["seq_scan_on_memory_embedding"]:
        problems.append(f"sequential scan in the candidates plan: {plan_facts['seq_scans']}")
    if not plan_facts["patient_index_used"]:
        problems.append("the candidates plan does not use the patient index")
    for problem in problems:
        log(f"PROBLEM: {problem}")
    return 1 if problems else 0


def print_summary(r: dict) -> None:
    d, m, w, p, s, a, e = (r["dataset"], r["machine"], r["write_path"], r["provider"], r["service"], r["api"],
                           r["explain"])
    c, one = a["concurrent"], a["serial"]
    lines = [
        "=== retrieval_api summary " + "=" * 60,
        f"data      {d['patients']:,} patients ({d['patients'] - 1:,} x {d['per_patient']} + target x "
        f"{d['target_memories']}), {d['orgs']} orgs; patient_memory {m['patient_memory_rows']:,} rows "
        f"{m['patient_memory_total_mb']} MB, memory_embedding {m['memory_embedding_rows']:,} rows "
        f"{m['memory_embedding_total_mb']} MB" + ("; reused" if d["reused"] else
                                                 f"; background seed {d['seed']['seconds']}s"),
    ]
    if w:
        lines.append(f"write     memory_record {w['per_s']}/s (p50 {w['latency']['p50_ms']} ms, "
                     f"p95 {w['latency']['p95_ms']} ms; preference p50 {w['latency_preference']['p50_ms']} ms, "
                     f"care_context p50 {w['latency_care_context']['p50_ms']} ms); every vector written after "
                     f"{w['vectors_written_s']}s ({w['embed_calls']} embedding calls, {w['embed_s']}s)")
    pw, pm = p["worker_thread"], p["main_thread"]
    lines += [
        f"provider  batch 1: {pw['batch_1']['texts_per_s']} texts/s ({pw['batch_1']['ms_per_call']} ms/call); "
        f"batch 64: {pw['batch_64']['texts_per_s']} texts/s ({pw['batch_64']['ms_per_call']} ms/call) "
        f"[from the main thread: {pm['batch_1']['texts_per_s']} and {pm['batch_64']['texts_per_s']} texts/s, "
        f"torch threads {m['torch_threads']}]",
        f"embedder  one text over HTTP to the embedding server: "
        f"{p['embedding_server_http']['batch_1']['ms_per_call']} ms per call",
    ]
    for label in ("cold", "warm"):
        v = s[label]
        lines += [
            f"service   {label}: memory_search + render p50 {v['search']['p50_ms']} ms p95 {v['search']['p95_ms']} ms; "
            f"{v['search']['cpu_ms_per_search']} ms CPU in the calling thread per search",
            f"split     {label}: " + ", ".join(f"{name} {x['p50_ms']} ms ({x['share']:.0%})"
                                               for name, x in v["split"].items()) + " (p50, share of mean)",
        ]
    warm = a["serial_warm"]
    lines += [
        f"API x{c['concurrency']}    {c['per_s']} req/s  p50 {c['p50_ms']} ms  p95 {c['p95_ms']} ms  p99 "
        f"{c['p99_ms']} ms  ok {c['ok']} failed {c['failed']}; differing from in-process "
        f"{c['answers_differing_from_in_process']}",
        f"API x1    p50 {one['p50_ms']} ms  p95 {one['p95_ms']} ms  p99 {one['p99_ms']} ms  {one['per_s']} req/s  "
        f"ok {one['ok']} failed {one['failed']}  <- the goal's figure: one connection, every question new (cold); "
        f"CPU per search {one['cpu_ms_per_search']['total']} ms ({one['cpu_ms_per_search']})",
        f"API x1    warm (repeated questions, cached vectors): p50 {warm['p50_ms']} ms  p95 {warm['p95_ms']} ms  "
        f"CPU per search {warm['cpu_ms_per_search']['total']} ms ({warm['cpu_ms_per_search']})",
        f"API x1    context packs, every question new: p50 {a['context_serial']['p50_ms']} ms  p95 "
        f"{a['context_serial']['p95_ms']} ms  ok {a['context_serial']['ok']} failed {a['context_serial']['failed']}"
        f"  <- the context pack goal's figure",
        f"load      1-minute load average {m['load_average_1m_at_start']} at start, {m['load_average_1m_at_end']} "
        f"at end ({m['cpus']} CPUs)",
        f"workers   connections per worker {a['connections_per_worker']['measured']} (after warm-up "
        f"{a['connections_per_worker']['after_warmup']}); warm-up {a['warmup']['seconds']}s; audit "
        f"{a['audit_rows']} search and context pack audit rows (expected {a['audit_rows_expected']}); JWKS fetches "
        f"{a['jwks_fetches']}",
        f"plan      as {e['role']} (superuser {e['superuser']}, bypassrls {e['bypassrls']}): {e['candidate_rows']} "
        f"candidates; indexes {', '.join(e['indexes'])}; seq scans {e['seq_scans'] or 'none'}; execution "
        f"{e['execution_ms']} ms",
        "answers   " + "; ".join(f"{x['q']!r} -> {x['hits']}" for x in r["answers"]),
    ]
    if a["failures_sample"]:
        lines.append(f"failures  {a['failures_sample']}")
    lines.append(f"elapsed   {r['elapsed_s']}s")
    lines.append("=" * 86)
    log("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
