"""Re-encrypt sensitive memory values under MEMORY_ENCRYPTION_ACTIVE_KEY. Run after adding a key and switching
the active key id; once it reports 0 the old key can be removed from MEMORY_ENCRYPTION_KEYS."""

from django.core.management.base import BaseCommand

from memory.deletion import memory_rotate_keys


class Command(BaseCommand):
    help = "Re-encrypt sensitive memory values under the active key"

    def handle(self, *args, **options):
        self.stdout.write(f"rotated={memory_rotate_keys()}")
