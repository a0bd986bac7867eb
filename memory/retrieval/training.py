"""Training the question adapter (:mod:`memory.retrieval.adapter`) and the scoring head
(:mod:`memory.retrieval.ranker`) on the tuning splits of the blind evaluation sets.

The split is loaded as ``make eval`` loads it (:func:`memory.evaluation_blind.load_population`: the organisation's
own types with the phrases its administrator wrote, consents, grants, EHR imports, stale values made stale by the
service), every question is asked through the search path up to scoring, and what the head saw of each candidate
(``Hit.features``, as :data:`memory.retrieval.ranker.FEATURES`) is kept with whether the set says it answers.

A logistic regression is fitted on those candidates (Newton's method, L2-regularised; the strength chosen by
cross-validation over patients), and the confidence threshold is chosen on the cross-validated scores, never on
the rows a weight was fitted on: it maximises the worse of the two promises (answerable questions keep their
answer first among the high-confidence hits; questions with nothing on record get no high-confidence hit). A
type gets its own threshold only when the split asked enough about it and its own threshold does better on it.
Then the answerability check (:data:`memory.retrieval.ranker.GATE_FEATURES`) is fitted on the same
cross-validated scores, each question's best candidate labelled by whether it answers, and its threshold chosen
on its own cross-validated probabilities by the same rule: it decides whether the best is high (never below the
lowest threshold a type may have).
Every tuning split is asked twice: as loaded, and with the organisation's own types registered without what they
answer (search then reads their labels and fields, :func:`memory.types.registry.serves_from_definition`), since an
organisation may register its types so; the question adapter is fitted on the first only (the texts are the same),
and both copies of a patient's questions fall in the same fold.
The held-out split is never read here."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

import numpy as np

from core.identity import identity_context
from memory import evaluation_blind
from memory.embeddings import provider
from memory.lexicon import lexicon
from memory.retrieval import adapter
from memory.retrieval.adapter import Adapter
from memory.retrieval.question import understand
from memory.retrieval.ranker import (
    FEATURES,
    GATE_FEATURES,
    GATE_MIN_CANDIDATES,
    MODEL_FILE,
    gate_row,
    probabilities,
    ranker,
    ranker_from,
)
from memory.retrieval.search import rank_candidates
from memory.types.registry import builtin_latest

FOLDS = 4
L2_CHOICES = (0.3, 1.0, 3.0, 10.0)
THRESHOLDS = tuple(round(0.05 + 0.01 * i, 2) for i in range(90))
TYPE_MIN_QUESTIONS = 12  # questions whose best candidate is of the type, before it may have its own threshold
TYPE_SPREAD = 0.1  # how far a type's own threshold may move from the global one (a few questions decide it)
GATE_L2 = 1.0  # the answerability check's regularisation, on standardised features


@dataclass(frozen=True)
class Asked:
    """One question as training sees it: its candidates' features, types and whether each answers it."""
    patient: str
    kind: str
    answerable: bool
    features: np.ndarray  # one row per candidate, columns as ranker.FEATURES
    types: tuple[str, ...]
    answers: np.ndarray  # 1.0 where the candidate is an expected memory
    question: str = ""  # the question as embedded (expanded by the lexicon)
    texts: tuple[str, ...] = ()  # each candidate as embedded (its text expanded by the lexicon)


def collect(split: str = "calibration", eval_set: str = "blind", *, phrases: bool = True) -> list[Asked]:
    """Every question of one set's split, asked up to scoring, with its candidates' features (a held-out split
    only for :func:`compare`, which reports it in aggregate). ``phrases=False``: the organisation's own types are
    registered without what they answer, as an organisation may (search then reads their labels and fields)."""
    data = evaluation_blind.load_split(split, eval_set)
    org_types = evaluation_blind.load_org_types(eval_set)
    if not phrases:
        org_types = [{k: v for k, v in d.items() if k != "serves"} for d in org_types]
    pop = evaluation_blind.load_population(data, org_types)
    asked = []
    for q in data["questions"]:
        question = understand(q["question"])
        with identity_context(pop.clinician):
            hits = rank_candidates(identity=pop.clinician, patient_id=pop.patient_ids[q["patient"]],
                                   question=question)
        keys = [pop.keys.get(h.memory.memory_id, (None, None)) for h in hits]
        asked.append(Asked(
            patient=f"{eval_set}/{q['patient']}", kind=q["kind"], answerable=bool(q["expected"]),
            features=np.array([h.features for h in hits], dtype=float).reshape(-1, len(FEATURES)),
            types=tuple(h.memory.memory_type for h in hits),
            answers=np.array([float(p == q["patient"] and m in q["expected"]) for p, m in keys]),
            question=question.expanded, texts=tuple(lexicon().expand(h.text) for h in hits)))
    return asked


