"""Serve the application: uvicorn worker processes on ``config.asgi`` (the REST API, portal and ``/mcp``), or, with
``--wsgi``, gunicorn on ``config.wsgi`` without the MCP server. Both refuse to start when the runtime role could
bypass row-level security (core.E001)."""

import os
import sys
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the service (REST API, portal and the MCP server at /mcp)"

    def add_arguments(self, parser):
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "2")))
        parser.add_argument("--threads", type=int, default=int(os.environ.get("WEB_THREADS", "4")))
        parser.add_argument("--wsgi", action="store_true", help="gunicorn on config.wsgi only (no /mcp)")

    def handle(self, *args, bind, workers, threads, wsgi, **options):
        # Metrics of every worker are summed at scrape time (prometheus-client multiprocess mode).
        os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="anamnesis-metrics-"))
        # Neither server writes its own access log: its lines would carry the path, which holds patient ids. The
        # application writes one line per request with the route template instead (core.observability, LOG_ACCESS).
        if wsgi:
            argv = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", bind,
                    "--workers", str(workers), "--threads", str(threads),
                    "--config", str(Path(__file__).resolve().parents[2] / "gunicorn_conf.py"),
                    # ids in anything gunicorn logs are masked (core.logging.mask_ids)
                    "--logger-class", "core.logging.GunicornLogger",
                    "--graceful-timeout", "10"]
        else:
            host, _, port = bind.rpartition(":")
            # Django's synchronous views run in a2wsgi's thread pool of WEB_THREADS per worker (config.asgi).
            os.environ["WEB_THREADS"] = str(threads)
            argv = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", host or "127.0.0.1",
                    "--port", port, "--workers", str(workers), "--timeout-graceful-shutdown", "10",
                    "--no-server-header", "--no-access-log"]
        self.stdout.write(f"serving on http://{bind}")
        sys.stdout.flush()
        os.execv(sys.executable, argv)  # noqa: S606 (fixed argv, no shell)
