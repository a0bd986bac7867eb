"""One embedding process per machine: the loopback server answers like an OpenAI-compatible provider with the
same vectors as the in-process model, refuses bad input clearly, and a web worker never imports torch."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import httpx
import pytest

from memory.embeddings import EmbeddingUnavailable, SharedLocalServer, provider
from memory.management.commands.run_embedding_server import Batcher, make_server
from tests.fakes.dribbling import DribblingServer


@pytest.fixture(scope="module")
def server():
    model = provider()  # the in-process model the tests already use
    model.embed(["warm up"])  # load it here, not inside the first request
    httpd = make_server("127.0.0.1", 0, model)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@contextmanager
def serving(model):
    """The embedding server over ``model`` on a free loopback port, as its base URL."""
    httpd = make_server("127.0.0.1", 0, model)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_same_vectors_and_name_as_the_in_process_model(server):
    texts = ["Scheduling preference: appointments not before 10:00", "Documented penicillin allergy"]
    remote = SharedLocalServer(base_url=server, timeout=30)
    assert remote.name == provider().name  # stored embeddings stay comparable
    for got, want in zip(remote.embed(texts), provider().embed(texts), strict=True):
        assert len(got) == len(want) == 384
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) < 1e-5
    assert httpx.get(f"{server}/health").json()["status"] == "ok"


@pytest.mark.parametrize("body, status", [
    (b"{not json", 400), (json.dumps({"model": "x"}).encode(), 400), (json.dumps({"input": []}).encode(), 400),
    (json.dumps({"input": [1, 2]}).encode(), 400), (json.dumps({"input": ["a"] * 257}).encode(), 400),
])
def test_bad_input_is_refused_with_a_json_error(server, body, status):
    r = httpx.post(f"{server}/v1/embeddings", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status and "error" in r.json()
    assert httpx.post(f"{server}/v1/other", json={"input": "x"}).status_code == 404


def test_a_kept_alive_connection_that_died_is_replaced_once(server):
    """The client keeps one connection per thread; when the server has dropped it, the next call reconnects."""
    remote = SharedLocalServer(base_url=server, timeout=30)
    first = remote.embed(["Documented penicillin allergy"])
    remote._local.connection.sock.shutdown(socket.SHUT_RDWR)  # as a restarted server would leave it
    assert remote.embed(["Documented penicillin allergy"]) == first
    assert remote.embed(["Documented penicillin allergy"]) == first  # and the new connection is kept


def test_a_call_that_times_out_is_not_sent_again():
    """Only a connection the server closed is retried; a server that does not answer in time is an outage at once
    (a retry would double the wait and queue a second encode behind the first)."""

    class SlowModel:
        name = "all-MiniLM-L6-v2"
        calls = 0

        def embed(self, texts):
            SlowModel.calls += 1
            if SlowModel.calls == 2:
                time.sleep(1.5)
            return [[1.0] + [0.0] * 383 for _ in texts]

    with serving(SlowModel()) as url:
        remote = SharedLocalServer(base_url=url, timeout=0.5)
        assert remote.embed(["first"])[0][0] == 1.0  # the connection is now kept alive
        with pytest.raises(EmbeddingUnavailable):
            remote.embed(["second"])
        time.sleep(2)  # a retry would have reached the model by now
        assert SlowModel.calls == 2


def test_a_provider_dribbling_its_answer_is_an_outage_within_its_timeouts():
    """httpx's timeout bounds each read, not the call: an OpenAI-compatible provider (or a proxy in front of it)
    sending its answer a byte every 0.05 s, each well within the 0.5 s timeout, kept a search waiting for the whole
    answer (about 7 s here) on a web thread. The call now ends within its connect, write and read timeouts
    together, as the provider's outage."""
    from memory.embeddings import OpenAICompatible
    body = json.dumps({"data": [{"index": 0, "embedding": [1.0, 0.0, 0.0]}]}).encode()
    with DribblingServer(body) as provider_:
        remote = OpenAICompatible(base_url=provider_.url, model="m", api_key="", timeout=0.5)
        started = time.monotonic()
        with pytest.raises(EmbeddingUnavailable):
            remote.embed(["x"])
        assert time.monotonic() - started < 2.5


