"""Retrieval evaluation on the blind sets in ``memory/eval/blind/``, ``blind2/`` ... ``blind22/``, each written by
its own author, who never saw the ranking (:data:`SETS`: each has a split to tune on and a held-out split).

Each split is loaded into a fresh organisation the way the service is used: the organisation's administrator
registers the set's own memory types through the type service and grants a clinician every purpose; each patient
records the consents their facts need and states their own facts; staff import care context (and any type only
staff may write) from the EHR. Stale memories are made stale by the service: a superseded one is written first
and replaced by the current value of its attribute, an expired one has its validity ended (as
:mod:`memory.evaluation` does), a quarantined one goes through ``memory_quarantine``. The clinician then asks
every question through :func:`memory.retrieval.memory_search`, the function the API's search calls.

Nothing is repaired on the way: a definition the type service refuses, or a fact a validator refuses, is counted
by type and error code (never its value) and the rest goes on; its memories then count as not loaded.

Figures (per split; per kind and overall). Ranking is the order of the hits search returns; *high* is a hit whose
confidence band is ``high`` (what an API client reads as the confident answer):

- answerable questions (``expected`` not empty): P@1, hit@k and MRR, a hit counting when it is one of the
  expected memories of the question's patient; *answer kept high*: the first high hit is an expected one;
- questions with nothing on record (``expected == []``): *no-answer kept low*: no high hit at all;
- leakage: hits that are another patient's memory (must be 0); stale: hits that are a stale memory;
- unloaded: questions an expected memory of which failed to load.

The held-out split is reported in aggregate only: nothing here prints, logs or returns a question or a fact.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.db import connection
from django.utils import timezone

from consent.services import consent_record, grant_create
from core.errors import ApiError
from core.identity import ACTOR_PATIENT, Identity, identity_context
from core.vocabulary import PURPOSES
from directory.services import patient_register
from memory import review, selectors, services
from memory.models import MemoryClass, MemoryEmbedding
from memory.retrieval import memory_search
from memory.retrieval.scoring import HIGH
from memory.retrieval.vectors import vector_model, vector_writes
from memory.types import TypeSpec, type_get
from memory.types.services import memory_type_create

EVAL_DIR = Path(__file__).parent / "eval"
# Each set, written blind by its own author: its directory, the split tuned on, the split only reported.
SETS = {"blind": ("blind", "calibration", "heldout"), "blind2": ("blind2", "train", "heldout"),
        **{f"blind{n}": (f"blind{n}", "train", "heldout") for n in range(3, 23)}}
KINDS = ("paraphrase", "brand_name", "indirect", "safety_critical", "no_answer", "other_patient", "stale_decoy")
REVIEW_DAYS = 180
VECTOR_TIMEOUT_SECONDS = 600


def _directory(eval_set: str) -> Path:
    if eval_set not in SETS:
        raise ValueError(f"set must be one of {', '.join(SETS)}")
    return EVAL_DIR / SETS[eval_set][0]


def available_sets() -> list[str]:
    """The sets whose files are present (a set is added to the repository whole)."""
    return [name for name in SETS if (_directory(name) / "org_types.json").exists()]


def splits(eval_set: str = "blind") -> tuple[str, str]:
    """The set's (tuning split, held-out split)."""
    _directory(eval_set)
    return SETS[eval_set][1], SETS[eval_set][2]


def load_split(split: str, eval_set: str = "blind") -> dict:
    """One split's patients and questions (the held-out file is opened only when asked for by name)."""
    if split not in splits(eval_set):
        raise ValueError(f"split must be one of {', '.join(splits(eval_set))}")
    return json.loads((_directory(eval_set) / f"{split}.json").read_text(encoding="utf-8"))


def load_org_types(eval_set: str = "blind") -> list[dict]:
    """The set's organisation types, each with what it answers (``serves``) in the set author's words, as the
    organisation's administrator would register them. The built-in types answer with the phrases they ship with:
    the author's phrases for those are not used."""
    descriptions = load_type_descriptions(eval_set)
    definitions = json.loads((_directory(eval_set) / "org_types.json").read_text(encoding="utf-8"))
    return [{**d, "serves": descriptions[d["name"]]} if d.get("name") in descriptions else d for d in definitions]


