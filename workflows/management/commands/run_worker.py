"""Run the outbox worker: ``python manage.py run_worker`` (several may run at once).

    --once            claim one batch, process it, exit
    --until-idle      exit as soon as nothing is due
    --max-seconds N   exit after N seconds
    --stats-json      print a one-line JSON summary on exit (counts and codes only)

The outside systems are configured by INSURER_BASE_URL and SCHEDULING_BASE_URL, timeouts, retries, lease and
circuit breaker by the WORKFLOW_* settings (see config/settings.py).
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from workflows.worker import Worker, install_signal_handlers


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

    def handle(self, *args, once, until_idle, max_seconds, batch_size, lease_seconds, poll_seconds, name,
               stats_json, **options):
        try:
            worker = Worker(name=name, batch_size=batch_size, lease_seconds=lease_seconds,
                            poll_seconds=poll_seconds)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        install_signal_handlers(worker)
        stats = worker.run(once=once, until_idle=until_idle, max_seconds=max_seconds)
        if stats_json:
            self.stdout.write(json.dumps({"worker": worker.name, **stats.as_dict()}))
