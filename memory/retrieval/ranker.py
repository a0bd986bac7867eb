"""The learned scoring head: how likely a candidate answers the question, from a handful of signals.

A logistic regression over features every search has anyway (the cosine of the question with the memory, the
PostgreSQL text rank, the clinical lexicon's concept match and mismatch, the question's intent for the memory's
type and how far that type is behind the question's best one, how far the cosine is behind the best candidate's,
three flags that tie the question's words to the kind of care context, whether the question calls the patient by
the name a memory holds, and how much of the question the memory's words leave uncovered), trained by
``manage.py train_ranker`` (:mod:`memory.retrieval.training`) on the tuning splits of the blind evaluation sets
and stored, with the figures it was chosen on, in ``memory/retrieval_model.json``. A score is a probability.

Whether an answer is confident at all is decided once per question, by a second regression over the candidates
as a whole (the answerability check, :data:`GATE_FEATURES`): the best candidate is ``high`` when it passes, and
nothing is when it does not; the other candidates join the best in the high band when their score reaches their
type's threshold (fitted per type where the split had enough of it)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

MODEL_FILE = Path(__file__).parent.parent / "retrieval_model.json"

# The features, in the order the weights are stored (the training command writes the names it used; a model file
# whose names differ is refused at load, so code and weights never drift apart silently):
# - cosine, text_rank, concept, mismatch: the question against the memory (see memory.retrieval.scoring);
# - intent: the question's intent for the memory's type; intent_gap: that minus the question's best intent (0 for
#   the type it is most about); cosine_gap: the cosine minus the best candidate's;
# - safety_asked: an allergy or long-term medicine, and the question names something one could be given;
#   allergy_asked: an allergy, and the question speaks of allergies or reactions; taking_asked: a long-term
#   medicine, and the question asks what the patient takes (each 0 or 1);
# - name_echo: the patient's preferred name, and the question calls the patient by it (0 or 1);
# - uncovered: the share of the question's content words that neither the memory's text nor its type's serves
#   phrases and name hold (memory.retrieval.coverage); uncovered_gap: that minus the best-covered candidate's;
# - bias: 1.
FEATURES = ("cosine", "text_rank", "concept", "mismatch", "intent", "intent_gap", "cosine_gap",
            "safety_asked", "allergy_asked", "taking_asked", "name_echo", "uncovered", "uncovered_gap", "bias")


# The answerability check: a second logistic regression, over the question's candidates as a whole, that decides
# whether the answer is confident at all (a candidate's own score says how it compares with the others; whether
# anything on record answers is better told by how far the best is ahead of the next ones and what the best
# covers). Its features, as :func:`gate_row` computes them from the scored candidates:
# - top_logit: the best candidate's score as a logit; margin, margin_third: that minus the second's, the third's;
# - candidates: the log of how many were scored;
# - the best candidate's own features (``top_`` and its :data:`FEATURES` name);
# - max_intent, max_concept, min_uncovered: the best of those over every candidate;
# - same_type: the two best are of the same type; second_uncovered: the second's uncovered share;
# - bias: 1.
# The check is a linear model of what it saw in training; a best candidate scoring below the lowest threshold a type
# may have (``floor``) is never high, whatever the check makes of it; with fewer than three candidates (a patient
# with little on record, a narrow filter) the check does not decide, as training never saw that.
_TOP = ("cosine", "text_rank", "concept", "mismatch", "intent", "intent_gap", "cosine_gap", "safety_asked",
        "allergy_asked", "taking_asked", "name_echo", "uncovered", "uncovered_gap")
GATE_FEATURES = ("top_logit", "margin", "candidates", *(f"top_{name}" for name in _TOP), "max_intent",
                 "max_concept", "min_uncovered", "margin_third", "same_type", "second_uncovered", "bias")
GATE_MIN_CANDIDATES = 3  # with fewer, there is nothing to compare the best with: each one's threshold decides
_LOGIT_RANGE = 8.0  # scores are read as logits within +-8 (a probability of 0.0003 to 0.9997): a question's
# second best at 1e-9 would otherwise make any best look far ahead
_NO_LOGIT = -_LOGIT_RANGE  # what stands for a second or third candidate that is not there


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1.0 - 1e-6)
    return float(np.clip(np.log(p / (1.0 - p)), -_LOGIT_RANGE, _LOGIT_RANGE))


def gate_row(scores: np.ndarray, rows: np.ndarray, types: tuple[str, ...]) -> np.ndarray:
    """The answerability check's features (as :data:`GATE_FEATURES`) of one question's scored candidates:
    ``scores`` their head scores, ``rows`` their features (as :data:`FEATURES`), ``types`` their memory types; at
    least one candidate."""
    order = np.argsort(-scores, kind="stable")
    logits = [_logit(scores[i]) for i in order[:3]] + [_NO_LOGIT] * (3 - min(3, len(order)))
    top = rows[order[0]]
    second = order[1] if len(order) > 1 else None
    return np.array([
        logits[0], logits[0] - logits[1], float(np.log(len(order))),
        *(top[FEATURES.index(name)] for name in _TOP),
        rows[:, FEATURES.index("intent")].max(), rows[:, FEATURES.index("concept")].max(),
        rows[:, FEATURES.index("uncovered")].min(), logits[0] - logits[2],
        float(second is not None and types[order[0]] == types[second]),
        rows[second, FEATURES.index("uncovered")] if second is not None else 1.0,
        1.0], dtype=float)


def probabilities(rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The logistic function of each row's weighted sum (rows as :data:`FEATURES`)."""
    return 1.0 / (1.0 + np.exp(-np.clip(rows @ weights, -30.0, 30.0)))