def load_type_descriptions(eval_set: str = "blind") -> dict[str, list[str]]:
    """What each type answers, in the set author's words (every type of the set, built-in ones included)."""
    return json.loads((_directory(eval_set) / "type_descriptions.json").read_text(encoding="utf-8"))


def subset(data: dict, patients: list[str]) -> dict:
    """The same split limited to some patients and their questions."""
    keep = set(patients)
    return {**data, "patients": {p: m for p, m in data["patients"].items() if p in keep},
            "questions": [q for q in data["questions"] if q["patient"] in keep]}


def error_code(exc: Exception) -> str:
    """An error's code and its field codes (``validation_error[fact.location:invalid]``): never a message, which
    may quote the value."""
    if not isinstance(exc, ApiError):
        return type(exc).__name__
    fields = sorted({f"{e.get('field', '')}:{e.get('code', '')}" for e in exc.errors if isinstance(e, dict)})
    return f"{exc.code}[{', '.join(fields)}]" if fields else str(exc.code)


@dataclass
class Population:
    """A split as loaded: who is who, which memory is which key, and what did not load (by type and code)."""
    org: uuid.UUID
    admin: Identity
    clinician: Identity
    patient_ids: dict[str, uuid.UUID] = field(default_factory=dict)
    keys: dict[uuid.UUID, tuple[str, str]] = field(default_factory=dict)  # memory id -> (patient key, memory key)
    types_of: dict[tuple[str, str], str] = field(default_factory=dict)  # (patient key, memory key) -> type
    stale: dict[tuple[str, str], str] = field(default_factory=dict)  # (patient key, memory key) -> how
    loaded: set[tuple[str, str]] = field(default_factory=set)
    types_registered: list[str] = field(default_factory=list)
    types_refused: list[tuple[str, str]] = field(default_factory=list)
    failures: Counter = field(default_factory=Counter)  # (type, stage, code) -> count
    memories: int = 0

    def fail(self, memory_type: str, stage: str, exc: Exception | str) -> None:
        self.failures[(memory_type, stage, exc if isinstance(exc, str) else error_code(exc))] += 1


def _in_days(days: int):
    return timezone.now() + timedelta(days=days)


def register_types(pop: Population, definitions: list[dict]) -> None:
    """Each organisation type through the type service, as the organisation's administrator. The definitions
    are in the catalogue's file format, which carries ``version``; a create request leaves it out (the service
    assigns version 1, as the set intends), everything else is sent as written."""
    for definition in definitions:
        request = {k: v for k, v in definition.items() if k != "version"}
        name = str(definition.get("name", "?"))
        if definition.get("version", 1) != 1:
            pop.types_refused.append((name, "set_version_not_1"))
            continue
        try:
            with identity_context(pop.admin):
                spec = memory_type_create(identity=pop.admin, definition=request)
        except ApiError as exc:  # a definition's check speaks of the definition, never of a patient's fact
            detail = "; ".join(str(e.get("message", "")) for e in exc.errors if isinstance(e, dict))
            pop.types_refused.append((name, f"{error_code(exc)} {detail}".strip()))
        else:
            pop.types_registered.append(spec.name)


def _types(pop: Population, names: set[str]) -> dict[str, TypeSpec | None]:
    with identity_context(pop.clinician):
        return {name: type_get(name) for name in names}


def _staff_writes(spec: TypeSpec | None) -> bool:
    return spec is None or spec.memory_class == MemoryClass.CARE_CONTEXT or "patient" not in spec.writers


def _patient_setup(pop: Population, pkey: str, purposes: set[str]) -> tuple[Identity, dict[str, uuid.UUID]]:
    """A grant of every purpose for the clinician (the administrator decides); the patient's own consents."""
    pid = pop.patient_ids.setdefault(pkey, uuid.uuid4())
    me = Identity(org_id=pop.org, actor_sub=f"patient-{pkey}", patient_self_id=pid, actor_kind=ACTOR_PATIENT)
    with identity_context(pop.admin):  # a grant is only for a patient in the organisation's directory
        patient_register(identity=pop.admin, patient_id=pid, display_name=f"Patient {pkey}", birth_date=None,
                         identifiers=[])
        for purpose, _label in PURPOSES:
            grant_create(identity=pop.admin, patient_id=pid, actor_sub=pop.clinician.actor_sub, purpose=purpose,
                         expires_at=None)
    consents = {}
    with identity_context(me):
        for purpose in sorted(purposes):
            consents[purpose] = consent_record(identity=me, patient_id=pid, purpose=purpose,
                                               evidence_ref="blind-eval")[0].consent_record_id
    return me, consents


