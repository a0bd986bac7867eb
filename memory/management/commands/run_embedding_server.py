"""One embedding process per machine: the local model behind an OpenAI-compatible ``POST /v1/embeddings`` on
loopback, so web workers (``EMBEDDING_PROVIDER=local-server``) never import torch. ``manage.py serve`` starts it
beside gunicorn; it can also run on its own.

Answers ``{"object": "list", "model": ..., "data": [{"object": "embedding", "index": i, "embedding": [...]}]}``;
``GET /health`` is 200 once the model is loaded. Bad input gets a 4xx JSON error, never a traceback. Texts are
never logged. The model runs one call at a time on its own thread, and requests that arrive while it is busy
share its next call when that costs less than calling it for each (:class:`Batcher`).
"""

from __future__ import annotations

import collections
import logging
import queue
import threading
from concurrent.futures import Future
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson
from django.core.management.base import BaseCommand, CommandError

from memory.embeddings import EmbeddingProvider, LocalMiniLM

log = logging.getLogger("anamnesis.embeddings")

MAX_BODY_BYTES = 1024 * 1024
MAX_INPUTS = 256


class _Job:
    __slots__ = ("texts", "longest", "future")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.longest = max(Batcher.tokens(t) for t in texts)
        self.future: Future[list[list[float]]] = Future()


class Batcher:
    """The model, called by one thread; requests that arrive while it is busy share its next call when that costs
    less than a call each.

    On one core most of a small call's cost is the call itself: one short text (a question, a memory being
    written) takes about 7 ms, two 9 ms, four 11 ms. But a batch is padded to its longest text, so a short text
    beside a long one costs as much as a long one (short and long together 94 ms, apart 7 + 47 ms). A waiting
    request joins the batch only if the estimated cost of the joint call is below that of the two calls
    (:meth:`joins`); one of more than ``max_texts`` texts (a reindexing batch) runs on its own. Requests are
    taken in arrival order; one left out of a batch is the first of the next. If a joint call fails, each request
    in it is tried alone, so one text the model refuses fails only its own request.
    """

    # The cost model, in tokens' worth of work per text of the batch's longest length (all-MiniLM-L6-v2 on one
    # thread, about 0.1 ms per token): a call costs about 57 tokens' worth (5.7 ms) and each text in it about
    # 3 more than its padded length.
    CALL_TOKENS = 57
    TEXT_TOKENS = 3
    MAX_TOKENS = 256  # the model's sequence limit: longer texts are truncated

    def __init__(self, model: EmbeddingProvider, max_texts: int = LocalMiniLM.SMALL_CALL) -> None:
        self._model = model
        self._max_texts = max_texts
        self._arrived: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._waiting: collections.deque[_Job] = collections.deque()
        self._thread = threading.Thread(target=self._serve, name="embedding-model", daemon=True)
        self._thread.start()

    def alive(self) -> bool:
        return self._thread.is_alive()

    @classmethod
    def tokens(cls, text: str) -> int:
        """About how many tokens the model sees: WordPiece makes about one of every four characters of English
        text, plus the two markers."""
        return min(len(text) // 4 + 2, cls.MAX_TOKENS)

    @classmethod
    def cost(cls, texts: int, longest: int) -> int:
        return cls.CALL_TOKENS + texts * (cls.TEXT_TOKENS + longest)

    @classmethod
    def joins(cls, texts: int, longest: int, job: _Job) -> bool:
        together = cls.cost(texts + len(job.texts), max(longest, job.longest))
        return together < cls.cost(texts, longest) + cls.cost(len(job.texts), job.longest)

    def embed(self, texts: list[str]) -> list[list[float]]:
        job = _Job(texts)
        self._arrived.put(job)
        while not job.future.done():
            try:
                job.future.exception(timeout=1.0)  # waits; returns (not raises) what the model raised
            except TimeoutError:
                if not self.alive():
                    raise RuntimeError("the embedding model's thread has stopped") from None
        if isinstance(job.future.exception(), Exception | None):
            return job.future.result()
        raise RuntimeError("the embedding model's thread has stopped") from job.future.exception()

    def _serve(self) -> None:
        while True:
            if not self._waiting:
                self._waiting.append(self._arrived.get())
            while True:
                try:
                    self._waiting.append(self._arrived.get_nowait())
                except queue.Empty:
                    break
            self._run(self._next_batch())

    def _next_batch(self) -> list[_Job]:
        first = self._waiting.popleft()
        batch, texts, longest = [first], len(first.texts), first.longest
        if texts > self._max_texts:
            return batch
        for job in list(self._waiting):
            if texts + len(job.texts) <= self._max_texts and self.joins(texts, longest, job):
                self._waiting.remove(job)
                batch.append(job)
                texts, longest = texts + len(job.texts), max(longest, job.longest)
        return batch

    def _run(self, batch: list[_Job]) -> None:
        try:
            vectors = self._model.embed([text for job in batch for text in job.texts])
        except Exception as exc:  # noqa: BLE001 (handed to the request that asked; the server stays up)
            if len(batch) > 1:
                for job in batch:
                    self._run([job])
            else:
                batch[0].future.set_exception(exc)
            return
        except BaseException as exc:  # the thread ends (``/health`` says so); nobody is left waiting for it
            for job in (*batch, *self._waiting):
                job.future.set_exception(exc)
            raise
        start = 0
        for job in batch:
            job.future.set_result(vectors[start:start + len(job.texts)])
            start += len(job.texts)


def make_server(host: str, port: int, model: EmbeddingProvider) -> ThreadingHTTPServer:
    batcher = Batcher(model)

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
                if batcher.alive():
                    self._send(200, {"status": "ok", "model": model.name})
                else:
                    self._send(503, {"status": "unavailable", "model": model.name})
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
            vectors = batcher.embed(texts)
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
