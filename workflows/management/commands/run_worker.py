"""Run the outbox worker: ``python manage.py run_worker`` (several may run at once).

    --once            claim one batch, process it, exit
    --until-idle      exit as soon as nothing is due
    --max-seconds N   exit after N seconds
    --stats-json      print a one-line JSON summary on exit (counts and codes only)
    --events          also deliver queued events (webhooks) on threads of this process, as
                      ``manage.py deliver_events`` does (a slow endpoint never holds up the operations)

The outside systems are configured by INSURER_BASE_URL and SCHEDULING_BASE_URL, timeouts, retries, lease and
circuit breaker by the WORKFLOW_* settings (see config/settings.py).
"""

from __future__ import annotations

import json
import threading

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from events.delivery import DeliveryWorker
from workflows.worker import Worker, install_signal_handlers


def _deliver(delivery: DeliveryWorker, *, until_idle: bool, max_seconds: float | None) -> None:
    try:
        delivery.run(until_idle=until_idle, max_seconds=max_seconds)
    finally:
        connections.close_all()


class Command(BaseCommand):
    help = "Dispatch due workflow operations (the transactional outbox) to the outside systems"

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="process one batch and exit")
        parser.add_argument("--until-idle", action="store_true", help="exit when nothing is due")
        parser.add_argument("--max-seconds", type=float, default=None, help="exit after this many seconds")
        parser.add_argument("--batch-size", type=int, default=None)
        parser.add_argument("--lease-seconds", type=float, default=None)
        parser.add_argument("--poll-seconds", type=float, default=None)
        parser.add_argument("--name", default=None, help="worker name in claims (default host:pid)")
        parser.add_argument("--stats-json", action="store_true", help="print a JSON summary on exit")
        parser.add_argument("--events", action="store_true", help="also deliver events (webhooks)")

    def handle(self, *args, once, until_idle, max_seconds, batch_size, lease_seconds, poll_seconds, name,
               stats_json, events, **options):
        try:
            worker = Worker(name=name, batch_size=batch_size, lease_seconds=lease_seconds,
                            poll_seconds=poll_seconds)
            delivery = DeliveryWorker(stop=worker.stop) if events else None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        install_signal_handlers(worker)
        thread = None
        if delivery is not None:
            thread = threading.Thread(target=_deliver, args=(delivery,), name="event-delivery",
                                      kwargs={"until_idle": once or until_idle, "max_seconds": max_seconds})
            thread.start()
        stats = worker.run(once=once, until_idle=until_idle, max_seconds=max_seconds)
        if thread is not None:
            thread.join()  # it ends as the worker did: idle, out of time, or stopped by a signal (shared event)
        if stats_json:
            self.stdout.write(json.dumps({"worker": worker.name, **stats.as_dict()}))
