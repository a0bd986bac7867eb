"""Evaluate retrieval on the evaluation set; --calibrate searches the blend weight and threshold; --write stores
them in memory/retrieval_calibration.json (which search reads)."""

import json

from django.core.management.base import BaseCommand

from memory import evaluation, retrieval


class Command(BaseCommand):
    help = "Report precision@k, recall@k, MRR, leakage and stale results; optionally calibrate"

    def add_arguments(self, parser):
        parser.add_argument("--calibrate", action="store_true")
        parser.add_argument("--write", action="store_true", help="with --calibrate: store the result")

    def handle(self, *args, **options):
        collected = evaluation.collect()
        current = retrieval.calibration()
        report = {"current": evaluation.score(collected, cosine_weight=current.cosine_weight,
                                              text_weight=current.text_weight, min_score=current.min_score,
                                              relative_cutoff=current.relative_cutoff)}
        if options["calibrate"]:
            best = evaluation.calibrate(collected)
            report["calibrated"] = best
            if options["write"]:
                retrieval.CALIBRATION_FILE.write_text(json.dumps({
                    "min_score": best["min_score"], "cosine_weight": best["cosine_weight"],
                    "text_weight": best["text_weight"], "relative_cutoff": best["relative_cutoff"], "limit": 5,
                    "measured_on": "memory/eval/retrieval_eval.json",
                    "metrics": {k: v for k, v in best.items()
                                if k not in ("cosine_weight", "text_weight", "min_score", "relative_cutoff")},
                }, indent=2) + "\n")
                retrieval.calibration.cache_clear()
        self.stdout.write(json.dumps(report, indent=2))
