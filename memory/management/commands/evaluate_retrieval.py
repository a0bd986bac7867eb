"""Evaluate retrieval on the first evaluation set (memory/eval/retrieval_eval.json, a regression set: its rules
were shaped while looking at it), or on another set given with --file. Search ranks with the trained scoring head
(``manage.py train_ranker``); the figures to quote come from the blind set (``make eval``)."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from memory import evaluation


class Command(BaseCommand):
    help = "Report P@1, hit@k, MRR, no-answer accuracy, leakage, stale results and the safety rule"

    def add_arguments(self, parser):
        parser.add_argument("--file", type=Path, help="another evaluation set (every question reported)")

    def handle(self, *args, **options):
        data = evaluation.load(options["file"])
        collected = evaluation.collect(data)
        runs = collected["runs"]

        def part(name):
            return {**collected, "runs": [r for r in runs if name is None or r["item"].get("split") == name]}

        parts = (None,) if options["file"] else ("heldout", "calibration")
        self.stdout.write(json.dumps({"current": {name or "all": evaluation.score(part(name)) for name in parts}},
                                     indent=2))