def collect_all(which: int, *, phrases: bool = True) -> list[Asked]:
    """Every available set's tuning split (``which=0``) or held-out split (``which=1``), in :data:`SETS` order."""
    return [a for name in evaluation_blind.available_sets()
            for a in collect(evaluation_blind.splits(name)[which], name, phrases=phrases)]


ADAPTER_RANK = 128
ADAPTER_TAU = 0.05  # the softmax temperature over a question's candidates' cosines
ADAPTER_L2 = 0.003
ADAPTER_EPOCHS = 60
ADAPTER_LEARNING_RATE = 0.01
ADAPTER_NOTHING = 0.4  # where the "nothing answers" option's cosine starts (it is fitted with the adapter)
ADAPTER_SEED = 20261204


def embed_texts(asked: list[Asked]) -> dict[str, np.ndarray]:
    """Every question and candidate text of ``asked`` as the embedding model embeds it (unmoved)."""
    texts = sorted({a.question for a in asked} | {t for a in asked for t in a.texts})
    return {t: np.asarray(v, dtype=np.float32) for t, v in zip(texts, provider().embed(texts), strict=True)}


def fit_adapter(asked: list[Asked], vectors: dict[str, np.ndarray]) -> Adapter:
    """The question adapter (:mod:`memory.retrieval.adapter`) fitted on the questions of ``asked``: full-batch Adam
    on the mean cross-entropy of the softmax over each question's candidates' cosines (the question's vector moved,
    the candidates' as stored) and one more option, "nothing answers", at a cosine fitted with the adapter. An
    answerable question should put its answer first; one with nothing on record (no answer, another patient's fact)
    should put "nothing" first, so the adapter learns to move such questions away from every memory, not only
    towards answers. L2 on the correction. ``vectors``: :func:`embed_texts`. Seeded, one thread: the same vectors
    give the same adapter (a second run's vectors may differ in the last bits, and its adapter by about 1e-5 of its
    largest weight; its digest, which the head records, then differs too)."""
    import torch  # the embedding model's dependency; only training needs it in this process

    examples = [a for a in asked if len(a.texts) and (a.answers.sum() > 0 or not a.answerable)]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(ADAPTER_SEED)
        # every question at once: its candidates padded to the longest list (a padded place can take no weight),
        # the target the answers (shared) or the last column, "nothing answers"
        count, width = len(examples), max(len(a.texts) for a in examples)
        questions = torch.from_numpy(np.vstack([vectors[a.question] for a in examples]))
        dims = questions.shape[1]
        candidates = torch.zeros(count, width, dims)
        padding = torch.ones(count, width, dtype=torch.bool)
        targets = torch.zeros(count, width + 1)
        for i, a in enumerate(examples):
            candidates[i, :len(a.texts)] = torch.from_numpy(np.vstack([vectors[t] for t in a.texts]))
            padding[i, :len(a.texts)] = False
            if a.answerable:
                targets[i, :len(a.texts)] = torch.from_numpy((a.answers / a.answers.sum()).astype(np.float32))
            else:
                targets[i, width] = 1.0
        down = torch.zeros(dims, ADAPTER_RANK, requires_grad=True)
        up = (torch.randn(ADAPTER_RANK, dims) * 0.01).requires_grad_()
        nothing = torch.tensor([ADAPTER_NOTHING], requires_grad=True)
        optimiser = torch.optim.Adam([down, up, nothing], lr=ADAPTER_LEARNING_RATE)
        for _ in range(ADAPTER_EPOCHS):
            optimiser.zero_grad()
            moved = questions + (questions @ down) @ up
            cosines = torch.einsum("nld,nd->nl", candidates, moved / moved.norm(dim=1, keepdim=True))
            logits = torch.cat([cosines.masked_fill(padding, -1.0e4), nothing.expand(count, 1)], 1) / ADAPTER_TAU
            loss = -(targets * torch.log_softmax(logits, 1)).sum() / count
            loss = loss + ADAPTER_L2 * ((down @ up) ** 2).sum()
            loss.backward()
            optimiser.step()
    finally:
        torch.set_num_threads(threads)
    return Adapter(model=provider().name, down=down.detach().numpy().copy(), up=up.detach().numpy().copy())


