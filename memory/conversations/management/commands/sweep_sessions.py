"""Remove expired conversations and ended ones past their retention, with their turns. Idempotent; run from cron."""

from django.core.management.base import BaseCommand

from memory.conversations.services import session_sweep


class Command(BaseCommand):
    help = "Remove expired and ended conversation sessions and their turns"

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=500)

    def handle(self, *args, batch, **options):
        counts = session_sweep(batch=batch)
        self.stdout.write(f"sessions={counts['sessions']} turns={counts['turns']}")