def _record(pop: Population, me: Identity, consents: dict, pkey: str, mkey: str, entry: dict,
            spec: TypeSpec | None):
    """One memory through ``memory_record``, the fact as given: staff import what only staff may write (care
    context from the EHR, with its reference and review date), the patient states the rest."""
    name = entry["memory_type"]
    purpose = spec.purposes[0] if spec else "care_coordination"
    consent = None if spec is None or spec.memory_class == MemoryClass.CARE_CONTEXT else consents.get(purpose)
    if _staff_writes(spec):
        ehr = spec is not None and "ehr_import" in spec.writers
        with identity_context(pop.clinician):
            return services.memory_record(
                identity=pop.clinician, patient_id=me.patient_self_id, memory_type=name, fact=entry["fact"],
                consent_purpose=purpose, consent_record_id=consent,
                review_by=_in_days(REVIEW_DAYS) if spec is not None and spec.review else None,
                source="ehr_import" if ehr else None, source_ref=f"ehr:{pkey}:{mkey}" if ehr else "")
    with identity_context(me):
        return services.memory_record(identity=me, patient_id=me.patient_self_id, memory_type=name,
                                      fact=entry["fact"], consent_purpose=purpose, consent_record_id=consent,
                                      review_by=_in_days(REVIEW_DAYS) if spec.review else None)


def _make_stale(pop: Population, patient_id: uuid.UUID, memory_id: uuid.UUID, how: str) -> None:
    """Expired: its validity ended a day ago (no service ends a validity early; ``memory.evaluation`` does the
    same). Quarantined: by staff, through the service. Superseded: by the next write of its attribute."""
    if how == "expired":
        with identity_context(pop.clinician), connection.cursor() as cur:
            cur.execute("UPDATE patient_memory SET valid_from = now() - interval '400 days', "
                        "valid_until = now() - interval '1 day' WHERE memory_id = %s", [memory_id])
    elif how == "quarantined":
        with identity_context(pop.clinician):
            review.memory_quarantine(identity=pop.clinician, patient_id=patient_id, memory_id=memory_id,
                                     reason_code="eval_unverified")


def _load_patient(pop: Population, pkey: str, memories: dict, specs: dict[str, TypeSpec | None]) -> None:
    needed = {specs[e["memory_type"]].purposes[0] for e in memories.values()
              if specs.get(e["memory_type"]) is not None
              and specs[e["memory_type"]].memory_class != MemoryClass.CARE_CONTEXT}
    me, consents = _patient_setup(pop, pkey, needed)
    # Written in the set's order, except that what it says was superseded goes first: a set whose superseded value
    # comes after its successor (blind2's r006) had the service supersede the successor by it, so the decoy stayed
    # current and was scored as a stale hit. Stable: otherwise the set's order is the order of writing.
    for mkey, entry in sorted(memories.items(), key=lambda item: item[1].get("stale") != "superseded"):
        pop.memories += 1
        name = entry["memory_type"]
        pop.types_of[(pkey, mkey)] = name
        if entry.get("stale"):
            pop.stale[(pkey, mkey)] = entry["stale"]
        spec = specs.get(name)
        if spec is not None and entry.get("version") not in (None, spec.version):
            pop.fail(name, "version", f"set_version_{entry['version']}_not_the_latest")  # written at the latest
        try:
            memory = _record(pop, me, consents, pkey, mkey, entry, spec)
        except ApiError as exc:
            pop.fail(name, "record", exc)
            continue
        pop.keys[memory.memory_id] = (pkey, mkey)
        pop.loaded.add((pkey, mkey))
        if entry.get("stale") in ("expired", "quarantined"):
            try:
                _make_stale(pop, me.patient_self_id, memory.memory_id, entry["stale"])
            except ApiError as exc:
                pop.fail(name, entry["stale"], exc)


