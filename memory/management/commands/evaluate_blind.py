"""Evaluate retrieval on the blind evaluation set (memory/eval/blind): each split loaded into a fresh organisation
through the real services and asked through the API's search (memory.evaluation_blind). The held-out split is
printed last and only in aggregate; tune on the calibration split, quote the held-out one."""

import json
import time
from pathlib import Path

from django.core.management.base import BaseCommand

from memory import evaluation_blind

TITLES = {"calibration": "CALIBRATION split (tune on these figures)",
          "heldout": "HELD-OUT split (report these; never tune on them)"}


class Command(BaseCommand):
    help = "P@1, hit@k, MRR, confidence bands, leakage, stale hits and load failures on the blind evaluation set"

    def add_arguments(self, parser):
        parser.add_argument("--split", choices=["calibration", "heldout", "both"], default="both")
        parser.add_argument("--json", type=Path, help="also write the figures (aggregates only) to this file")

    def handle(self, *args, **options):
        splits = evaluation_blind.SPLITS if options["split"] == "both" else (options["split"],)
        reports = {}
        started = time.perf_counter()
        for split in splits:  # calibration first, so the held-out figures are the last thing printed
            reports[split] = evaluation_blind.evaluate(evaluation_blind.load_split(split), split=split)
            self.stdout.write(evaluation_blind.format_report(reports[split], title=TITLES[split]) + "\n\n")
        self.stdout.write(f"total time: {time.perf_counter() - started:.0f} s\n")
        if options["json"]:
            options["json"].parent.mkdir(parents=True, exist_ok=True)
            options["json"].write_text(json.dumps(reports, indent=2) + "\n")
