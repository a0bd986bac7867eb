"""A WSGI application that answers with its process id after a short pause (tests/test_gunicorn_worker.py); with
``?fast`` at once, with the process and the thread that served it."""

import os
import threading
import time


def application(environ, start_response):
    if environ.get("QUERY_STRING") == "fast":
        body = f"{os.getpid()}:{threading.get_ident()}".encode()
    else:
        time.sleep(0.05)  # long enough that the requests of one round overlap
        body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