def _verify(pop: Population) -> None:
    """After loading: each stale memory out of the current ones, each other one current and with a vector of the
    current model. A difference is a failure of its type (``stale_still_current`` means the service did not
    supersede what the set says is superseded)."""
    model = vector_model()
    for pkey, pid in pop.patient_ids.items():
        with identity_context(pop.clinician):
            current = set(selectors.memory_list_current(identity=pop.clinician, patient_id=pid)
                          .values_list("memory_id", flat=True))
            vectors = set(MemoryEmbedding.objects.filter(memory_id__in=current, model=model)
                          .values_list("memory_id", flat=True))
        for memory_id, (p, m) in pop.keys.items():
            if p != pkey:
                continue
            name, stale = pop.types_of[(p, m)], pop.stale.get((p, m))
            if stale and memory_id in current:
                pop.fail(name, "verify", f"{stale}_still_current")
            elif not stale and memory_id not in current:
                pop.fail(name, "verify", "not_current")
            elif not stale and memory_id not in vectors:
                pop.fail(name, "verify", "no_vector")


def load_population(data: dict, org_types: list[dict]) -> Population:
    """A fresh organisation with the set's types, patients, consents, grants and memories, vectors written."""
    org = uuid.uuid4()
    pop = Population(org=org, clinician=Identity(org_id=org, actor_sub="eval-clinician"),
                     admin=Identity(org_id=org, actor_sub="eval-admin",
                                    scopes=frozenset({"grant:write", "patient:write", "memory_type:write"})))
    register_types(pop, org_types)
    specs = _types(pop, {e["memory_type"] for ms in data["patients"].values() for e in ms.values()})
    for pkey, memories in data["patients"].items():
        _load_patient(pop, pkey, memories, specs)
    if not vector_writes.wait(timeout=VECTOR_TIMEOUT_SECONDS):  # questions are asked of stored vectors
        pop.fail("*", "vectors", "timeout")
    _verify(pop)
    return pop


@dataclass(frozen=True)
class Answer:
    """What search answered to one question, as keys: (patient key, memory key, high) per hit, best first."""
    kind: str
    patient: str
    expected: frozenset[str]
    hits: tuple[tuple[str | None, str | None, bool], ...]
    seconds: float


def ask(pop: Population, questions: list[dict]) -> list[Answer]:
    """Every question through ``memory_search`` as the clinician (a grant for every purpose), timed as a request
    is: its transaction included. One untimed search first, so loading the query path is not counted."""
    if questions:
        first = questions[0]
        with identity_context(pop.clinician):
            memory_search(identity=pop.clinician, patient_id=pop.patient_ids[first["patient"]], question="warm up")
    answers = []
    for q in questions:
        started = time.perf_counter()
        with identity_context(pop.clinician):
            result = memory_search(identity=pop.clinician, patient_id=pop.patient_ids[q["patient"]],
                                   question=q["question"])
        seconds = time.perf_counter() - started
        hits = tuple((*pop.keys.get(h.memory.memory_id, (None, None)), h.confidence == HIGH) for h in result.hits)
        answers.append(Answer(kind=q["kind"], patient=q["patient"], expected=frozenset(q["expected"]), hits=hits,
                              seconds=seconds))
    return answers


def _ratio(num: float, den: int) -> float | None:
    return round(num / den, 4) if den else None


def figures(answers: list[Answer], pop: Population, k: int) -> dict:
    """The figures of a group of questions (see the module docstring); None where no question applies."""
    answerable = [a for a in answers if a.expected]
    empty = [a for a in answers if not a.expected]
    p1 = hit_k = kept_high = 0
    rr = 0.0
    for a in answerable:
        right = [p == a.patient and m in a.expected for p, m, _high in a.hits]
        first = right.index(True) if True in right else None
        if first is not None:
            p1 += first == 0
            hit_k += first < k
            rr += 1 / (first + 1)
        high = [i for i, (_p, _m, is_high) in enumerate(a.hits) if is_high]
        kept_high += bool(high) and right[high[0]]
    kept_low = sum(1 for a in empty if not any(is_high for _p, _m, is_high in a.hits))
    return {
        "questions": len(answers), "answerable": len(answerable), "no_answer": len(empty),
        "p@1": _ratio(p1, len(answerable)), f"hit@{k}": _ratio(hit_k, len(answerable)),
        "mrr": _ratio(rr, len(answerable)), "answer_kept_high": _ratio(kept_high, len(answerable)),
        "no_answer_kept_low": _ratio(kept_low, len(empty)),
        "leakage": sum(1 for a in answers for p, _m, _h in a.hits if p != a.patient),
        "stale_returned": sum(1 for a in answers for p, m, _h in a.hits if (p, m) in pop.stale),
        "unloaded": sum(1 for a in answers if any((a.patient, m) not in pop.loaded for m in a.expected)),
    }


