"""Train the scoring head search ranks with (memory.retrieval.training) on the tuning splits of the blind
evaluation sets; --write stores it in memory/retrieval_model.json, which search reads. The held-out splits are never
read: quote their figures from ``make eval`` after training."""

import json

from django.core.management.base import BaseCommand

from memory.retrieval import training


class Command(BaseCommand):
    help = "Fit the retrieval scoring head and its confidence thresholds on the calibration split"

    def add_arguments(self, parser):
        parser.add_argument("--write", action="store_true", help="store the model in memory/retrieval_model.json")
        parser.add_argument("--compare", action="store_true",
                            help="then compare rankers on the held-out split (aggregate figures only; report them, "
                                 "never tune on them)")

    def handle(self, *args, **options):
        calibration = training.collect_all(0)
        model = training.train(calibration)
        if options["write"]:
            training.write(model)
        self.stdout.write(json.dumps(model, indent=2) + "\n")
        if options["compare"]:
            table = training.compare(calibration, training.collect_all(1), model)
            self.stdout.write("\nHELD-OUT split, rankers side by side (thresholds chosen on the calibration split)\n")
            heads = ("p@1", "hit@3", "mrr", "answer_kept_high", "no_answer_kept_low")
            self.stdout.write(f"{'ranker':70s} " + " ".join(f"{h:>18s}" for h in heads) + "\n")
            for name, f in table.items():
                self.stdout.write(f"{name:70s} " + " ".join(f"{f[h]:18.3f}" for h in heads) + "\n")
