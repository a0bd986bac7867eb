"""Evaluate retrieval on the blind evaluation sets (memory/eval/blind, blind2 ... blind16): each split loaded into a
fresh organisation through the real services and asked through the API's search (memory.evaluation_blind). The
held-out splits are printed last and only in aggregate; tune on the tuning splits, quote the held-out ones."""

import json
import time
from pathlib import Path

from django.core.management.base import BaseCommand

from memory import evaluation_blind


class Command(BaseCommand):
    help = "P@1, hit@k, MRR, confidence bands, leakage, stale hits and load failures on the blind evaluation sets"

    def add_arguments(self, parser):
        parser.add_argument("--set", dest="eval_set", choices=[*evaluation_blind.SETS, "all"], default="all")
        parser.add_argument("--split", choices=["tuning", "heldout", "both"], default="both",
                            help="the split tuned on (calibration, train), the held-out one, or both")
        parser.add_argument("--json", type=Path, help="also write the figures (aggregates only) to this file")

    def handle(self, *args, **options):
        sets = evaluation_blind.available_sets() if options["eval_set"] == "all" else [options["eval_set"]]
        wanted = {"tuning": (0,), "heldout": (1,), "both": (0, 1)}[options["split"]]
        runs = [(s, evaluation_blind.splits(s)[i]) for i in wanted for s in sets]  # every held-out split last
        reports: dict[str, dict] = {}
        started = time.perf_counter()
        for eval_set, split in runs:
            report = evaluation_blind.evaluate(evaluation_blind.load_split(split, eval_set), split=split,
                                               eval_set=eval_set)
            reports[f"{eval_set}/{split}"] = report
            held_out = split == evaluation_blind.splits(eval_set)[1]
            title = (f"{eval_set}: HELD-OUT split (report these; never tune on them)" if held_out
                     else f"{eval_set}: {split.upper()} split (tune on these figures)")
            self.stdout.write(evaluation_blind.format_report(report, title=title) + "\n\n")
        self.stdout.write(f"total time: {time.perf_counter() - started:.0f} s\n")
        if options["json"]:
            options["json"].parent.mkdir(parents=True, exist_ok=True)
            options["json"].write_text(json.dumps(reports, indent=2) + "\n")
