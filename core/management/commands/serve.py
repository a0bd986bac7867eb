"""Serve the application with gunicorn. The WSGI module refuses to start when the runtime role could bypass
row-level security (core.E001)."""

import os
import sys

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the service under gunicorn"

    def add_arguments(self, parser):
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "2")))
        parser.add_argument("--threads", type=int, default=int(os.environ.get("WEB_THREADS", "4")))

    def handle(self, *args, bind, workers, threads, **options):
        argv = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", bind,
                "--workers", str(workers), "--threads", str(threads), "--access-logfile", "-",
                "--access-logformat", '%(h)s "%(m)s %(U)s" %(s)s %(b)s %(M)sms rid=%({x-request-id}o)s',
                # ids in logged paths are masked (core.logging.mask_ids)
                "--logger-class", "core.logging.GunicornLogger",
                "--graceful-timeout", "10"]
        self.stdout.write(f"serving on http://{bind}")
        sys.stdout.flush()
        os.execv(sys.executable, argv)  # noqa: S606 (fixed argv, no shell)
