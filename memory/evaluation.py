"""Retrieval evaluation on the first evaluation set, ``memory/eval/retrieval_eval.json`` (a regression set now:
its rules were shaped while looking at it, so its figures say little about unseen questions; the blind set in
``memory/eval/blind`` is the one to quote, see :mod:`memory.evaluation_blind`).

Loads the set's patients into a fresh organisation through the real services (embeddings included), asks every
question as the patient (RLS applies), and reports precision@k, MRR, the negatives answered with no
high-confidence hit, cross-patient leakage, stale results and the safety rule, as search answered them.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.db import connection
from django.utils import timezone

from consent.services import consent_record, grant_create
from core.identity import ACTOR_PATIENT, Identity, identity_context
from directory.services import patient_register
from memory import review, services
from memory.retrieval.question import understand
from memory.retrieval.scoring import HIGH, RELEVANCE
from memory.retrieval.search import rank_candidates
from memory.retrieval.selection import select_hits
from memory.retrieval.vectors import vector_writes

EVAL_FILE = Path(__file__).parent / "eval" / "retrieval_eval.json"
PURPOSE_OF = {"scheduling_preference": "appointment_scheduling", "communication_preference": "communication",
              "care_context": "care_coordination"}


@dataclass
class Candidate:
    key: str | None
    patient_key: str
    score: float
    high: bool = False  # answered with high confidence on relevance
    safety: bool = False


def _load_population(data: dict) -> tuple[uuid.UUID, dict[str, uuid.UUID], dict[uuid.UUID, tuple[str, str]]]:
    org = uuid.uuid4()
    clinician = Identity(org_id=org, actor_sub="eval-clinician")
    admin = Identity(org_id=org, actor_sub="eval-admin", scopes=frozenset({"grant:write", "patient:write"}))
    patient_ids = {key: uuid.uuid4() for key in data["patients"]}
    keys: dict[uuid.UUID, tuple[str, str]] = {}
    for pkey, memories in data["patients"].items():
        pid = patient_ids[pkey]
        me = Identity(org_id=org, actor_sub=f"patient-{pkey}", patient_self_id=pid, actor_kind=ACTOR_PATIENT)
        with identity_context(admin):  # a grant is only for a patient in the organisation's directory
            patient_register(identity=admin, patient_id=pid, display_name=f"Patient {pkey}", birth_date=None,
                             identifiers=[])
            grant_create(identity=admin, patient_id=pid, actor_sub=clinician.actor_sub, purpose="care_coordination",
                         expires_at=None)
        consents = {}
        with identity_context(me):
            for purpose in ("appointment_scheduling", "communication"):
                consents[purpose] = consent_record(identity=me, patient_id=pid, purpose=purpose,
                                                   evidence_ref="eval")[0].consent_record_id
        # stale ones first, so that a current value of the same attribute supersedes rather than is superseded
        for mkey, spec in sorted(memories.items(), key=lambda kv: "stale" not in kv[1]):
            fact = spec["fact"]
            purpose = PURPOSE_OF[spec["memory_type"]]
            if spec["memory_type"] == "care_context":
                with identity_context(clinician):
                    memory = services.memory_record(
                        identity=clinician, patient_id=pid, memory_type="care_context",
                        fact=fact, consent_purpose=purpose, review_by=_in_days(180), source="ehr_import",
                        source_ref=f"ehr:{pkey}:{mkey}")
            else:
                with identity_context(me):
                    memory = services.memory_record(
                        identity=me, patient_id=pid, memory_type=spec["memory_type"],
                        fact=fact, consent_purpose=purpose, consent_record_id=consents[purpose])
            keys[memory.memory_id] = (pkey, mkey)
            stale = spec.get("stale")
            if stale == "expired":
                with identity_context(clinician), connection.cursor() as cur:
                    cur.execute("UPDATE patient_memory SET valid_from = now() - interval '400 days', "
                                "valid_until = now() - interval '1 day' WHERE memory_id = %s", [memory.memory_id])
            elif stale == "quarantined":
                with identity_context(clinician):
                    review.memory_quarantine(identity=clinician, patient_id=pid, memory_id=memory.memory_id,
                                             reason_code="eval_disputed")
    vector_writes.wait(timeout=600)  # questions are asked of stored vectors, as in service
    return org, patient_ids, keys


def _in_days(days: int):


    return timezone.now() + timedelta(days=days)


def load(path: Path | None = None) -> dict:
    return json.loads((path or EVAL_FILE).read_text())


def collect(data: dict | None = None, *, split: str | None = None) -> dict:
    """Run every question (of one split, if given) once; keep each candidate's score and band as search answered
    them (the safety rule included)."""
    data = data or load()
    org, patient_ids, keys = _load_population(data)
    runs = []
    for item in data["questions"]:
        if split and item.get("split", "calibration") != split:
            continue
        pkey = item["patient"]
        pid = patient_ids[pkey]
        me = Identity(org_id=org, actor_sub=f"patient-{pkey}", patient_self_id=pid, actor_kind=ACTOR_PATIENT)
        question = understand(item["question"])
        with identity_context(me):
            hits = rank_candidates(identity=me, patient_id=pid, question=question)
            answered = select_hits(list(hits), question=question)
        high = {id(h) for h in answered if h.confidence == HIGH and h.included_by == RELEVANCE}
        candidates = [Candidate(key=keys.get(h.memory.memory_id, (None, None))[1],
                                patient_key=keys.get(h.memory.memory_id, ("?", None))[0],
                                score=h.score, high=id(h) in high, safety=h.safety)
                      for h in hits]
        # the same question asked by another patient about this one must return nothing at all
        other_key = next(k for k in patient_ids if k != pkey)
        intruder = Identity(org_id=org, actor_sub=f"patient-{other_key}", patient_self_id=patient_ids[other_key],
                            actor_kind=ACTOR_PATIENT)
        with identity_context(intruder):
            intruding = len(rank_candidates(identity=intruder, patient_id=pid, question=question))
        runs.append({"item": item, "candidates": candidates, "intruding": intruding,
                     "safety_rule": question.safety_rule,
                     "answered_keys": {keys.get(h.memory.memory_id, (None, None))[1] for h in answered}})
    stale_keys = {(p, m) for p, ms in data["patients"].items() for m, spec in ms.items() if spec.get("stale")}
    return {"runs": runs, "k": data.get("k", 3), "stale_keys": stale_keys}


def score(collected: dict) -> dict:
    """Ranking (P@1, hit@k, MRR: the best-first order search returns, whatever the band), the band (answerable
    questions whose right memory is among the high-confidence hits; questions with no answer that get no
    high-confidence hit), leakage, stale results, and the safety rule as search applied it."""
    k = collected["k"]
    n_pos = n_neg = 0
    rr_sum = 0.0
    p1 = hits_k = confident = 0
    negatives_empty = leaks = stale = 0
    safety_questions = safety_complete = 0
    for run in collected["runs"]:
        expected = set(run["item"]["expected"])
        pkey = run["item"]["patient"]
        ranked = run["candidates"]  # best first, as search ranked them
        high = [c for c in ranked if c.high]
        leaks += run["intruding"] + sum(1 for c in ranked if c.patient_key != pkey)
        stale += sum(1 for c in ranked if (c.patient_key, c.key) in collected["stale_keys"])
        if run["safety_rule"]:
            safety_questions += 1
            required = {c.key for c in ranked if c.safety}
            safety_complete += 1 if required <= run["answered_keys"] else 0
        if expected:
            n_pos += 1
            found = [i for i, c in enumerate(ranked) if c.key in expected]
            rr_sum += 1 / (found[0] + 1) if found else 0
            p1 += 1 if found and found[0] == 0 else 0
            hits_k += 1 if found and found[0] < k else 0
            confident += 1 if any(c.key in expected for c in high) else 0
        else:
            n_neg += 1
            negatives_empty += 1 if not high else 0
    total = n_pos + n_neg
    return {
        "questions": total, "answerable": n_pos, "negatives": n_neg, "k": k,
        "p@1": round(p1 / n_pos, 4) if n_pos else 0.0,
        f"hit@{k}": round(hits_k / n_pos, 4) if n_pos else 0.0,
        "mrr": round(rr_sum / n_pos, 4) if n_pos else 0.0,
        "answerable_answered_high": round(confident / n_pos, 4) if n_pos else 0.0,
        "negatives_answered_empty": round(negatives_empty / n_neg, 4) if n_neg else 1.0,
        "cross_patient_leakage": leaks, "stale_results": stale,
        "safety_rule_questions": safety_questions,
        "safety_rule_complete": round(safety_complete / safety_questions, 4) if safety_questions else 1.0,
    }
