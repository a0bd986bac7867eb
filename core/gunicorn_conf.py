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


# gthread, leaving new connections to a worker with a free thread (core.gunicorn_worker)
worker_class = "core.gunicorn_worker.BalancedThreadWorker"