@dataclass(frozen=True)
class Ranker:
    weights: tuple[float, ...]
    threshold: float  # a hit at or above it is ``high``
    type_thresholds: dict[str, float]  # per type, where the calibration split had enough of it
    limit: int = 5  # high-confidence hits answered at most
    low_limit: int = 3  # best guesses answered when nothing reaches the threshold
    gate_weights: tuple[float, ...] = ()  # the answerability check's, as GATE_FEATURES (none: no check)
    gate_threshold: float = 0.5  # the check's probability at or above which the best candidate is ``high``
    gate_floor: float = 0.0  # a best candidate scoring below it is never high (below every type's threshold)

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """The probability that each candidate answers, from its features (one row each, as :data:`FEATURES`)."""
        return probabilities(rows, np.asarray(self.weights, dtype=np.float64))

    def threshold_for(self, memory_type: str) -> float:
        return self.type_thresholds.get(memory_type, self.threshold)

    def answerable(self, scores: np.ndarray, rows: np.ndarray, types: tuple[str, ...]) -> bool | None:
        """Whether the best of these scored candidates is a confident answer, by the answerability check
        (``None`` when the model has none or there are fewer than :data:`GATE_MIN_CANDIDATES` candidates: each
        candidate's threshold decides alone)."""
        if not self.gate_weights or len(scores) < GATE_MIN_CANDIDATES:
            return None
        if scores.max() < self.gate_floor:
            return False
        row = gate_row(scores, rows, types)
        return bool(probabilities(row, np.asarray(self.gate_weights)) >= self.gate_threshold)


def ranker_from(data: dict) -> Ranker:
    """A ranker from a model file's content; refuses one trained on other features."""
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"retrieval model features {data['features']} are not {list(FEATURES)}")
    gate = data.get("gate") or {}
    if gate and tuple(gate["features"]) != GATE_FEATURES:
        raise ValueError(f"retrieval model gate features {gate['features']} are not {list(GATE_FEATURES)}")
    return Ranker(weights=tuple(float(w) for w in data["weights"]), threshold=float(data["threshold"]),
                  type_thresholds={k: float(v) for k, v in data.get("type_thresholds", {}).items()},
                  limit=int(data.get("limit", 5)), low_limit=int(data.get("low_limit", 3)),
                  gate_weights=tuple(float(w) for w in gate.get("weights", ())),
                  gate_threshold=float(gate.get("threshold", 0.5)), gate_floor=float(gate.get("floor", 0.0)))


@lru_cache(maxsize=1)
def ranker() -> Ranker:
    """The shipped model (``manage.py train_ranker --write`` stores it)."""
    return ranker_from(json.loads(MODEL_FILE.read_text()))
