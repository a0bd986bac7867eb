"""Expire memories past their validity and erase those past retention. Idempotent; run from cron or a worker."""

import time

from django.core.management.base import BaseCommand

from core.observability import sweep_record
from memory.deletion import memory_sweep


class Command(BaseCommand):
    help = "Expire and erase memories whose validity or retention has passed"

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=500)

    def handle(self, *args, batch, **options):
        started = time.monotonic()
        counts = memory_sweep(batch=batch)
        sweep_record(sweep="memories", started=started, counts=counts)
        self.stdout.write(f"expired={counts['expired']} deleted={counts['deleted']}")
