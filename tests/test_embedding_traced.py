"""The traced model that embeds small calls (a question, a memory being written) gives the vectors
sentence-transformers gives, one text at a time and as a padded batch, for texts of every length up to the
model's limit; larger calls keep the eager model; a model laid out otherwise is never traced. On a CPU with native
bfloat16 its weights are bfloat16 (the machine decides, never a race): the vectors then point where float32's do."""

from __future__ import annotations

import random

import numpy as np
import pytest

from memory.embeddings import LocalMiniLM, TracedMiniLM, native_bfloat16, provider

WORDS = ("patient allergy penicillin prefers morning appointments call evening interpreter Spanish warfarin INR "
         "monitoring latex gloves wheelchair step-free 10:00 é ü 日本 — ( ) ; ?").split()


@pytest.fixture(scope="module")
def local() -> LocalMiniLM:
    model = LocalMiniLM()
    model.warm_up()
    return model


def _texts(seed: int, count: int, longest: int = 400) -> list[str]:
    rng = random.Random(seed)
    # one word up to far beyond the 256-token limit (truncation), plus the edge cases
    return ["", " ", "x"] + [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, longest))) for _ in range(count)]


def _eager(local: LocalMiniLM, texts: list[str]) -> np.ndarray:
    return local._load().encode(texts, normalize_embeddings=True, show_progress_bar=False)


def _agree(got, want, precision: str) -> None:
    """float32: the same numbers; bfloat16: the same directions (and unit length)."""
    got, want = np.asarray(got), np.asarray(want)
    if precision == "float32":
        assert np.abs(got - want).max() < 1e-5
    else:
        assert (got * want).sum(axis=1).min() >= TracedMiniLM.BF16_MIN_COSINE
        assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


@pytest.fixture(scope="module")
def float32(local) -> TracedMiniLM:
    from django.conf import settings

    chosen, settings.EMBEDDING_PRECISION = settings.EMBEDDING_PRECISION, "float32"
    try:
        return TracedMiniLM.build(local._load())
    finally:
        settings.EMBEDDING_PRECISION = chosen


def test_the_local_model_is_traced_in_the_precision_the_machine_computes_fastest(local):
    assert isinstance(local._small, TracedMiniLM)
    assert local._small.precision == ("bfloat16" if native_bfloat16() else "float32")


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_traced_vectors_equal_the_eager_ones_one_at_a_time_and_padded(local, float32, precision):
    small = float32
    if precision == "bfloat16":  # built here whatever the CPU (without native bfloat16 it is only slower)
        check = list(TracedMiniLM.CHECK_TEXTS)
        expected = _eager(local, check)
        small = TracedMiniLM.bfloat16(local._load()[0].auto_model, float32, check, np.concatenate([expected, expected]))
    assert small is not None and small.precision == precision
    # bfloat16 without native support is emulated, some seconds a call (500 s for float32's forty texts on a CPU
    # without it): fewer and shorter texts, still of mixed lengths in every batch; the twin was checked at the model's
    # limit as it was built, and float32's texts go past it
    texts = _texts(1, 24) if precision == "float32" else _texts(1, 7, longest=60)
    want = _eager(local, texts)
    _agree([small.embed([t])[0] for t in texts], want, precision)
    for size in (2, 5, LocalMiniLM.SMALL_CALL):  # batches mixing short and long texts: padding and the mask
        for start in range(0, len(texts) - size, size):
            _agree(small.embed(texts[start:start + size]), want[start:start + size], precision)


def test_a_bfloat16_twin_that_points_elsewhere_is_refused(local, float32, monkeypatch):
    check = list(TracedMiniLM.CHECK_TEXTS[:3])  # the short ones: the refusal is the point, not the model's limit
    expected = _eager(local, check)
    monkeypatch.setattr(TracedMiniLM, "BF16_MIN_COSINE", 1.000001)  # no twin can be that close
    assert TracedMiniLM.bfloat16(local._load()[0].auto_model, float32, check,
                                 np.concatenate([expected, expected])) is None


def test_float32_is_kept_when_asked_for(float32):
    assert float32.precision == "float32"


def test_large_calls_take_the_traced_model_in_chunks_of_similar_length_and_answer_in_order(local, monkeypatch):
    texts = _texts(2, 3 * LocalMiniLM.LARGE_CHUNK)
    vectors = local.embed(texts)
    assert len(vectors) == len(texts)
    _agree(vectors, _eager(local, texts), local._small.precision)  # each vector where its own text's belongs
    calls = []
    real = local._small.embed
    monkeypatch.setattr(local._small, "embed", lambda chunk: calls.append(chunk) or real(chunk))
    local.embed(texts)
    assert [len(c) for c in calls] == [LocalMiniLM.LARGE_CHUNK] * 3 + [3]
    lengths = [len(t) for c in calls for t in c]
    assert lengths == sorted(lengths)  # similar lengths together: little padding
    calls.clear()
    local.embed(texts[:LocalMiniLM.SMALL_CALL])
    assert calls == [texts[:LocalMiniLM.SMALL_CALL]]  # a small call as it is


def test_the_in_process_provider_answers_as_before(local):
    texts = ["Scheduling preference: appointments not before 10:00", "Documented penicillin allergy"]
    got = np.array(provider().embed(texts))
    assert got.shape == (2, 384)
    _agree(got, _eager(local, texts), local._small.precision)


def test_a_model_laid_out_otherwise_is_not_traced(local):
    from sentence_transformers import SentenceTransformer

    model = local._load()
    without_normalisation = SentenceTransformer(modules=[model[0], model[1]], device="cpu")
    assert TracedMiniLM.build(without_normalisation) is None


def test_a_trace_that_answers_differently_is_refused(local, monkeypatch):
    """The build compares the traced answers with the eager ones and keeps the eager model on any difference."""
    monkeypatch.setattr(TracedMiniLM, "embed", lambda self, texts: [[1.0] + [0.0] * 383 for _ in texts])
    assert TracedMiniLM.build(local._load()) is None
