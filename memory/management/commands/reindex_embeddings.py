"""Embed every live memory lacking a vector from the current model (after a model change or an outage)."""

from django.core.management.base import BaseCommand
from tqdm import tqdm

from memory.retrieval.vectors import memory_reindex


class Command(BaseCommand):
    help = "Re-make embeddings for memories without a vector from the current model"

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=200)

    def handle(self, *args, batch, **options):
        with tqdm(desc="embedding", unit="memory", disable=options["verbosity"] == 0) as bar:
            total = memory_reindex(batch=batch, progress=bar.update)
        self.stdout.write(f"embedded={total}")
