"""The question adapter: a learned move of a question's vector before it meets the memories' vectors, shipped with
the scoring head trained on the cosines it makes, applied only under the embedding model it was fitted for."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memory.embeddings import LocalMiniLM, provider
from memory.retrieval import adapter, training
from memory.retrieval.adapter import ADAPTER_FILE, Adapter, adapt
from memory.retrieval.ranker import FEATURES, MODEL_FILE


@pytest.fixture
def installed():
    yield adapter.install
    adapter.uninstall()


def test_the_shipped_adapter_is_the_one_the_shipped_head_was_trained_with():
    shipped = adapter.load(ADAPTER_FILE)
    assert shipped is not None and shipped.model == LocalMiniLM.name
    assert shipped.down.shape == (384, training.ADAPTER_RANK) and shipped.up.shape == (training.ADAPTER_RANK, 384)
    assert json.loads(MODEL_FILE.read_text())["question_adapter"] == shipped.digest()


def test_a_question_vector_is_moved_and_stays_a_unit_vector(installed):
    [vector] = provider().embed(["can she get onto the x-ray table by herself?"])
    moved = adapt(vector)
    assert moved != vector and np.linalg.norm(moved) == pytest.approx(1.0, abs=1e-5)
    assert float(np.dot(moved, vector)) > 0.5  # a correction, not another vector
    installed(None)
    assert adapt(vector) == vector


def test_an_adapter_fitted_for_another_model_or_size_is_not_applied(installed):
    rng = np.random.default_rng(1)
    other = Adapter(model="openai:text-embedding-3-small", down=rng.normal(size=(384, 4)).astype(np.float32),
                    up=rng.normal(size=(4, 384)).astype(np.float32))
    installed(other)
    [vector] = provider().embed(["which room should we book?"])
    assert adapt(vector) == vector
    installed(Adapter(model=provider().name, down=other.down, up=other.up))
    assert adapt(vector) != vector
    assert adapt([0.5] * 8) == [0.5] * 8  # another size: unchanged


def test_an_adapter_saved_and_loaded_is_the_same(tmp_path):
    rng = np.random.default_rng(2)
    made = Adapter(model=LocalMiniLM.name, down=rng.normal(size=(384, 3)).astype(np.float32),
                   up=rng.normal(size=(3, 384)).astype(np.float32))
    path = tmp_path / "adapter.npz"
    adapter.save(made, path)
    back = adapter.load(path)
    assert back is not None and back.digest() == made.digest() and back.model == made.model
    assert adapter.load(tmp_path / "none.npz") is None


def _asked(patient: str, question: str, texts: tuple[str, ...], answer: int | None) -> training.Asked:
    answers = np.zeros(len(texts))
    if answer is not None:
        answers[answer] = 1.0
    features = np.zeros((len(texts), len(FEATURES)))
    return training.Asked(patient=patient, kind="indirect" if answer is not None else "no_answer",
                          answerable=answer is not None, features=features, types=("t",) * len(texts),
                          answers=answers, question=question, texts=texts)


def test_fitting_moves_questions_towards_what_answers_them_and_cross_fitting_scores_unseen_ones():
    """Questions that name a situation, memories that name a need: the fitted adapter ranks the need first more
    often than MiniLM does, and cross-fitting gives every question the cosines of an adapter that never saw it."""
    memories = ("Accessibility: uses a wheelchair; needs step-free access",
                "Preferred name: Nell; pronouns she/her",
                "Communication preference: contact by email")
    situations = [("can she get up the stairs to clinic {}?", 0),
                  ("what should we call her in the waiting room {}?", 1),
                  ("how do we send her the letter {}?", 2),
                  ("will she manage the steps at the entrance {}?", 0),
                  ("how should the receptionist greet her {}?", 1),
                  ("best way to get the results to her {}?", 2)]
    nothing = ["what is her blood group {}?", "who is her consultant {}?"]  # nothing on record answers
    asked = [_asked(f"p{i}", text.format(f"on visit {i}"), memories, answer)
             for i in range(8) for text, answer in situations]
    unanswerable = [_asked(f"p{i}", text.format(f"on visit {i}"), memories, None) for i in range(8) for text in nothing]
    vectors = training.embed_texts(asked + unanswerable)
    fitted = training.fit_adapter(asked + unanswerable, vectors)
    assert fitted.model == provider().name

    def cosines(a: training.Asked, moved) -> np.ndarray:
        return np.vstack([vectors[t] for t in a.texts]) @ np.asarray(moved(a))

    def firsts(moved) -> int:
        return sum(int(np.argmax(cosines(a, moved))) == int(np.argmax(a.answers)) for a in asked)

    def moved(a: training.Asked) -> list[float]:
        return fitted.apply(vectors[a.question])

    def unmoved(a: training.Asked) -> np.ndarray:
        return vectors[a.question]

    assert firsts(moved) == len(asked) and firsts(moved) > firsts(unmoved)
    # a question with nothing on record is moved away from every memory, relative to the answerable ones
    def margin(move) -> float:
        return (np.mean([cosines(a, move).max() for a in asked])
                - np.mean([cosines(a, move).max() for a in unanswerable]))

    assert margin(moved) > margin(unmoved)
    crossed = training.cross_fitted(asked, vectors)  # answerable questions only: each fold still has some
    assert [a.question for a in crossed] == [a.question for a in asked]
    cosine, gap = FEATURES.index("cosine"), FEATURES.index("cosine_gap")
    for a in crossed:
        assert a.features[:, gap].max() == pytest.approx(0.0) and np.allclose(
            a.features[:, cosine] - a.features[:, cosine].max(), a.features[:, gap])
    # an adapter fitted without the question's patient still puts the answer first here (the situations recur)
    assert sum(int(np.argmax(a.features[:, cosine])) == int(np.argmax(a.answers)) for a in crossed) == len(asked)


def test_start_up_refuses_a_head_trained_with_another_adapter(tmp_path, monkeypatch):
    from memory import checks
    from memory.retrieval import ranker

    assert checks.retrieval_model_check() == []
    model = json.loads(MODEL_FILE.read_text())
    other = tmp_path / "retrieval_model.json"
    other.write_text(json.dumps(dict(model, question_adapter="0123456789abcdef")))
    monkeypatch.setattr(ranker, "MODEL_FILE", other)
    [error] = checks.retrieval_model_check()
    assert error.id == "memory.E002" and "0123456789abcdef" in error.msg
    monkeypatch.setattr(ranker, "MODEL_FILE", MODEL_FILE)
    monkeypatch.setattr(adapter, "ADAPTER_FILE", tmp_path / "none.npz")
    [error] = checks.retrieval_model_check()
    assert error.id == "memory.E002" and "missing" in error.msg
