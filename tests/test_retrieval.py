"""Retrieval by meaning with the real local model (all-MiniLM-L6-v2), through the API."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from core.identity import Identity, identity_context
from memory.models import MemoryEmbedding
from tests.conftest import memory_body

pytestmark = pytest.mark.django_db


def care(world, nurse, fact):
    r = nurse.post(f"/v1/patients/{world.patient_a}/memories",
                   {"memory_type": "care_context", "consent_purpose": "care_coordination", "fact": fact,
                    "review_by": "2031-01-01T00:00:00Z", "source": "ehr_import", "source_ref": "ehr:1"})
    assert r.status_code == 201, r.content
    return r.json()["memory_id"]


@pytest.fixture
def clinic(world):
    world.grant(world.patient_a, "clinician", "care_coordination")
    world.grant(world.patient_a, "clinician", "appointment_scheduling")
    nurse = world.staff("clinician")
    ids = {
        "pen": care(world, nurse, {"kind": "allergy", "substance": "penicillin", "reaction": "rash"}),
        "warf": care(world, nurse, {"kind": "long_term_indication", "medication": "warfarin",
                                    "indication": "atrial fibrillation", "monitoring": "INR"}),
    }
    cid = world.consent(world.patient_a)
    r = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories", memory_body(cid))
    ids["nb10"] = r.json()["memory_id"]
    return nurse, ids


def search(api, pid, q, **params):
    r = api.get(f"/v1/patients/{pid}/memories/search", {"q": q, **params})
    assert r.status_code == 200, r.content
    return r.json()["items"]


def test_amoxicillin_finds_the_penicillin_allergy(world, clinic):
    nurse, ids = clinic
    items = search(nurse, world.patient_a, "can we prescribe amoxicillin?")
    assert items[0]["memory"]["memory_id"] == ids["pen"]
    assert items[0]["memory"]["guardrails"]["fetch_live"] is True
    assert items[0]["score"] >= 0.21 and items[0]["memory"]["source"] == "ehr_import"


def test_endocrinology_booking_finds_not_before_ten(world, clinic):
    nurse, ids = clinic
    items = search(nurse, world.patient_a, "what time should I book the endocrinology visit?")
    assert items[0]["memory"]["memory_id"] == ids["nb10"]
    assert items[0]["memory"]["fact"] == {"kind": "earliest_time", "time": "10:00"}


def test_inr_question_finds_warfarin_flagged_fetch_live(world, clinic):
    nurse, ids = clinic
    items = search(nurse, world.patient_a, "is the INR in range?")
    assert items[0]["memory"]["memory_id"] == ids["warf"]
    assert "INR" in items[0]["memory"]["guardrails"]["note"]


def test_unrelated_question_returns_nothing(world, clinic):
    nurse, _ = clinic
    assert search(nurse, world.patient_a, "does the patient own a bicycle?") == []


@pytest.mark.parametrize("question", ["can we prescribe amoxicillin?", "penicillin allergy", "latex",
                                      "Documented latex allergy (reaction: hives)", "what time can I book?", "*"])
def test_patient_b_never_appears_in_patient_a_results(world, question):
    world.grant(world.patient_b, "clinician", "care_coordination")
    world.grant(world.patient_a, "clinician", "care_coordination")
    nurse = world.staff("clinician")
    r = nurse.post(f"/v1/patients/{world.patient_b}/memories",
                   {"memory_type": "care_context", "consent_purpose": "care_coordination",
                    "fact": {"kind": "allergy", "substance": "latex", "reaction": "hives"},
                    "review_by": "2031-01-01T00:00:00Z", "source": "staff_entered"})
    b_memory = r.json()["memory_id"]
    for api in (nurse, world.patient(world.patient_a)):
        items = search(api, world.patient_a, question, min_score=0)
        assert all(i["memory"]["patient_id"] == str(world.patient_a) for i in items)
        assert b_memory not in [i["memory"]["memory_id"] for i in items]
    # and patient A asking about patient B gets nothing at all
    assert search(world.patient(world.patient_a), world.patient_b, question, min_score=0) == []


def test_context_pack_cites_facts_never_the_patient_id_and_is_recorded(world, clinic):
    nurse, ids = clinic
    r = nurse.post(f"/v1/patients/{world.patient_a}/context",
                   {"question": "can we prescribe amoxicillin?", "purpose": "care_coordination"})
    assert r.status_code == 200, r.content
    pack = r.json()
    assert pack["facts"][0]["memory_id"] == ids["pen"]
    assert pack["guardrail_notes"] and "fetch" in pack["guardrail_notes"][0]
    assert ids["pen"] in pack["text"] and "penicillin" in pack["text"]
    assert str(world.patient_a) not in pack["text"] and str(world.patient_a) not in str(pack["facts"])
    releases = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/releases").json()["items"]
    assert releases[0]["release_id"] == pack["release_id"] and releases[0]["actor_sub"] == "clinician"
    assert ids["pen"] in [m["memory_id"] for m in releases[0]["members"]]


def test_context_pack_needs_access_for_its_purpose(world, clinic):
    r = world.staff("stranger").post(f"/v1/patients/{world.patient_a}/context",
                                     {"question": "anything?", "purpose": "care_coordination"})
    assert r.status_code == 403


def test_deleting_a_memory_removes_its_embedding_and_withdraws_it_from_releases(world, clinic):
    nurse, ids = clinic
    pack = nurse.post(f"/v1/patients/{world.patient_a}/context",
                      {"question": "penicillin", "purpose": "care_coordination"}).json()
    receipt = nurse.client.delete(f"/v1/patients/{world.patient_a}/memories/{ids['pen']}",
                                  HTTP_AUTHORIZATION=f"Bearer {nurse.token}").json()
    targets = {(line["target"], line["external_id"]) for line in receipt["representations"]}
    assert ("provider_conversation", f"release:{pack['release_id']}") in targets
    assert any(t == "vector" for t, _ in targets)
    with identity_context(Identity(org_id=world.org, actor_sub="clinician")):
        assert not MemoryEmbedding.objects.filter(memory_id=ids["pen"]).exists()
    members = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/releases").json()["items"][0]
    assert [m["withdrawn_at"] is not None for m in members["members"] if m["memory_id"] == ids["pen"]] == [True]
    assert search(nurse, world.patient_a, "can we prescribe amoxicillin?") == [] or all(
        i["memory"]["memory_id"] != ids["pen"] for i in search(nurse, world.patient_a, "amoxicillin"))


def test_correction_remakes_the_embedding(world, clinic):
    _, ids = clinic
    patient = world.patient(world.patient_a)
    new = patient.post(f"/v1/patients/{world.patient_a}/memories/{ids['nb10']}/correct",
                       {"fact": {"kind": "earliest_time", "time": "11:00"}}).json()
    with identity_context(Identity(org_id=world.org, actor_sub="p", patient_self_id=world.patient_a)):
        assert MemoryEmbedding.objects.filter(memory_id=new["memory_id"]).count() == 1


def test_reindex_fills_missing_vectors(world, clinic):
    _, ids = clinic
    me = Identity(org_id=world.org, actor_sub="p", patient_self_id=world.patient_a)
    with identity_context(me):
        MemoryEmbedding.objects.filter(memory_id=ids["nb10"]).delete()
    call_command("reindex_embeddings", verbosity=0)
    with identity_context(me):
        assert MemoryEmbedding.objects.filter(memory_id=ids["nb10"]).count() == 1


def test_search_validation(world):
    api = world.patient(world.patient_a)
    r = api.get(f"/v1/patients/{world.patient_a}/memories/search", {"q": ""})
    assert r.status_code == 422
    r = api.get(f"/v1/patients/{world.patient_a}/memories/search", {"q": "x", "limit": 99})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "limit"


def test_openai_compatible_provider_against_a_local_server(settings):
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from memory.embeddings import EmbeddingUnavailable, OpenAICompatible

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            assert self.headers["Authorization"] == "Bearer k"
            data = [{"index": i, "embedding": [3.0, 4.0]} for i, _ in enumerate(body["input"])]
            out = json.dumps({"data": data}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *a):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        p = OpenAICompatible(base_url=f"http://127.0.0.1:{server.server_address[1]}", model="m", api_key="k",
                             timeout=2)
        assert p.embed(["a", "b"]) == [[0.6, 0.8], [0.6, 0.8]]
    finally:
        server.shutdown()
        server.server_close()
    down = OpenAICompatible(base_url="http://127.0.0.1:9", model="m", api_key="", timeout=1)
    with pytest.raises(EmbeddingUnavailable):
        down.embed(["a"])


@pytest.mark.slow
def test_evaluation_set_meets_its_calibrated_quality():
    from memory import evaluation, retrieval

    collected = evaluation.collect()
    cal = retrieval.calibration()
    report = evaluation.score(collected, cosine_weight=cal.cosine_weight, text_weight=cal.text_weight,
                              min_score=cal.min_score, relative_cutoff=cal.relative_cutoff)
    assert report["questions"] >= 60
    assert report["cross_patient_leakage"] == 0 and report["stale_results"] == 0
    assert report["recall@3"] >= 0.9 and report["mrr"] >= 0.85