def with_adapter(a: Asked, fitted: Adapter, vectors: dict[str, np.ndarray]) -> Asked:
    """``a`` with the cosines (and cosine gaps) ``fitted`` makes, computed from ``vectors``."""
    features = a.features.copy()
    if len(features):
        cosines = np.vstack([vectors[t] for t in a.texts]) @ np.asarray(fitted.apply(vectors[a.question]))
        features[:, FEATURES.index("cosine")] = cosines
        features[:, FEATURES.index("cosine_gap")] = cosines - cosines.max()
    return Asked(a.patient, a.kind, a.answerable, features, a.types, a.answers, a.question, a.texts)


def cross_fitted(asked: list[Asked], vectors: dict[str, np.ndarray], folds: int = FOLDS) -> list[Asked]:
    """Every question with the cosines of an adapter fitted without its patient (the folds
    :func:`cross_validated` uses): what the head learns from is what an adapter makes of questions it never saw,
    as in service, not the near-perfect cosines it makes of its own training questions."""
    patients = sorted({a.patient for a in asked})
    out: list[Asked | None] = [None] * len(asked)
    for fold in range(folds):
        held = set(patients[fold::folds])
        fitted = fit_adapter([a for a in asked if a.patient not in held], vectors)
        for i, a in enumerate(asked):
            if a.patient in held:
                out[i] = with_adapter(a, fitted, vectors)
    return [a for a in out if a is not None]


def fit(asked: list[Asked], l2: float) -> np.ndarray:
    """Logistic regression weights over every candidate of ``asked`` (the bias unpenalised)."""
    x = np.vstack([a.features for a in asked if len(a.features)])
    y = np.concatenate([a.answers for a in asked if len(a.features)])
    return _logistic(x, y, l2, FEATURES.index("bias"))


def _logistic(x: np.ndarray, y: np.ndarray, l2: float, bias: int) -> np.ndarray:
    """Newton's method on the L2-regularised log loss (column ``bias`` unpenalised)."""
    penalty = np.full(x.shape[1], l2)
    penalty[bias] = 0.0
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = probabilities(x, w)
        gradient = x.T @ (p - y) + penalty * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def scores(a: Asked, w: np.ndarray) -> np.ndarray:
    return probabilities(a.features, w) if len(a.features) else np.zeros(0)


def cross_validated(asked: list[Asked], l2: float, folds: int = FOLDS) -> list[np.ndarray]:
    """Each question's candidate scores from weights fitted without its patient (patients dealt round-robin)."""
    patients = sorted({a.patient for a in asked})
    out: list[np.ndarray | None] = [None] * len(asked)
    for fold in range(folds):
        held = set(patients[fold::folds])
        w = fit([a for a in asked if a.patient not in held], l2)
        for i, a in enumerate(asked):
            if a.patient in held:
                out[i] = scores(a, w)
    return [s if s is not None else np.zeros(0) for s in out]


def gate_rows(asked: list[Asked], scored: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The answerability check's rows (as :data:`GATE_FEATURES`) of the questions it decides (those with at least
    :data:`GATE_MIN_CANDIDATES` candidates), whether each one's best candidate answers it, and which they are."""
    kept = [i for i, s in enumerate(scored) if len(s) >= GATE_MIN_CANDIDATES]
    x = np.array([gate_row(scored[i], asked[i].features, asked[i].types) for i in kept]).reshape(-1, len(GATE_FEATURES))
    y = np.array([float(asked[i].answerable and asked[i].answers[int(np.argmax(scored[i]))] > 0) for i in kept])
    return x, y, kept