def _percentile(values: list[float], share: float) -> float | None:
    """Nearest-rank percentile, in milliseconds."""
    if not values:
        return None
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))], 1)


def evaluate(data: dict, *, split: str, org_types: list[dict] | None = None, eval_set: str = "blind") -> dict:
    """Load one split into a fresh organisation, ask its questions, and report (aggregates only)."""
    started = time.perf_counter()
    descriptions = load_type_descriptions(eval_set)
    org_types = load_org_types(eval_set) if org_types is None else org_types
    pop = load_population(data, org_types)
    loaded_at = time.perf_counter()
    answers = ask(pop, data["questions"])
    k = int(data.get("k", 3))
    by_kind = {kind: figures([a for a in answers if a.kind == kind], pop, k) for kind in KINDS}
    by_kind.update({kind: figures([a for a in answers if a.kind == kind], pop, k)
                    for kind in sorted({a.kind for a in answers} - set(KINDS))})
    seconds = [a.seconds for a in answers]
    return {
        "set": eval_set, "split": split, "k": k, "organization_id": str(pop.org),
        "patients": len(data["patients"]), "memories": pop.memories, "memories_loaded": len(pop.loaded),
        "types_registered": pop.types_registered,
        "types_refused": [{"type": name, "code": code} for name, code in pop.types_refused],
        "types_without_description": sorted({d["name"] for d in org_types} - set(descriptions)),
        "load_failures": [{"type": t, "stage": stage, "code": code, "count": n}
                          for (t, stage, code), n in sorted(pop.failures.items())],
        "overall": figures(answers, pop, k), "by_kind": by_kind,
        "safety_critical_p@1": by_kind["safety_critical"]["p@1"],
        "latency_ms": {"p50": _percentile(seconds, 0.5), "p95": _percentile(seconds, 0.95),
                       "max": _percentile(seconds, 1.0)},
        "seconds": {"load": round(loaded_at - started, 1), "ask": round(time.perf_counter() - loaded_at, 1)},
    }


COLUMNS = (("questions", "n"), ("p@1", "P@1"), ("hit@k", "hit@{k}"), ("mrr", "MRR"),
           ("answer_kept_high", "ans-high"), ("no_answer", "n-none"), ("no_answer_kept_low", "none-low"),
           ("leakage", "leak"), ("stale_returned", "stale"), ("unloaded", "unloaded"))


def _cell(value) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def format_report(report: dict, *, title: str) -> str:
    """One split as text: what loaded, then a table (a row per kind, then all), then latency."""
    k = report["k"]
    lines = [title, "=" * len(title),
             f"organisation types registered: {len(report['types_registered'])}"
             f" (refused: {len(report['types_refused'])})"]
    lines += [f"  refused type {r['type']}: {r['code']}" for r in report["types_refused"]]
    lines.append(f"patients {report['patients']}, memories loaded {report['memories_loaded']}/{report['memories']}")
    lines.append(f"load failures: {sum(f['count'] for f in report['load_failures'])}")
    lines += [f"  {f['count']:>3}  {f['type']}  {f['stage']}  {f['code']}" for f in report["load_failures"]]
    heads = ["kind"] + [head.format(k=k) for _key, head in COLUMNS]
    rows = [[kind] + [_cell(fig.get(key.replace("hit@k", f"hit@{k}"))) for key, _h in COLUMNS]
            for kind, fig in [*report["by_kind"].items(), ("all", report["overall"])]]
    widths = [max(len(r[i]) for r in [heads, *rows]) for i in range(len(heads))]
    lines.append("")
    for i, row in enumerate([heads, *rows]):
        if i == len(rows):  # a rule above the overall row
            lines.append("  ".join("-" * w for w in widths))
        lines.append("  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in enumerate(zip(row, widths,
                                                                                                  strict=True))))
    lat = report["latency_ms"]
    lines += ["", f"safety-critical P@1: {_cell(report['safety_critical_p@1'])}",
              f"search latency (informational): p50 {lat['p50']} ms, p95 {lat['p95']} ms, max {lat['max']} ms",
              f"time: load {report['seconds']['load']} s, questions {report['seconds']['ask']} s"]
    return "\n".join(lines)
