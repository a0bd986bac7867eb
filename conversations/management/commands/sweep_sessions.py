"""Remove expired conversations and ended ones past their retention, with their turns. Idempotent; run from cron."""

import time

from django.core.management.base import BaseCommand

from conversations.services import session_sweep
from core.observability import sweep_record


class Command(BaseCommand):
    help = "Remove expired and ended conversation sessions and their turns"

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=500)

    def handle(self, *args, batch, **options):
        started = time.monotonic()
        counts = session_sweep(batch=batch)
        sweep_record(sweep="sessions", started=started, counts=counts)
        self.stdout.write(f"sessions={counts['sessions']} turns={counts['turns']}")
