"""A WSGI application that answers with its process id after a short pause (tests/test_gunicorn_worker.py)."""

import os
import time


def application(environ, start_response):
    time.sleep(0.05)  # long enough that the requests of one round overlap
    body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
