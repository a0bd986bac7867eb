"""Serve the application: gunicorn on ``config.wsgi`` (the REST API, the portal and ``/mcp``), or, with ``--asgi``,
uvicorn worker processes on ``config.asgi`` (the same). Both refuse to start when the runtime role could bypass
row-level security (core.E001).

gunicorn is the default: its worker (core.gunicorn_worker) gives a request a thread only once the request has
arrived whole (a slow or idle client holds no thread; 408 after ``WEB_REQUEST_READ_TIMEOUT_SECONDS``; under uvicorn
the same deadlines bound a request's head, its body and its answer, core.uvicorn_serve and core.asgi_deadlines), and
leaves a new keep-alive connection to a worker with a free
thread, where uvicorn's workers take whichever they accept first (31/19 of 50 connections in one run), and
it serves Django's synchronous views without a hop through an event loop. Under the 50-connection mixed load it
served about 5% more requests than uvicorn, with a lower p99 (bench.mixed_load; the figures in docs/scaling.md).

With the local embedding model (``EMBEDDING_PROVIDER=local``, the default) and ``EMBEDDING_SERVER_PORT`` set, one
embedding process for the machine (``manage.py run_embedding_server``) starts first, on loopback, and the web
workers reach it as ``EMBEDDING_PROVIDER=local-server``: no web worker imports torch (about 500-700 MB each).
SIGTERM or Ctrl-C stops both; when the web server exits, the embedding server is stopped too. An embedding server
that exits (killed, out of memory) is started again while the web server goes on serving: meanwhile writes are
stored without their vector and searches answer ``503 embedding_provider_unavailable``.

Neither web server writes its own access log: its lines would carry the path, which holds patient ids. The
application writes one line per request with the route template instead (core.observability, LOG_ACCESS).
"""

import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.supervision import supervised, wait_until_ready


def loopback_port_free(port: int) -> bool:
    """Whether nothing listens on 127.0.0.1:``port``. Checked before the embedding server starts there: when another
    process held the port (another service's embedding server, anything answering 200 on /health), the readiness
    check took its answer for our server's, the web workers sent every text to embed (patients' facts and
    questions) to that process, and ours was started again and again, failing to bind."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a closed connection's TIME_WAIT is no owner
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class Command(BaseCommand):
    help = "Run the service (REST API, portal and the MCP server at /mcp; the machine's embedding server beside it)"

    def add_arguments(self, parser):
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "2")))
        parser.add_argument("--threads", type=int, default=int(os.environ.get("WEB_THREADS", "4")))
        parser.add_argument("--asgi", action="store_true", help="uvicorn on config.asgi instead of gunicorn")
        parser.add_argument("--embedding-port", type=int, default=settings.EMBEDDING_SERVER_PORT,
                            help="loopback port of the shared embedding server (0: load the model in-process)")

    def web_argv(self, *, bind: str, workers: int, threads: int, asgi: bool) -> list[str]:
        if not asgi:
            return [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", bind,
                    "--workers", str(workers), "--threads", str(threads),
                    "--config", str(Path(__file__).resolve().parents[2] / "gunicorn_conf.py"),
                    # ids in anything gunicorn logs are masked (core.logging.mask_ids)
                    "--logger-class", "core.logging.GunicornLogger",
                    "--graceful-timeout", "10"]
        host, _, port = bind.rpartition(":")
        # Django's synchronous views run in a2wsgi's thread pool of WEB_THREADS per worker (config.asgi).
        os.environ["WEB_THREADS"] = str(threads)
        # uvicorn's supervised workers, a request head's deadline and a cap on connections (core.uvicorn_serve)
        return [sys.executable, "-m", "core.uvicorn_serve", "--host", host or "127.0.0.1", "--port", port,
                "--workers", str(workers)]

    def handle(self, *args, bind, workers, threads, asgi, embedding_port, **options):
        # Metrics of every worker are summed at scrape time (prometheus-client multiprocess mode), in a directory
        # of this run's own unless one is given; it goes when the service stops.
        made_metrics_dir = None
        if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            made_metrics_dir = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="anamnesis-metrics-")
        argv = self.web_argv(bind=bind, workers=workers, threads=threads, asgi=asgi)
        manage = [sys.executable, os.path.join(settings.BASE_DIR, "manage.py")]
        exited = None  # the web server, once it ended on its own, which ends the service
        try:
            # The web server is started last so that it stops first, and only then the embedding server: workers
            # that stop write the vectors of the memories they have just stored (memory.retrieval.vectors.VectorWrites),
            # which takes the model.
            with supervised(stop_timeout=15) as children:
                env = dict(os.environ)
                if settings.EMBEDDING_PROVIDER == "local" and embedding_port:
                    if not loopback_port_free(embedding_port):
                        raise CommandError(
                            f"the embedding server's port {embedding_port} is in use: another process listens there "
                            f"(another service's embedding server?); choose another with --embedding-port or "
                            f"EMBEDDING_SERVER_PORT")
                    embedder = children.start([*manage, "run_embedding_server", "--port", str(embedding_port)],
                                              restart=True)
                    wait_until_ready(f"http://127.0.0.1:{embedding_port}/health", embedder, name="embedding server",
                                     timeout=60.0, interval=0.3)
                    env.update(EMBEDDING_PROVIDER="local-server",
                               EMBEDDING_BASE_URL=f"http://127.0.0.1:{embedding_port}")
                    self.stdout.write(f"serving on http://{bind} (embeddings from 127.0.0.1:{embedding_port})")
                else:
                    self.stdout.write(f"serving on http://{bind}")
                self.stdout.flush()
                children.start(argv, env=env)
                exited = children.wait()
        finally:
            if made_metrics_dir:
                shutil.rmtree(made_metrics_dir, ignore_errors=True)
        if exited is not None and exited.returncode != 0:
            raise CommandError(f"the web server exited with status {exited.returncode}")