def test_a_hung_server_is_an_outage_at_once_for_the_calls_after_the_first_until_it_answers_again():
    """The embedding server stopped answering (hung, or stopped with SIGSTOP): every search waited for its own
    timeout, queued behind the web worker's threads, so 24 searches on 8 threads held even /health/live for 14 s.
    After one call has timed out, the calls within the next second are the outage at once; then one call tries
    again, and once the server answers, so do they."""

    class HangingModel:
        name = "all-MiniLM-L6-v2"
        hang = threading.Event()

        def embed(self, texts):
            if HangingModel.hang.is_set():
                time.sleep(1.0)
            return [[1.0] + [0.0] * 383 for _ in texts]

    with serving(HangingModel()) as url:
        remote = SharedLocalServer(base_url=url, timeout=0.3)
        assert remote.embed(["up"])[0][0] == 1.0
        HangingModel.hang.set()
        with pytest.raises(EmbeddingUnavailable):
            remote.embed(["first"])  # waits for its timeout
        started = time.monotonic()
        for _ in range(5):
            with pytest.raises(EmbeddingUnavailable):
                remote.embed(["next"])
        assert time.monotonic() - started < 0.3, "refused at once, not after a timeout each"
        HangingModel.hang.clear()
        time.sleep(remote.CIRCUIT_RETRY_SECONDS + 0.1)
        assert remote.embed(["back"])[0][0] == 1.0
        assert remote.embed(["again"])[0][0] == 1.0


def test_a_refusal_by_the_server_is_the_providers_outage(server):
    with pytest.raises(EmbeddingUnavailable):
        SharedLocalServer(base_url=server, timeout=30).embed(["x"] * 257)  # over the server's MAX_INPUTS: 400


def test_a_stopped_server_is_the_providers_outage():
    remote = SharedLocalServer(base_url="http://127.0.0.1:9", timeout=1)
    with pytest.raises(EmbeddingUnavailable):
        remote.embed(["x"])


class Recorder:
    """A stand-in model that records its calls; each text's vector names the text. The first call waits until
    the test releases it, so the requests sent meanwhile wait for the model together."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, refuse: str | None = None) -> None:
        self.calls: list[list[str]] = []
        self.release = threading.Event()
        self.refuse = refuse

    def embed(self, texts):
        self.calls.append(list(texts))
        if len(self.calls) == 1:
            assert self.release.wait(30)
        if self.refuse in texts:
            raise ValueError("the model refused a text")
        return [[float(len(t)), float(sum(map(ord, t)))] for t in texts]


def until(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def queued(batcher: Batcher, model: Recorder, requests: list[list[str]]) -> dict:
    """Send one request that occupies the model, then ``requests`` one after another (each has arrived before
    the next is sent), release the model and return every request's answer or exception by its first text."""
    answers: dict = {}

    def ask(texts):
        try:
            answers[texts[0]] = batcher.embed(texts)
        except Exception as exc:  # noqa: BLE001
            answers[texts[0]] = exc

    threads = [threading.Thread(target=ask, args=(["busy"],))]
    threads[0].start()
    until(lambda: len(model.calls) == 1)
    for n, texts in enumerate(requests, start=1):
        threads.append(threading.Thread(target=ask, args=(texts,)))
        threads[-1].start()
        until(lambda n=n: batcher._arrived.qsize() == n)
    model.release.set()
    for thread in threads:
        thread.join(30)
    return answers


def vectors(texts):
    return [[float(len(t)), float(sum(map(ord, t)))] for t in texts]


