"""The blend weights, threshold and limits search uses, as measured on the evaluation set
(``manage.py evaluate_retrieval --calibrate --write`` stores them in ``memory/retrieval_calibration.json``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# Beside the package rather than in it: the evaluation command writes it, and the shipped package data names it.
CALIBRATION_FILE = Path(__file__).parent.parent / "retrieval_calibration.json"


@dataclass(frozen=True)
class Calibration:
    min_score: float
    cosine_weight: float
    text_weight: float
    relative_cutoff: float
    limit: int
    concept_weight: float = 0.0
    mismatch_weight: float = 0.0
    low_limit: int = 3


@lru_cache(maxsize=1)
def calibration() -> Calibration:
    """Threshold and blend weights measured on the evaluation set (``manage.py evaluate_retrieval --write``)."""
    data = json.loads(CALIBRATION_FILE.read_text())
    return Calibration(min_score=data["min_score"], cosine_weight=data["cosine_weight"],
                       text_weight=data["text_weight"], relative_cutoff=data.get("relative_cutoff", 0.0),
                       limit=data.get("limit", 5), concept_weight=data.get("concept_weight", 0.0),
                       mismatch_weight=data.get("mismatch_weight", 0.0),
                       low_limit=data.get("low_limit", 3))
