"""Remove Idempotency-Key records past their retention (at least 24 h) and past rate-limit windows. Cron-safe."""

from django.core.management.base import BaseCommand

from core.idempotency import idempotency_sweep


class Command(BaseCommand):
    help = "Remove expired Idempotency-Key records and old rate-limit counters"

    def add_arguments(self, parser):
        parser.add_argument("--older-than-hours", type=int, default=None)

    def handle(self, *args, older_than_hours, **options):
        removed = idempotency_sweep(older_than_hours=older_than_hours)
        self.stdout.write(f"removed={removed}")
