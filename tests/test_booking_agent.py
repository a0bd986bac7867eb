"""The example agent (examples/booking_agent.py) run as its own process against the live service over MCP: seed
000's booking conversation end to end. Then the worker books the slot at the scheduling system, and the patient
confirms the standing preference the agent proposed."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.conf import settings

from tests.conftest import admin_connect
from tests.fakes.outside import FakeOutsideSystem
from tests.fakes.processes import BASE_DIR, run_worker, worker_env
from tests.fakes.scheduling import FakeScheduling
from tests.live import free_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

AGENT_SCOPES = "memory:read memory:write workflow:read workflow:write"


@pytest.fixture
def scheduling(settings):
    fake = FakeScheduling()
    settings.SCHEDULING_BASE_URL = fake.url
    yield fake
    fake.down()


@pytest.fixture
def booking_system():
    fake = FakeOutsideSystem("scheduling")
    yield fake
    fake.stop()


def run_agent(live, token: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "ANAMNESIS_TOKEN": token, **env}
    return subprocess.run([sys.executable, "examples/booking_agent.py", "--url", live.mcp_url, *args],
                          cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120)


def test_the_example_agent_books_seed_000_end_to_end_over_mcp(world, live, scheduling, booking_system):
    world.consent(world.patient_a)
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a,
                        scope="memory:read memory:write workflow:read workflow:write")
    done = run_agent(live, token)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["outcome"] == "booking_requested"
    assert summary["slots"] == {"specialty": "cardiology", "visit_type": "followup",
                                "preferred_days": ["thursday"], "excluded_periods": ["morning"]}
    assert summary["care_team_flags"] == ["medication_anticoagulant"], "blood thinners go to the care team"
    assert summary["standing_preferences"] == []
    assert summary["offers"] == ["A1"], "Thursday, not a morning"
    assert summary["workflow_step"] == "confirm_booking" and summary["operation_status"] == "pending"
    assert summary["proposed_facts"] == [{"kind": "earliest_time", "time": "10:00"}]
    assert summary["session_status"] == "completed"
    assert str(world.patient_a) not in json.dumps(scheduling.requests)

    # The outbox worker books the slot at the scheduling system with the operation's own key.
    env = worker_env(db_name=settings.DB_TOPOLOGY.runtime.name, settings_module="config.settings_test",
                     scheduling_url=booking_system.url)
    run_worker(env, "--until-idle")
    patient = world.patient(world.patient_a)
    workflow = patient.get(f"/v1/workflows/{summary['workflow_id']}").json()
    assert workflow["current_step"] == "booked" and workflow["state"]["appointment_id"].startswith("APT")

    # The preference is only a proposal until the patient confirms it (the portal's confirm, here over REST).
    memories = f"/v1/patients/{world.patient_a}/memories"
    assert patient.get(memories).json()["items"] == []
    [memory_id] = summary["proposed_memory_ids"]
    assert patient.post(f"{memories}/{memory_id}/confirm").status_code == 200
    assert [m["fact"] for m in patient.get(memories).json()["items"]] == [{"kind": "earliest_time", "time": "10:00"}]

    # Running the agent again in a new conversation: the confirmed preference is now a standing one.
    again = json.loads(run_agent(live, token).stdout)
    assert again["standing_preferences"] == [{"kind": "earliest_time", "time": "10:00"}]
    assert again["proposed_facts"] == [], "already current: nothing to propose"

    with admin_connect() as conn:
        actions = {row[0] for row in conn.execute(
            "SELECT action FROM audit_event WHERE patient_id = %s", [world.patient_a]).fetchall()}
    assert {"conversation.start", "conversation.turn", "conversation.context", "workflow.checkpoint"} <= actions


def test_the_example_agent_reports_a_refusal_without_a_traceback(world, live):
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope="memory:read")
    done = run_agent(live, token)
    assert done.returncode == 1
    problem = json.loads(done.stderr)
    assert problem == {"outcome": "refused", "tool": "start_session", "problem": problem["problem"]}
    assert problem["problem"]["code"] == "insufficient_scope"


def test_the_example_agent_reports_a_refused_token_or_an_unreachable_service_without_a_traceback(world, live):
    """An expired token is refused by the server before any tool runs (401 invalid_token): the SDK raised "Server
    returned an error response" in a page of exception groups. The report names the problem, as a tool's
    refusal is; a service not listening is named too."""
    expired = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=AGENT_SCOPES, exp_in=-120)
    assert_token_refused(run_agent(live, expired), "Traceback")
    nowhere = f"http://127.0.0.1:{free_port()}/mcp"
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=AGENT_SCOPES)
    assert "ConnectError" in unreachable(run_agent(live, token, "--url", nowhere), nowhere)["error"]


def test_a_model_that_cannot_be_reached_is_reported_as_the_models_failure(world, live):
    """With OPENAI_BASE_URL at a model that does not answer, the agent reported the service at --url unreachable
    (the model's connection error was taken for the MCP server's)."""
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=AGENT_SCOPES)
    model = f"http://127.0.0.1:{free_port()}/v1"
    assert model_failed(run_agent(live, token, OPENAI_BASE_URL=model), model, "Traceback")


def model_failed(done: subprocess.CompletedProcess, url: str, trace: str) -> dict:
    """The example's report of a chat model at ``url`` that could not be reached."""
    assert done.returncode == 1 and trace not in done.stderr, done.stderr[-3000:]
    report = json.loads(done.stderr)
    assert report["outcome"] == "model_failed" and report["url"] == url and report["error"], report
    return report


