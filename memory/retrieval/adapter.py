"""The question adapter: a small learned correction to a question's vector before it meets the memories' vectors.

MiniLM places a question near texts that share its words; a staff member's question names a situation ("can she
get onto the X-ray table?") where the memory that answers names a need ("uses a wheelchair"). The adapter moves the
question's vector: ``q + (q @ down) @ up``, normalised, with ``down`` 384 x 64 and ``up`` 64 x 384. Only questions
are moved: stored vectors, the text a memory is embedded as and :func:`memory.retrieval.vectors.vector_model` are
unchanged, so a new adapter needs no re-index. The types' phrases are still met by the question's own vector.

It is fitted by ``manage.py train_ranker`` (:func:`memory.retrieval.training.fit_adapter`) on the tuning splits of
the blind evaluation sets: the softmax over each question's candidates' cosines and a fitted "nothing answers" level
(temperature :data:`memory.retrieval.training.ADAPTER_TAU`) should put the answer first, or "nothing" for a
question with nothing on record. It is stored with the embedding model
it was fitted for in ``memory/retrieval_adapter.npz``; under another model (an OpenAI-compatible provider) it is
not applied. The scoring head is trained on cosines made by adapters fitted without each question's patient
(cross-fitted: an adapter's cosines on its own training questions are near perfect), and names the adapter that
ships with it (``memory.E002`` refuses a pair that does not belong together)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from memory.embeddings import provider

ADAPTER_FILE = Path(__file__).parent.parent / "retrieval_adapter.npz"


@dataclass(frozen=True, eq=False)
class Adapter:
    model: str  # the embedding model whose vectors it was fitted on
    down: np.ndarray  # dimensions x rank
    up: np.ndarray  # rank x dimensions

    def apply(self, vector) -> list[float]:
        v = np.asarray(vector, dtype=np.float32)
        moved = v + (v @ self.down) @ self.up
        return (moved / np.linalg.norm(moved)).tolist()

    def digest(self) -> str:
        """What the scoring head records as the adapter it was trained with."""
        h = hashlib.sha256(self.model.encode())
        h.update(np.ascontiguousarray(self.down, dtype=np.float32).tobytes())
        h.update(np.ascontiguousarray(self.up, dtype=np.float32).tobytes())
        return h.hexdigest()[:16]


def save(adapter: Adapter, path: Path = ADAPTER_FILE) -> None:
    with path.open("wb") as f:
        np.savez(f, model=np.array(adapter.model), down=adapter.down.astype(np.float32),
                 up=adapter.up.astype(np.float32))
    _shipped.cache_clear()


def load(path: Path = ADAPTER_FILE) -> Adapter | None:
    if not path.exists():
        return None
    with np.load(path, allow_pickle=False) as data:
        return Adapter(model=str(data["model"]), down=data["down"], up=data["up"])


_installed: list[Adapter | None] = []  # training's (and tests') choice, in place of the shipped file


@lru_cache(maxsize=1)
def _shipped() -> Adapter | None:
    return load()


def install(adapter: Adapter | None) -> None:
    """Use ``adapter`` (None: none at all) instead of the shipped one in this process; :func:`uninstall` undoes it."""
    _installed[:] = [adapter]


def uninstall() -> None:
    _installed.clear()


def current() -> Adapter | None:
    """The adapter in force: the installed one, else the shipped one."""
    return _installed[0] if _installed else _shipped()


def adapt(vector: list[float]) -> list[float]:
    """A question's vector as it meets the memories' vectors: moved by the adapter in force when it was fitted for
    this embedding model (and its dimensions), else unchanged."""
    adapter = current()
    if adapter is None or adapter.model != provider().name or len(vector) != adapter.down.shape[0]:
        return vector
    return adapter.apply(vector)
