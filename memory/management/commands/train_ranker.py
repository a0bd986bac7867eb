"""Train the scoring head search ranks with (memory.retrieval.training) on the calibration split of the blind
evaluation set; --write stores it in memory/retrieval_model.json, which search reads. The held-out split is never
read: quote its figures from ``make eval`` after training."""

import json

from django.core.management.base import BaseCommand

from memory.retrieval import training


class Command(BaseCommand):
    help = "Fit the retrieval scoring head and its confidence thresholds on the calibration split"

    def add_arguments(self, parser):
        parser.add_argument("--write", action="store_true", help="store the model in memory/retrieval_model.json")

    def handle(self, *args, **options):
        model = training.train(training.collect("calibration"))
        if options["write"]:
            training.write(model)
        self.stdout.write(json.dumps(model, indent=2) + "\n")