def assert_token_refused(done: subprocess.CompletedProcess, trace: str) -> None:
    """The example's report of a token the server refused (401 invalid_token) before any tool ran."""
    assert done.returncode == 1 and trace not in done.stderr, done.stderr[-3000:]
    report = json.loads(done.stderr)
    assert report == {"outcome": "refused", "tool": None, "problem": report["problem"]}
    assert report["problem"]["code"] == "invalid_token" and report["problem"]["status"] == 401


def unreachable(done: subprocess.CompletedProcess, url: str) -> dict:
    """The example's report of a service it could not reach at ``url``."""
    assert done.returncode == 1, done.stderr[-3000:]
    report = json.loads(done.stderr)
    assert report["outcome"] == "unreachable" and report["url"] == url
    return report


class FakeChatModel:
    """An OpenAI-compatible chat-completions endpoint (an outside system) whose "model" is a script: for each
    patient message it asks for the tool calls below, one per request, reading ids from earlier tool results."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                data = json.dumps({"choices": [{"message": outer.decide(body["messages"])}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @staticmethod
    def decide(messages: list[dict]) -> dict:
        results = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
        session_id = next((r["session"]["session_id"] for r in results if "session" in r), None)
        users = [i for i, m in enumerate(messages) if m["role"] == "user"]
        done_this_turn = sum(1 for m in messages[users[-1]:] if m["role"] == "tool")
        text = messages[users[-1]]["content"]
        plan = {1: [("start_session", {"purpose": "appointment_scheduling"}),
                    ("add_turn", {"role": "user", "content": text})],
                2: [("add_turn", {"role": "user", "content": text}), ("search_offers", {})],
                3: [("add_turn", {"role": "user", "content": text}), ("end_session", {"outcome": "completed"})]}
        steps = plan[len(users)]
        if done_this_turn >= len(steps):
            return {"role": "assistant", "content": "Done."}
        name, args = steps[done_this_turn]
        if name != "start_session":
            args = {"session_id": session_id, **args}
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": f"call-{len(messages)}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}]}

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_with_openai_base_url_a_model_chooses_the_tool_calls(world, live, scheduling):
    world.consent(world.patient_a)
    model = FakeChatModel()
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a,
                        scope="memory:read memory:write workflow:read workflow:write")
    try:
        env = {"PATH": "/usr/bin:/bin", "ANAMNESIS_TOKEN": token, "OPENAI_BASE_URL": model.url,
               "OPENAI_MODEL": "scripted"}
        done = subprocess.run([sys.executable, "examples/booking_agent.py", "--url", live.mcp_url], cwd=BASE_DIR,
                              env=env, capture_output=True, text=True, timeout=120)
    finally:
        model.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["tool_calls"] == ["start_session", "add_turn", "add_turn", "search_offers", "add_turn",
                                     "end_session"]
    offered = [json.loads(m["content"]) for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    assert [o["slot_id"] for r in offered if "offers" in r for o in r["offers"]] == ["A1"]
    # the model was never told the patient's id, nor shown it in a tool result
    assert str(world.patient_a) not in json.dumps(model.requests[-1]["messages"])
    tools = {t["function"]["name"]: t["function"] for t in model.requests[0]["tools"]}
    assert "request_operation" in tools and tools["request_operation"]["parameters"]["type"] == "object"


class MistakenModel(FakeChatModel):
    """A model whose tool call at each patient message is wrong in one way (``calls``: the function it asks for,
    turn by turn, the last one again after it), then which stops once it is told so."""

    calls = [{"name": "start_session", "arguments": '{"purpose": "appointment_sch'}]

    @classmethod
    def decide(cls, messages: list[dict]) -> dict:
        if messages[-1]["role"] == "tool":
            return {"role": "assistant", "content": "I could not call the tool."}
        turn = sum(1 for m in messages if m["role"] == "user")
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": f"call-{len(messages)}", "type": "function",
            "function": dict(cls.calls[min(turn, len(cls.calls)) - 1])}]}


class GarbledModel(MistakenModel):
    """Its tool call's arguments are cut short (no JSON)."""


