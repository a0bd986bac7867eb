"""The TypeScript example agent (examples/typescript/booking_agent.ts, the official MCP TypeScript SDK) run as its
own Node process against the live service over MCP: the twin of tests/test_booking_agent.py. Seed 000's booking
conversation end to end; a refusal reported without a stack trace; a model choosing the tool calls."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.fakes.processes import BASE_DIR
from tests.fakes.scheduling import FakeScheduling
from tests.live import free_port
from tests.test_booking_agent import (
    MISTAKES,
    FakeChatModel,
    assert_token_refused,
    model_failed,
    unreachable,
)
from tests.test_typescript_client import build_typescript, node

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

EXAMPLE_DIR = BASE_DIR / "examples" / "typescript"
AGENT_SCOPES = "memory:read memory:write workflow:read workflow:write"


@pytest.fixture(scope="module")
def agent_js():
    build_typescript(EXAMPLE_DIR)
    return str(EXAMPLE_DIR / "dist" / "booking_agent.js")


@pytest.fixture
def scheduling(settings):
    fake = FakeScheduling()
    settings.SCHEDULING_BASE_URL = fake.url
    yield fake
    fake.down()


def run_agent(agent_js: str, live, token: str, **env: str) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ANAMNESIS_TOKEN": token, **env}
    return subprocess.run([node(), agent_js, "--url", live.mcp_url], cwd=BASE_DIR, env=env, capture_output=True,
                          text=True, timeout=180)


def test_the_typescript_agent_books_seed_000_end_to_end_over_mcp(world, live, scheduling, agent_js):
    world.consent(world.patient_a)
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=AGENT_SCOPES)
    done = run_agent(agent_js, live, token)
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

    patient = world.patient(world.patient_a)
    workflow = patient.get(f"/v1/workflows/{summary['workflow_id']}").json()
    assert [op["operation_id"] for op in workflow["pending_operations"]] == [summary["operation_id"]]

    # The preference is only a proposal until the patient confirms it; then a new conversation starts from it.
    memories = f"/v1/patients/{world.patient_a}/memories"
    assert patient.get(memories).json()["items"] == []
    [memory_id] = summary["proposed_memory_ids"]
    assert patient.post(f"{memories}/{memory_id}/confirm").status_code == 200
    again = run_agent(agent_js, live, token)
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads(again.stdout)["standing_preferences"] == [{"kind": "earliest_time", "time": "10:00"}]
    assert json.loads(again.stdout)["proposed_facts"] == [], "already current: nothing to propose"


def test_the_typescript_agent_reports_a_refusal_without_a_stack_trace(world, live, agent_js):
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope="memory:read")
    done = run_agent(agent_js, live, token)
    assert done.returncode == 1, done.stderr[-3000:]
    problem = json.loads(done.stderr)
    assert problem == {"outcome": "refused", "tool": "start_session", "problem": problem["problem"]}
    assert problem["problem"]["code"] == "insufficient_scope"


def test_the_typescript_agent_reports_a_refused_token_or_an_unreachable_service_without_a_stack_trace(
        world, live, agent_js):
    """An expired token is refused by the server before any tool runs (401 invalid_token): the SDK threw a
    StreamableHTTPError that Node printed with its stack. The report names the problem, as a tool's refusal is;
    a service not listening is named too."""
    expired = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=AGENT_SCOPES, exp_in=-120)
    assert_token_refused(run_agent(agent_js, live, expired), " at ")
    nowhere = f"http://127.0.0.1:{free_port()}/mcp"
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=AGENT_SCOPES)
    done = subprocess.run([node(), agent_js, "--url", nowhere], cwd=BASE_DIR, capture_output=True, text=True,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ANAMNESIS_TOKEN": token}, timeout=60)
    assert "ECONNREFUSED" in unreachable(done, nowhere)["error"]


def test_a_model_that_cannot_be_reached_is_reported_as_the_models_failure(world, live, agent_js):
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=AGENT_SCOPES)
    model = f"http://127.0.0.1:{free_port()}/v1"
    assert model_failed(run_agent(agent_js, live, token, OPENAI_BASE_URL=model), model, " at ")


@pytest.mark.parametrize("model_class, told", MISTAKES)
def test_a_tool_call_the_model_got_wrong_is_told_to_the_model(world, live, agent_js, model_class, told):
    """The twin of the Python agent's: arguments cut short, a tool the server does not have (which ended the run
    with an McpError stack trace), or a tool's refusal (which the SDK, checking the error's structured content
    against an output schema of success bodies, turned into an McpError stack trace) are told to the model,
    which goes on."""
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=AGENT_SCOPES)
    model = model_class()
    try:
        done = run_agent(agent_js, live, token, OPENAI_BASE_URL=model.url, OPENAI_MODEL="scripted")
    finally:
        model.stop()
    told(done, model)


def test_the_typescript_agent_without_a_token_says_what_to_set(live, agent_js):
    done = subprocess.run([node(), agent_js, "--url", live.mcp_url], cwd=BASE_DIR, capture_output=True, text=True,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, timeout=60)
    assert done.returncode == 2 and "ANAMNESIS_TOKEN" in done.stderr


def test_with_openai_base_url_a_model_chooses_the_typescript_agents_tool_calls(world, live, scheduling, agent_js):
    world.consent(world.patient_a)
    model = FakeChatModel()
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=AGENT_SCOPES)
    try:
        done = run_agent(agent_js, live, token, OPENAI_BASE_URL=model.url, OPENAI_MODEL="scripted")
    finally:
        model.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["tool_calls"] == ["start_session", "add_turn", "add_turn", "search_offers", "add_turn",
                                     "end_session"]
    offered = [json.loads(m["content"]) for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    assert [o["slot_id"] for r in offered if "offers" in r for o in r["offers"]] == ["A1"]
    assert str(world.patient_a) not in json.dumps(model.requests[-1]["messages"])
    tools = {t["function"]["name"]: t["function"] for t in model.requests[0]["tools"]}
    assert "request_operation" in tools and tools["request_operation"]["parameters"]["type"] == "object"
