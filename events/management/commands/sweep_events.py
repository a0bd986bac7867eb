"""Remove events past their retention (``EVENT_RETENTION_DAYS``, at least a day) whose deliveries are all settled,
with those deliveries. Idempotent; run from cron."""

import time

from django.core.management.base import BaseCommand

from core.observability import sweep_record
from events.services import events_sweep


class Command(BaseCommand):
    help = "Remove delivered and failed events past their retention, with their deliveries"

    def add_arguments(self, parser):
        parser.add_argument("--older-than-days", type=int, default=None)
        parser.add_argument("--batch", type=int, default=1000)

    def handle(self, *args, older_than_days, batch, **options):
        started = time.monotonic()
        counts = events_sweep(older_than_days=older_than_days, batch=batch)
        sweep_record(sweep="events", started=started, counts=counts)
        self.stdout.write(f"events={counts['events']} deliveries={counts['deliveries']}")