class ErringModel(MistakenModel):
    """Its tool calls are refused: a tool the server does not have; arguments the tool refuses (a limit of 0); an
    argument called "name", which the Python agent took for the tool's name (a TypeError, reported as the MCP
    service unreachable)."""

    calls = [{"name": "book_slot", "arguments": '{"slot_id": "A1"}'},
             {"name": "list_memories", "arguments": '{"limit": 0}'},
             {"name": "list_memories", "arguments": '{"name": "x"}'}]


def assert_told_invalid_arguments(done: subprocess.CompletedProcess, model: MistakenModel) -> None:
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == {"outcome": "model_driven", "tool_calls": []}
    told = [json.loads(m["content"]) for m in model.requests[1]["messages"] if m["role"] == "tool"]
    assert [t["code"] for t in told] == ["invalid_arguments"] and len(model.requests) == 6


def assert_told_each_refusal(done: subprocess.CompletedProcess, model: ErringModel) -> None:
    """Each refusal reached the model as its call's result (a tool's: the problem document, which the TypeScript
    SDK, checking it against an output schema of success bodies, turned into an McpError stack trace)."""
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == {"outcome": "model_driven",
                                       "tool_calls": ["book_slot", "list_memories", "list_memories"]}
    told = [json.loads(m["content"]) for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    assert [(t["code"], (t.get("errors") or [{}])[0].get("field")) for t in told] == [
        ("unknown_tool", None), ("validation_error", "limit"), ("validation_error", "name")], told
    assert "book_slot" in told[0]["message"]


class ShapelessModel(FakeChatModel):
    """A model whose tool call names no function."""

    @staticmethod
    def decide(messages: list[dict]) -> dict:
        return {"role": "assistant", "content": None, "tool_calls": [{"id": "call-1", "type": "function"}]}


def assert_reported_as_the_models_failure(done: subprocess.CompletedProcess, model: FakeChatModel) -> None:
    """A tool call without its function ended the Python agent in a KeyError reported as the MCP service
    unreachable, and the TypeScript one in a TypeError stack: it is the model's failure, and reported so."""
    assert "the model's message" in model_failed(done, model.url, " at ")["error"]


# (the model, what the agent must have told it, or reported)
MISTAKES = [pytest.param(GarbledModel, assert_told_invalid_arguments, id="arguments-no-json"),
            pytest.param(ErringModel, assert_told_each_refusal, id="refused-calls"),
            pytest.param(ShapelessModel, assert_reported_as_the_models_failure, id="tool-call-of-another-shape")]


@pytest.mark.parametrize("model_class, told", MISTAKES)
def test_a_tool_call_the_model_got_wrong_is_told_to_the_model(world, live, model_class, told):
    """A model's tool call with arguments cut short ended the agent in a JSONDecodeError (reported as the MCP
    service unreachable) or a SyntaxError stack; one of a tool the server does not have ended it as the service
    refusing the request (the JSON-RPC error -32602, Unknown tool). The model is told, as a tool's refusal is
    (``invalid_arguments``, ``unknown_tool``, the refusal's problem document), and goes on; a call of another
    shape (no function) is the model's failure, reported as such."""
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=AGENT_SCOPES)
    model = model_class()
    try:
        done = run_agent(live, token, OPENAI_BASE_URL=model.url, OPENAI_MODEL="scripted")
    finally:
        model.stop()
    told(done, model)