def fit_gate(x: np.ndarray, y: np.ndarray, l2: float = GATE_L2) -> np.ndarray:
    """The answerability check's weights: a logistic regression on the standardised rows, its weights turned back
    to the rows as they come (so the service applies them without the scaling)."""
    bias = GATE_FEATURES.index("bias")
    centre, spread = x.mean(axis=0), x.std(axis=0)
    centre[bias], spread[bias] = 0.0, 1.0
    spread[spread < 1e-9] = 1.0
    w = _logistic((x - centre) / spread, y, l2, bias)
    raw = w / spread
    raw[bias] = w[bias] - float((w / spread) @ centre)
    return raw


def passing(asked: list[Asked], scored: list[np.ndarray], chances: list[float], threshold: float, floor: float,
            type_thresholds: dict[str, float], default: float) -> list[bool]:
    """Whether each question's best candidate is high, as search decides it: by the check (its chance at or above
    ``threshold`` and the best's score at least ``floor``) where there are enough candidates to compare, else by
    the best's type's threshold."""
    out = []
    for a, s, chance in zip(asked, scored, chances, strict=True):
        if len(s) < GATE_MIN_CANDIDATES:
            out.append(bool(len(s)) and s.max() >= type_thresholds.get(a.types[int(np.argmax(s))], default))
        else:
            out.append(bool(s.max() >= floor and chance >= threshold))
    return out


def gate_passes(asked: list[Asked], scored: list[np.ndarray], model: dict) -> list[bool]:
    """Whether each question's best candidate is high by a model file's check, decided as search decides it
    (:meth:`memory.retrieval.ranker.Ranker.answerable`, else the best's type's threshold)."""
    head = ranker_from(model)
    out = []
    for a, s in zip(asked, scored, strict=True):
        decided = head.answerable(s, a.features, a.types)
        if decided is None:
            decided = bool(len(s)) and s.max() >= head.threshold_for(a.types[int(np.argmax(s))])
        out.append(decided)
    return out


def cross_validated_gate(asked: list[Asked], scored: list[np.ndarray], folds: int = FOLDS) -> list[float]:
    """Each question's answerability probability from a check fitted without its patient (0 where the check does
    not decide). ``scored``: the head's cross-validated scores, so the check learns from scores like those of
    questions the head never saw."""
    x, y, kept = gate_rows(asked, scored)
    patients = sorted({a.patient for a in asked})
    out = [0.0] * len(asked)
    for fold in range(folds):
        held = set(patients[fold::folds])
        train_rows = np.array([asked[i].patient not in held for i in kept], dtype=bool)
        if not train_rows.any() or train_rows.all():
            continue
        w = fit_gate(x[train_rows], y[train_rows])
        for row, i in zip(x[~train_rows], np.array(kept)[~train_rows], strict=True):
            out[int(i)] = float(probabilities(row, w))
    return out


def choose_gate_threshold(asked: list[Asked], scored: list[np.ndarray], chances: list[float], floor: float,
                          type_thresholds: dict[str, float], default: float) -> float:
    """The check's threshold, by the rule the head's is chosen by, on its cross-validated ``chances``."""
    return max(THRESHOLDS, key=lambda t: _objective(figures(
        asked, scored, passes=passing(asked, scored, chances, t, floor, type_thresholds, default))))


def _order(a: Asked, s: np.ndarray) -> np.ndarray:
    """The candidates best first by ``s``; equal scores by a digest of their text, an order that owes nothing to
    the order they came in (search's, by the shipped model's score, which would flatter a score that often ties,
    such as a text rank of 0, with the very ranking it is compared with)."""
    if len(a.texts) == len(s):
        return np.lexsort((np.array([zlib.crc32(t.encode()) for t in a.texts]), -s))
    return np.argsort(-s, kind="stable")


