"""Serve the application with gunicorn. The WSGI module refuses to start when the runtime role could bypass
row-level security (core.E001)."""

import os
import sys
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the service under gunicorn"

    def add_arguments(self, parser):
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "2")))
        parser.add_argument("--threads", type=int, default=int(os.environ.get("WEB_THREADS", "4")))

    def handle(self, *args, bind, workers, threads, **options):
        # Metrics of every worker are summed at scrape time (prometheus-client multiprocess mode).
        os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="anamnesis-metrics-"))
        # No gunicorn access log: its lines carry the path, which holds patient ids. The application writes one
        # line per request with the route template instead (core.observability, LOG_ACCESS).
        argv = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", bind,
                "--workers", str(workers), "--threads", str(threads),
                "--config", str(Path(__file__).resolve().parents[2] / "gunicorn_conf.py"),
                "--graceful-timeout", "10"]
        self.stdout.write(f"serving on http://{bind}")
        sys.stdout.flush()
        os.execv(sys.executable, argv)  # noqa: S606 (fixed argv, no shell)
