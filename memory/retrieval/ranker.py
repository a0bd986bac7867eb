"""The learned scoring head: how likely a candidate answers the question, from a handful of signals.

A logistic regression over features every search has anyway (the cosine of the question with the memory, the
PostgreSQL text rank, the clinical lexicon's concept match and mismatch, the question's intent for the memory's
type and how far that type is behind the question's best one, how far the cosine is behind the best candidate's,
three flags that tie the question's words to the kind of care context, whether the question calls the patient by
the name a memory holds, and how much of the question the memory's words leave uncovered), trained by
``manage.py train_ranker`` (:mod:`memory.retrieval.training`) on the tuning splits of the blind evaluation sets
and stored, with the figures it was chosen on, in ``memory/retrieval_model.json``. A score is a probability:
the confidence bands cut it at the thresholds fitted there (per type where the split had enough of it)."""

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

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """The probability that each candidate answers, from its features (one row each, as :data:`FEATURES`)."""
        return probabilities(rows, np.asarray(self.weights, dtype=np.float64))

    def threshold_for(self, memory_type: str) -> float:
        return self.type_thresholds.get(memory_type, self.threshold)


def ranker_from(data: dict) -> Ranker:
    """A ranker from a model file's content; refuses one trained on other features."""
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"retrieval model features {data['features']} are not {list(FEATURES)}")
    return Ranker(weights=tuple(float(w) for w in data["weights"]), threshold=float(data["threshold"]),
                  type_thresholds={k: float(v) for k, v in data.get("type_thresholds", {}).items()},
                  limit=int(data.get("limit", 5)), low_limit=int(data.get("low_limit", 3)))


@lru_cache(maxsize=1)
def ranker() -> Ranker:
    """The shipped model (``manage.py train_ranker --write`` stores it)."""
    return ranker_from(json.loads(MODEL_FILE.read_text()))