def figures(asked: list[Asked], scored: list[np.ndarray], thresholds: dict[str, float] | None = None,
            default: float = 0.5, passes: list[bool] | None = None) -> dict:
    """P@1, hit@3 and MRR of answerable questions; the two confidence promises at the given thresholds (or, with
    ``passes``, by the answerability check: each question's best candidate is high exactly when it passed)."""
    thresholds = thresholds or {}
    p1 = hit3 = kept_high = kept_low = 0
    rr = 0.0
    answerable = [i for i, a in enumerate(asked) if a.answerable]
    empty = [i for i, a in enumerate(asked) if not a.answerable]
    for i, a in enumerate(asked):
        s = scored[i]
        order = _order(a, s)
        if passes is None:
            high = [j for j in order if s[j] >= thresholds.get(a.types[j], default)]
        else:
            high = list(order[:1]) if passes[i] else []
        if a.answerable:
            right = [a.answers[j] > 0 for j in order]
            if True in right:
                first = right.index(True)
                p1 += first == 0
                hit3 += first < 3
                rr += 1 / (first + 1)
            kept_high += bool(high) and a.answers[high[0]] > 0
        else:
            kept_low += not high
    n, m = max(1, len(answerable)), max(1, len(empty))
    return {"p@1": p1 / n, "hit@3": hit3 / n, "mrr": rr / n, "answer_kept_high": kept_high / n,
            "no_answer_kept_low": kept_low / m}


def _objective(f: dict) -> tuple[float, float]:
    return (min(f["answer_kept_high"], f["no_answer_kept_low"]), f["answer_kept_high"] + f["no_answer_kept_low"])


def choose_threshold(asked: list[Asked], scored: list[np.ndarray]) -> float:
    return max(THRESHOLDS, key=lambda t: _objective(figures(asked, scored, default=t)))


def choose_type_thresholds(asked: list[Asked], scored: list[np.ndarray], default: float) -> dict[str, float]:
    """A built-in type's own threshold where the split asked enough about it (its best candidate was of that type in
    at least :data:`TYPE_MIN_QUESTIONS` questions) and it decides those questions better than the default does;
    within :data:`TYPE_SPREAD` of it, the nearest of equally good ones. An organisation's own type, which only
    its organisation has under that name, takes the default: a threshold fitted to an evaluation set's type of
    the same name would say nothing about it."""
    tops: dict[str, list[int]] = {}
    for i, a in enumerate(asked):
        if len(scored[i]):
            tops.setdefault(a.types[int(np.argmax(scored[i]))], []).append(i)
    chosen: dict[str, float] = {}
    builtin = builtin_latest()
    for name, idx in sorted(tops.items()):
        if name not in builtin or len(idx) < TYPE_MIN_QUESTIONS or all(asked[i].answerable for i in idx) \
                or not any(asked[i].answerable for i in idx):
            continue
        sub, sub_scored = [asked[i] for i in idx], [scored[i] for i in idx]
        base = _objective(figures(sub, sub_scored, default=default))
        near = [t for t in THRESHOLDS if abs(t - default) <= TYPE_SPREAD + 1e-9]
        best = max(near, key=lambda t: (_objective(figures(sub, sub_scored, {name: t}, default)), -abs(t - default)))
        if _objective(figures(sub, sub_scored, {name: best}, default)) > base:
            chosen[name] = best
    return chosen


def train(asked: list[Asked]) -> dict:
    """The model file's content: weights on all of ``asked``, the regularisation, thresholds and the
    cross-validated figures they were chosen on."""
    by_l2 = {l2: cross_validated(asked, l2) for l2 in L2_CHOICES}
    l2 = max(L2_CHOICES, key=lambda v: (figures(asked, by_l2[v])["mrr"], -v))
    scored = by_l2[l2]
    threshold = choose_threshold(asked, scored)
    per_type = choose_type_thresholds(asked, scored, threshold)
    weights = fit(asked, l2)
    chances = cross_validated_gate(asked, scored)
    floor = round(threshold - TYPE_SPREAD, 2)  # the lowest threshold a type may have
    gate_threshold = choose_gate_threshold(asked, scored, chances, floor, per_type, threshold)
    gate_weights = fit_gate(*gate_rows(asked, scored)[:2])
    passes = passing(asked, scored, chances, gate_threshold, floor, per_type, threshold)
    kinds = sorted({a.kind for a in asked})
    by_kind = {}
    for kind in kinds:
        idx = [i for i, a in enumerate(asked) if a.kind == kind]
        by_kind[kind] = {k: round(v, 4) for k, v in figures([asked[i] for i in idx], [scored[i] for i in idx],
                                                              passes=[passes[i] for i in idx]).items()}
    return {
        "features": list(FEATURES), "weights": [round(float(w), 6) for w in weights],
        "threshold": threshold, "type_thresholds": per_type, "limit": ranker().limit,
        "low_limit": ranker().low_limit, "l2": l2,
        "gate": {"features": list(GATE_FEATURES), "weights": [round(float(w), 6) for w in gate_weights],
                 "threshold": gate_threshold, "floor": floor, "l2": GATE_L2},
        "question_adapter": adapter.current().digest() if adapter.current() is not None else None,
        "trained_on": sorted({f"memory/eval/{name}/{evaluation_blind.splits(name)[0]}.json"
                              for name in {a.patient.split("/")[0] for a in asked}}),
        "cross_validated": {
            "folds": FOLDS, "questions": len(asked),
            "all": {k: round(v, 4) for k, v in figures(asked, scored, passes=passes).items()},
            "type_thresholds_without_gate": {k: round(v, 4)
                                             for k, v in figures(asked, scored, per_type, threshold).items()},
            "global_threshold_only": {k: round(v, 4) for k, v in figures(asked, scored, default=threshold).items()},
            "by_kind": by_kind},
    }


