"""One embedding process per machine: the local model behind an OpenAI-compatible ``POST /v1/embeddings`` on
loopback, so web workers (``EMBEDDING_PROVIDER=local-server``) never import torch. ``manage.py serve`` starts it
beside gunicorn; it can also run on its own.

Answers ``{"object": "list", "model": ..., "data": [{"object": "embedding", "index": i, "embedding": [...]}]}``;
``GET /health`` is 200 once the model is loaded. Bad input gets a 4xx JSON error, never a traceback. Texts are
never logged.
"""

from __future__ import annotations

import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson
from django.core.management.base import BaseCommand, CommandError

from memory.embeddings import LocalMiniLM

log = logging.getLogger("anamnesis.embeddings")

MAX_BODY_BYTES = 1024 * 1024
MAX_INPUTS = 256


def make_server(host: str, port: int, model: LocalMiniLM) -> ThreadingHTTPServer:
    lock = threading.Lock()  # one encode at a time: the model uses its own thread budget

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # The headers and the body leave in two writes: with Nagle's algorithm the body waits for the client's
        # (delayed) acknowledgement of the headers on a kept-alive connection, about 40 ms per answer.
        disable_nagle_algorithm = True

        def _send(self, status: int, payload: dict) -> None:
            body = orjson.dumps(payload)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _error(self, status: int, message: str) -> None:
            self._send(status, {"error": {"message": message, "type": "invalid_request_error"}})

        def do_GET(self):  # noqa: N802
            if self.path == "/health":
                self._send(200, {"status": "ok", "model": model.name})
            else:
                self._error(404, "not found")

        def do_POST(self):  # noqa: N802
            if self.path != "/v1/embeddings":
                return self._error(404, "not found")
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                return self._error(400, "bad Content-Length")
            if length <= 0 or length > MAX_BODY_BYTES:
                self.close_connection = True
                return self._error(413 if length > MAX_BODY_BYTES else 400, "body missing or too large")
            try:
                body = orjson.loads(self.rfile.read(length))
                texts = body["input"]
            except (ValueError, KeyError, TypeError):
                return self._error(400, "expected a JSON object with 'input'")
            if isinstance(texts, str):
                texts = [texts]
            if (not isinstance(texts, list) or not texts or len(texts) > MAX_INPUTS
                    or not all(isinstance(t, str) for t in texts)):
                return self._error(400, f"'input' must be a string or 1-{MAX_INPUTS} strings")
            with lock:
                vectors = model.embed(texts)
            self._send(200, {"object": "list", "model": model.name,
                             "data": [{"object": "embedding", "index": i, "embedding": v}
                                      for i, v in enumerate(vectors)]})

        def log_message(self, *args):  # never log texts; requests are not worth a line each
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


class Command(BaseCommand):
    help = "Serve the local embedding model over loopback HTTP (OpenAI-compatible /v1/embeddings)"

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8079)

    def handle(self, *args, host, port, **options):
        if host not in ("127.0.0.1", "::1", "localhost"):
            raise CommandError("the embedding server listens on loopback only")
        model = LocalMiniLM()
        model.warm_up()
        try:
            server = make_server(host, port, model)
        except OSError as exc:
            raise CommandError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
        self.stdout.write(f"embedding server ({model.name}) on http://{host}:{port}")
        self.stdout.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