def test_requests_waiting_for_the_model_share_its_next_call():
    model = Recorder()
    answers = queued(Batcher(model), model, [["a question"], ["a memory", "its other text"], ["another question"]])
    assert model.calls == [["busy"], ["a question", "a memory", "its other text", "another question"]]
    for texts in (["busy"], ["a question"], ["a memory", "its other text"], ["another question"]):
        assert answers[texts[0]] == vectors(texts)


def test_a_long_text_is_not_padded_onto_short_ones_and_a_call_holds_at_most_max_texts():
    model = Recorder()
    long = "Penicillin allergy: hives and swelling after amoxicillin. " * 12
    answers = queued(Batcher(model, max_texts=4), model,
                     [["short one"], [long], ["short two"], ["three", "four", "five"], ["six"]])
    # in arrival order: the long text would cost the short ones its length, and three more would make five
    assert model.calls == [["busy"], ["short one", "short two", "six"], [long], ["three", "four", "five"]]
    assert answers[long] == vectors([long]) and answers["three"] == vectors(["three", "four", "five"])


def test_a_request_of_more_than_max_texts_runs_alone():
    model = Recorder()
    many = [f"text {i}" for i in range(6)]
    queued(Batcher(model, max_texts=4), model, [["before"], many, ["after"]])
    assert model.calls == [["busy"], ["before", "after"], many]


def test_a_text_the_model_refuses_fails_only_its_own_request():
    model = Recorder(refuse="bad")
    answers = queued(Batcher(model), model, [["good one"], ["bad"], ["good two"]])
    assert model.calls[1] == ["good one", "bad", "good two"]
    assert sorted(model.calls[2:]) == [["bad"], ["good one"], ["good two"]]
    assert answers["good one"] == vectors(["good one"]) and answers["good two"] == vectors(["good two"])
    assert isinstance(answers["bad"], ValueError)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the thread's end, expected
def test_a_model_thread_that_stopped_answers_every_waiting_request_and_health_says_so():
    class Stop(BaseException):
        pass

    class Dying(Recorder):
        def embed(self, texts):
            if texts == ["stop"]:
                raise Stop
            return super().embed(texts)

    model = Dying()
    model.release.set()
    httpd = make_server("127.0.0.1", 0, model)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        assert httpx.post(f"{url}/v1/embeddings", json={"input": "fine"}).status_code == 200
        assert httpx.get(f"{url}/health").status_code == 200
        with pytest.raises(httpx.HTTPError):  # the request's handler fails; the client sees the connection end
            httpx.post(f"{url}/v1/embeddings", json={"input": "stop"}, timeout=10)
        until(lambda: httpx.get(f"{url}/health").status_code == 503)
        with pytest.raises(EmbeddingUnavailable):  # answered within seconds, not left waiting
            SharedLocalServer(base_url=url, timeout=10).embed(["after"])
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_concurrent_requests_get_the_vectors_each_would_get_alone(server):
    texts = ["Prefers morning appointments", "Needs a sign language interpreter", "Wheelchair user",
             "Prefers text messages to calls", "Daughter is the scheduling contact", "Large print letters"]
    alone = {t: provider().embed([t])[0] for t in texts}
    remote = SharedLocalServer(base_url=server, timeout=30)
    got: dict = {}
    threads = [threading.Thread(target=lambda t=t: got.__setitem__(t, remote.embed([t])[0])) for t in texts * 3]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert set(got) == set(texts)
    for t in texts:
        assert max(abs(a - b) for a, b in zip(got[t], alone[t], strict=True)) < 1e-5


def test_a_web_worker_never_imports_torch():
    """Loading the WSGI application and answering the hot read path's imports pulls in no torch."""
    code = ("import sys, django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings_test'; django.setup();"
            "import config.urls, memory.api, memory.retrieval, memory.embeddings;"
            "from django.urls import resolve; resolve('/v1/patients/00000000-0000-4000-8000-000000000001/memories');"
            "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(__file__)), check=True)
    assert out.stdout.split()[-2:] == ["False", "False"], out.stderr[-2000:]