def write(model: dict) -> None:
    MODEL_FILE.write_text(json.dumps(model, indent=2) + "\n")
    ranker.cache_clear()


def _ranks(values: np.ndarray) -> np.ndarray:
    """1 for the highest value, 2 for the next...; equal values share their average rank (a text rank of 0, most
    candidates', says nothing about their order)."""
    order = np.argsort(-values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(1, len(values) + 1)
    _, tied = np.unique(values, return_inverse=True)
    return (np.bincount(tied, weights=ranks) / np.bincount(tied))[tied]


RRF_K = 60
PREVIOUS_BLEND = {"cosine": 1.0, "text_rank": 1.0, "concept": 0.3, "mismatch": -0.5}  # the ranker this replaced


def _column(a: Asked, name: str) -> np.ndarray:
    return a.features[:, FEATURES.index(name)] if len(a.features) else np.zeros(0)


def _without_intent(a: Asked) -> Asked:
    features = a.features.copy()
    if len(features):
        features[:, [FEATURES.index("intent"), FEATURES.index("intent_gap")]] = 0.0
    return Asked(a.patient, a.kind, a.answerable, features, a.types, a.answers)


VARIANTS = {
    "MiniLM cosine (question moved by the adapter in force)": lambda a: _column(a, "cosine"),
    "PostgreSQL full-text rank": lambda a: _column(a, "text_rank"),
    "hybrid: reciprocal rank fusion of cosine and full-text rank (k=60)": lambda a: (
        1 / (RRF_K + _ranks(_column(a, "cosine"))) + 1 / (RRF_K + _ranks(_column(a, "text_rank")))
        if len(a.features) else np.zeros(0)),
    "previous: fixed blend of cosine, text rank, concept, mismatch": lambda a: sum(
        w * _column(a, name) for name, w in PREVIOUS_BLEND.items()),
}


def compare(calibration: list[Asked], heldout: list[Asked], model: dict) -> dict[str, dict]:
    """Rankers side by side on the held-out questions (aggregate figures only), each with a confidence threshold
    chosen on the calibration split as the shipped head's is: the fixed scores above, the scoring head trained
    without the intent features, and the shipped head."""
    out = {}
    for name, score_of in VARIANTS.items():
        threshold = choose_threshold(calibration, [score_of(a) for a in calibration])
        out[name] = figures(heldout, [score_of(a) for a in heldout], default=threshold)
    plain = [_without_intent(a) for a in calibration]
    w = fit(plain, model["l2"])
    threshold = choose_threshold(plain, cross_validated(plain, model["l2"]))
    out["scoring head without intent"] = figures(heldout, [scores(_without_intent(a), w) for a in heldout],
                                                 default=threshold)
    shipped = np.array(model["weights"])
    shipped_scores = [scores(a, shipped) for a in heldout]
    out["scoring head with intent, per-type thresholds"] = figures(heldout, shipped_scores, model["type_thresholds"],
                                                                   model["threshold"])
    out["scoring head with intent and the answerability check (shipped)"] = figures(
        heldout, shipped_scores, passes=gate_passes(heldout, shipped_scores, model))
    return {name: {k: round(v, 4) for k, v in f.items()} for name, f in out.items()}
