"""Evaluate retrieval on the evaluation set. The set is split once, for good, into a calibration part and a
held-out part (``split`` on each question): --calibrate searches the blend weights and threshold on the
calibration part only, --write stores them in memory/retrieval_calibration.json (which search reads), and the
figures to quote are the held-out ones."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from memory import evaluation
from memory.retrieval.calibration import CALIBRATION_FILE, calibration


class Command(BaseCommand):
    help = "Report P@1, hit@k, MRR, no-answer accuracy, leakage, stale results and the safety rule; calibrate"

    def add_arguments(self, parser):
        parser.add_argument("--calibrate", action="store_true", help="fit on the calibration split")
        parser.add_argument("--write", action="store_true", help="with --calibrate: store the result")
        parser.add_argument("--file", type=Path, help="another evaluation set (every question reported)")

    def handle(self, *args, **options):
        data = evaluation.load(options["file"])
        collected = evaluation.collect(data)
        runs = collected["runs"]

        def part(name):
            return {**collected, "runs": [r for r in runs if name is None or r["item"].get("split") == name]}

        def report(cal, parts):
            return {name or "all": evaluation.score(part(name), **cal) for name in parts}

        current = calibration()
        weights = {"cosine_weight": current.cosine_weight, "text_weight": current.text_weight,
                   "concept_weight": current.concept_weight,
                   "mismatch_weight": current.mismatch_weight, "min_score": current.min_score,
                   "relative_cutoff": current.relative_cutoff}
        parts = (None,) if options["file"] else ("heldout", "calibration")
        out = {"current": report(weights, parts)}
        if options["calibrate"]:
            best = evaluation.calibrate(part("calibration"))
            fitted = {k: best[k] for k in evaluation.WEIGHTS}
            out["calibrated"] = report(fitted, parts)
            if options["write"]:
                CALIBRATION_FILE.write_text(json.dumps({
                    **fitted, "limit": 5, "low_limit": 3,
                    "measured_on": "memory/eval/retrieval_eval.json (fitted on split=calibration)",
                    "heldout": {k: v for k, v in out["calibrated"]["heldout"].items() if k not in evaluation.WEIGHTS},
                }, indent=2) + "\n")
                calibration.cache_clear()
        self.stdout.write(json.dumps(out, indent=2))
