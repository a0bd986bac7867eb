"""gunicorn settings: the worker class, and hooks for Prometheus multiprocess mode (manage.py serve passes this file
with -c; ./gunicorn.conf.py, which gunicorn reads by default from the project folder, is this file).

Every worker writes its counters and histograms into ``PROMETHEUS_MULTIPROC_DIR``; /metrics sums them. The directory
is emptied when the server starts (stale files would count twice), and a dead worker's live gauges are dropped.
"""

import os
import shutil


def on_starting(server):
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory, exist_ok=True)


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def worker_exit(server, worker):
    """Export this worker's last spans before it exits (nothing when traces are off)."""
    from core import tracing

    tracing.shutdown()


# gthread, leaving new connections to a worker with a free thread (core.gunicorn_worker)
worker_class = "core.gunicorn_worker.BalancedThreadWorker"

# Above the application's own limits, so that it answers what they refuse with its problem documents (a query
# string over MAX_QUERY_STRING_CHARS, 4,096 characters: 414 query_too_long; headers over 16 KiB in all: 431
# headers_too_large). Beyond these, gunicorn refuses (as the same problem documents, core.gunicorn_worker): the
# request line at 8,190 bytes (its largest bounded setting), a header field at 16 KiB, more than 200 fields.
limit_request_line = 8190
limit_request_field_size = 16384
limit_request_fields = 200

# The connections a worker holds at most (gunicorn's default; serve --asgi reads the same variable,
# core.uvicorn_serve): beyond them it accepts no more until some close
worker_connections = int(os.environ.get("WEB_WORKER_CONNECTIONS", "1000"))

# An idle kept-alive connection stays open 5 s (gunicorn's default is 2 s), as under uvicorn (manage.py serve
# --asgi): a client pausing a few seconds between calls reuses its connection.
keepalive = 5

# No control socket (gunicorn 27 opens $XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl by default): nothing
# here uses it, and two services of one user on one machine would take the same path.
control_socket_disable = True
