"""Deliver queued events to the organisations' endpoints: ``python manage.py deliver_events`` (several may run).

    --until-idle      exit as soon as nothing is due
    --max-seconds N   exit after N seconds
    --stats-json      print a one-line JSON summary on exit (counts and codes only)

Timeouts, retries, concurrency and the trusted CAs are the EVENT_DELIVERY_* settings (see config/settings.py).
"""

from __future__ import annotations

import json
import signal

from django.core.management.base import BaseCommand, CommandError

from events.delivery import DeliveryWorker


class Command(BaseCommand):
    help = "Deliver queued events (webhooks) from the event outbox, signed in the Standard Webhooks format"

    def add_arguments(self, parser):
        parser.add_argument("--until-idle", action="store_true", help="exit when nothing is due")
        parser.add_argument("--max-seconds", type=float, default=None, help="exit after this many seconds")
        parser.add_argument("--concurrency", type=int, default=None)
        parser.add_argument("--name", default=None, help="worker name (default host:pid:events)")
        parser.add_argument("--stats-json", action="store_true", help="print a JSON summary on exit")

    def handle(self, *args, until_idle, max_seconds, concurrency, name, stats_json, **options):
        try:
            worker = DeliveryWorker(name=name, concurrency=concurrency)
        except ValueError as exc:
            raise CommandError(str(exc)) from None

        def stop(signum, frame):
            worker.stop.set()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        stats = worker.run(until_idle=until_idle, max_seconds=max_seconds)
        if stats_json:
            self.stdout.write(json.dumps({"worker": worker.name, **stats.as_dict()}))
