"""Settle operations whose consent lapsed, and redact personal values from settled operations and finished workflows
past retention. Idempotent; cron-safe."""

import time

from django.core.management.base import BaseCommand

from core.observability import sweep_record
from workflows.retention import workflow_sweep


class Command(BaseCommand):
    help = ("Settle operations asked for under a consent that lapsed since, and redact settled operation payloads and "
            "finished workflow state whose retention has passed")

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=500)

    def handle(self, *args, batch, **options):
        started = time.monotonic()
        counts = workflow_sweep(batch=batch)
        sweep_record(sweep="workflows", started=started, counts=counts)
        self.stdout.write(f"operations_lapsed={counts['operations_lapsed']} "
                          f"operation_payloads={counts['operation_payloads']} "
                          f"workflow_states={counts['workflow_states']}")
