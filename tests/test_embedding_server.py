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

import httpx
import pytest

from memory.embeddings import EmbeddingUnavailable, SharedLocalServer, provider
from memory.management.commands.run_embedding_server import make_server


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

    httpd = make_server("127.0.0.1", 0, SlowModel())
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        remote = SharedLocalServer(base_url=f"http://127.0.0.1:{httpd.server_address[1]}", timeout=0.5)
        assert remote.embed(["first"])[0][0] == 1.0  # the connection is now kept alive
        with pytest.raises(EmbeddingUnavailable):
            remote.embed(["second"])
        time.sleep(2)  # a retry would have reached the model by now
        assert SlowModel.calls == 2
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_refusal_by_the_server_is_the_providers_outage(server):
    with pytest.raises(EmbeddingUnavailable):
        SharedLocalServer(base_url=server, timeout=30).embed(["x"] * 257)  # over the server's MAX_INPUTS: 400


def test_a_stopped_server_is_the_providers_outage():
    remote = SharedLocalServer(base_url="http://127.0.0.1:9", timeout=1)
    with pytest.raises(EmbeddingUnavailable):
        remote.embed(["x"])


def test_a_web_worker_never_imports_torch():
    """Loading the WSGI application and answering the hot read path's imports pulls in no torch."""
    code = ("import sys, django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings_test'; django.setup();"
            "import config.urls, memory.api, memory.retrieval, memory.embeddings;"
            "from django.urls import resolve; resolve('/v1/patients/00000000-0000-4000-8000-000000000001/memories');"
            "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(__file__)), check=True)
    assert out.stdout.split()[-2:] == ["False", "False"], out.stderr[-2000:]
