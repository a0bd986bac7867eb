"""Token counting with the real cl100k_base tokenizer, the deterministic summariser, and the optional LLM summariser
against a real local HTTP fake of an OpenAI-compatible API (valid, invalid and failing answers)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conversations import tokens
from conversations.parsing import parse_turn
from conversations.summaries import (
    STRICT_SUMMARY_SCHEMA,
    SUMMARY_SCHEMA,
    TurnView,
    summarise_deterministic,
    summary_problems,
    trim,
)
from tests.test_conversations_api import SEED_TURN_1, SEED_TURN_2, context, say, start

# --- the tokenizer ------------------------------------------------------------------------------------------------


def test_the_tokenizer_is_tiktoken_cl100k_base_offline():
    enc = tokens.encoding()
    assert enc.name == "cl100k_base" and enc.n_vocab == 100277
    assert enc.encode("hello world") == [15339, 1917]  # tiktoken's own published example
    assert tokens.count_tokens("tiktoken is great!") == 6
    assert tokens.count_tokens("<|endoftext|>") > 1, "a typed special token is counted as text"


def test_a_changed_bpe_file_is_refused(tmp_path, monkeypatch):
    import gzip

    bad = tmp_path / "cl100k_base.tiktoken.gz"
    bad.write_bytes(gzip.compress(b"aGVsbG8= 0\n"))
    monkeypatch.setattr(tokens, "_DATA_FILE", bad)
    tokens.encoding.cache_clear()
    try:
        with pytest.raises(tokens.TokenizerUnavailable):
            tokens.encoding()
    finally:
        monkeypatch.undo()
        tokens.encoding.cache_clear()
    assert tokens.count_tokens("hello world") == 2


# --- the deterministic summariser --------------------------------------------------------------------------------

def views(*turns) -> list[TurnView]:
    out = []
    for seq, t in enumerate(turns, start=1):
        if isinstance(t, str):
            out.append(TurnView(seq=seq, role="user", content=t, parsed=parse_turn(t).as_dict()))
        else:
            out.append(TurnView(seq=seq, **t))
    return out


def test_deterministic_summary_cites_its_turns_and_fits_both_schemas():
    turns = views(SEED_TURN_1, {"role": "assistant", "content": "Which day?"}, SEED_TURN_2, "after 3",
                  {"role": "tool", "content": "", "tool_name": "scheduling.book_appointment",
                   "tool_result": {"status": "booked", "appointment_id": "X"}})
    summary = summarise_deterministic(turns)
    assert summary_problems(summary, allowed_source_ids={f"turn:{i}" for i in range(1, 6)}) == []
    facts = {(f["fact"], f["source_id"]) for f in summary["confirmed_facts"]}
    assert ("Cannot attend in the morning", "turn:1") in facts and ("Preferred day: Thursday", "turn:3") in facts
    assert ("The appointment is with cardiology", "turn:1") in facts
    assert summary["open_questions"] == [{"question": "Do you mean 3:00 am or 3:00 pm as the earliest time?",
                                          "source_id": "turn:4"}]
    assert summary["side_effects"] == [{"effect": "Called scheduling.book_appointment", "status": "booked",
                                        "source_id": "turn:5"}]
    assert summary["source_ids"] == ["turn:1", "turn:3", "turn:4", "turn:5"]
    assert summary["next_action"] == "ask_clarifying_question"
    assert "thinner" not in json.dumps(summary)


def test_the_summary_keeps_a_day_and_period_together():
    summary = summarise_deterministic(views("not Monday morning", "I can do Tuesday morning or Thursday afternoon"))
    facts = {(f["fact"], f["source_id"]) for f in summary["confirmed_facts"]}
    assert facts == {("Cannot attend on Monday mornings", "turn:1"),
                     ("Prefers Tuesday mornings or Thursday afternoons", "turn:2")}
    assert summary_problems(summary, allowed_source_ids={"turn:1", "turn:2"}) == []


def test_trimming_drops_the_oldest_items_and_keeps_the_shape():
    summary = summarise_deterministic(views(SEED_TURN_1, SEED_TURN_2, "no later than 16:00", "not on Fridays"))
    small = trim(summary, 80)
    assert small is not None and tokens.count_tokens(json.dumps(small, separators=(",", ":"))) <= 80
    assert set(small) == set(SUMMARY_SCHEMA["required"])
    assert trim(summary, 5) is None


@pytest.mark.parametrize("change, problem", [
    (lambda s: s.pop("next_action"), "seed_schema"),
    (lambda s: s["confirmed_facts"].append({"fact": "x", "source_id": "turn:1"}), "seed_schema"),
    (lambda s: s.update(extra=1), "strict_schema"),
    (lambda s: s["confirmed_facts"].append({"fact": "x", "source_id": "turn:99", "confidence": 1}),
     "unknown_source_id"),
    (lambda s: s["confirmed_facts"].append({"fact": "The patient takes warfarin", "source_id": "turn:1",
                                            "confidence": 1}), "clinical_remark_in_summary"),
    (lambda s: s.update(next_action="call patient PATIENT-ID"), "identifier_in_summary"),
])
def test_summary_validation_names_the_problem(change, problem):
    summary = summarise_deterministic(views(SEED_TURN_1, SEED_TURN_2))
    change(summary)
    assert problem in summary_problems(summary, allowed_source_ids={"turn:1", "turn:2"}, forbidden=["patient-id"])


# --- the LLM summariser, against a real local HTTP fake --------------------------------------------------------

class FakeLLM:
    """An OpenAI-compatible server on 127.0.0.1 answering /v1/responses and /v1/chat/completions."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.answer: dict | str = {}
        self.status = 200
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "body": body,
                                       "authorization": self.headers.get("Authorization")})
                text = outer.answer if isinstance(outer.answer, str) else json.dumps(outer.answer)
                if self.path == "/v1/chat/completions":
                    payload = {"id": "chatcmpl-1", "choices": [{"message": {"role": "assistant", "content": text}}]}
                else:
                    payload = {"id": "resp_1", "status": "completed", "output": [
                        {"type": "message", "role": "assistant",
                         "content": [{"type": "output_text", "text": text}]}]}
                data = json.dumps(payload).encode()
                self.send_response(outer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def llm(settings):
    fake = FakeLLM()
    settings.CONVERSATION_SUMMARISER = "llm"
    settings.CONVERSATION_LLM_BASE_URL = fake.url
    settings.CONVERSATION_LLM_MODEL = "summary-model-1"
    settings.CONVERSATION_LLM_API_KEY = "test-key"
    settings.CONVERSATION_LLM_TIMEOUT_SECONDS = 2.0
    yield fake
    fake.stop()


def long_conversation(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    say(api, sid, f"My record number is {world.patient_a}.")
    for i in range(12):
        say(api, sid, f"Checking the calendar for option {i}, one moment while I look at the clinic's list.",
            role="assistant")
        say(api, sid, "Is there parking near the clinic, and do I need my referral letter?")
    say(api, sid, SEED_TURN_2)
    return api, sid


GOOD = {"confirmed_facts": [{"fact": "Wants to reschedule a cardiology follow-up", "source_id": "turn:1",
                             "confidence": 0.95},
                            {"fact": "Cannot attend in the morning", "source_id": "turn:1", "confidence": 0.95}],
        "open_questions": [], "decisions": [], "side_effects": [], "source_ids": ["turn:1"],
        "next_action": "search_slots"}


@pytest.mark.django_db
def test_a_valid_llm_summary_is_used_once_and_cached(world, llm):
    llm.answer = GOOD
    api, sid = long_conversation(world)
    body = context(api, sid, max_tokens=600)
    assert body["budget"]["summariser"] == "llm" and body["context"]["summary"] == GOOD
    [request] = llm.requests
    assert request["path"] == "/v1/responses" and request["authorization"] == "Bearer test-key"
    sent = request["body"]
    assert sent["store"] is False and sent["model"] == "summary-model-1"
    assert sent["text"]["format"]["type"] == "json_schema"
    assert sent["text"]["format"]["schema"] == STRICT_SUMMARY_SCHEMA
    assert str(world.patient_a) not in json.dumps(sent) and "[patient]" in json.dumps(sent)
    again = context(api, sid, max_tokens=600)
    assert again["budget"]["summariser"] == "llm" and len(llm.requests) == 1, "cached through the same turn"
    assert again["budget"]["used_tokens"] <= 600


@pytest.mark.django_db
def test_chat_completions_is_supported_too(world, llm, settings):
    settings.CONVERSATION_LLM_API = "chat_completions"
    llm.answer = GOOD
    api, sid = long_conversation(world)
    assert context(api, sid, max_tokens=600)["budget"]["summariser"] == "llm"
    [request] = llm.requests
    assert request["path"] == "/v1/chat/completions" and request["body"]["store"] is False
    assert request["body"]["response_format"]["type"] == "json_schema"


INVALID = [
    "this is not json",
    {**GOOD, "next_action": None},
    {k: v for k, v in GOOD.items() if k != "side_effects"},
    {**GOOD, "confirmed_facts": [{"fact": "x", "source_id": "turn:999", "confidence": 1}]},
    {**GOOD, "confirmed_facts": [{"fact": "Is on blood thinners", "source_id": "turn:1", "confidence": 1}]},
    {**GOOD, "confirmed_facts": [{"fact": "x", "source_id": "turn:1", "confidence": 7}]},
]


@pytest.mark.django_db
@pytest.mark.parametrize("answer", INVALID)
def test_an_invalid_llm_summary_is_rejected_for_the_deterministic_one(world, llm, answer):
    llm.answer = answer
    api, sid = long_conversation(world)
    body = context(api, sid, max_tokens=600)
    assert body["budget"]["summariser"] == "deterministic_fallback"
    assert summary_problems(body["context"]["summary"], allowed_source_ids={f"turn:{i}" for i in range(1, 30)}) == []
    assert "thinner" not in json.dumps(body["context"]["summary"])
    assert body["budget"]["used_tokens"] <= 600


@pytest.mark.django_db
def test_the_llm_echoing_the_patient_identifier_is_rejected(world, llm):
    api, sid = long_conversation(world)
    llm.answer = {**GOOD, "next_action": f"look up {world.patient_a}"}
    assert context(api, sid, max_tokens=600)["budget"]["summariser"] == "deterministic_fallback"


@pytest.mark.django_db
@pytest.mark.parametrize("failure", ["http_500", "unreachable"])
def test_an_unavailable_llm_falls_back(world, llm, settings, failure):
    llm.answer = GOOD
    if failure == "http_500":
        llm.status = 500
    else:
        settings.CONVERSATION_LLM_BASE_URL = "http://127.0.0.1:9"  # discard port: connection refused
    api, sid = long_conversation(world)
    body = context(api, sid, max_tokens=600)
    assert body["budget"]["summariser"] == "deterministic_fallback" and body["context"]["summary"]


@pytest.mark.django_db
def test_a_read_for_another_purpose_sends_nothing_to_the_llm(world, llm):
    """A context read naming a purpose the conversation is not held for is refused (403 purpose_not_permitted)
    before the turns are read: none of them goes to the outside summariser for a read that is not allowed."""
    llm.answer = GOOD
    api, sid = long_conversation(world)
    r = api.get(f"/v1/sessions/{sid}/context", {"max_tokens": 600, "purpose": "care_coordination"})
    assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted", r.content
    assert llm.requests == []
    assert context(api, sid, max_tokens=600)["budget"]["summariser"] == "llm" and len(llm.requests) == 1
