"""Train the question adapter and the scoring head search ranks with (memory.retrieval.training) on the tuning splits
of the blind evaluation sets; --write stores them in memory/retrieval_adapter.npz and memory/retrieval_model.json,
which search reads. The held-out splits are never read: quote their figures from ``make eval`` after training."""

import json

from django.core.management.base import BaseCommand

from memory.retrieval import adapter, training


class Command(BaseCommand):
    help = "Fit the question adapter, the retrieval scoring head and its confidence thresholds on the tuning splits"

    def add_arguments(self, parser):
        parser.add_argument("--write", action="store_true",
                            help="store them in memory/retrieval_adapter.npz and memory/retrieval_model.json")
        parser.add_argument("--compare", action="store_true",
                            help="then compare rankers on the held-out split (aggregate figures only; report them, "
                                 "never tune on them)")

    def handle(self, *args, **options):
        calibration = training.collect_all(0)
        vectors = training.embed_texts(calibration)
        fitted = training.fit_adapter(calibration, vectors)
        # the head and check also learn from the same questions with the organisation's own types registered
        # without phrases (search then reads their labels and fields), as an organisation may register them
        calibration = calibration + training.collect_all(0, phrases=False)
        # the head learns from cosines made by adapters that never saw the question (cross-fitted), and ships
        # with the adapter fitted on every question
        calibration = training.cross_fitted(calibration, vectors)
        adapter.install(fitted)
        try:
            model = training.train(calibration)
            if options["write"]:
                adapter.save(fitted)
                training.write(model)
            self._report(model, calibration, options["compare"])
        finally:
            adapter.uninstall()

    def _report(self, model: dict, calibration: list, compare: bool) -> None:
        self.stdout.write(json.dumps(model, indent=2) + "\n")
        if compare:
            table = training.compare(calibration, training.collect_all(1), model)
            self.stdout.write("\nHELD-OUT split, rankers side by side (thresholds chosen on the calibration split)\n")
            heads = ("p@1", "hit@3", "mrr", "answer_kept_high", "no_answer_kept_low")
            self.stdout.write(f"{'ranker':70s} " + " ".join(f"{h:>18s}" for h in heads) + "\n")
            for name, f in table.items():
                self.stdout.write(f"{name:70s} " + " ".join(f"{f[h]:18.3f}" for h in heads) + "\n")
