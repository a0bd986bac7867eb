"""Generate a population (mixed validity, supersession, quarantine, revocation, proposals) in a fresh
organisation and report the stale-memory rate and cross-patient leakage as figures."""

import json

from django.core.management.base import BaseCommand

from memory.quality import run


class Command(BaseCommand):
    help = "Report stale-memory rate and cross-patient leakage on a generated population"

    def add_arguments(self, parser):
        parser.add_argument("--patients", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, patients, seed, **options):
        report = run(patients=patients, seed=seed)
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
            return
        d = report.as_dict()
        self.stdout.write(
            f"patients={d['patients']} memories_written={d['memories_written']} reads={d['reads']} "
            f"served={d['served']} expected={d['expected']}\n"
            f"stale_served={d['stale_served']} stale_rate={d['stale_rate']:.4f} missing={d['missing']} "
            f"cross_patient_leaks={d['cross_patient_leaks']} cross_org_leaks={d['cross_org_leaks']} "
            f"seconds={d['seconds']}\nscenarios={d['scenarios']}")
