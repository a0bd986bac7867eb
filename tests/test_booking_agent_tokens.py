"""The example agent (examples/booking_agent.py) with a token it cannot read itself: it reads the token's patient_id
claim only to know whose conversation it is, and leaves judging the token to the service."""

from __future__ import annotations

import base64
import importlib.util
import json

import pytest

from tests.fakes.processes import BASE_DIR
from tests.live import free_port


def _example():
    spec = importlib.util.spec_from_file_location("booking_agent_example", BASE_DIR / "examples" / "booking_agent.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _segment(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize("token", [
    "an-opaque-access-token",  # a provider's opaque token, or one pasted without its dots
    f"e30.{_segment(b'[1, 2]')}.c2ln",  # a payload that is JSON but no object
    f"e30.{_segment(b'null')}.c2ln",
])
def test_a_token_the_agent_cannot_read_goes_to_the_service_never_told_to_pass_a_patient_id(token, monkeypatch,
                                                                                             capsys):
    """The agent answered a token that is no JWT it can read with "the token names no patient: pass --patient-id"
    (exit 2), and one whose payload is a JSON array with a traceback. Its documentation says a token the service
    refuses, and a service it cannot reach, are reported as JSON on stderr with exit code 1: such a token is now
    sent, and what happens is reported (here, a service not listening)."""
    nowhere = f"http://127.0.0.1:{free_port()}/mcp"
    monkeypatch.setenv("ANAMNESIS_TOKEN", token)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert _example().main(["--url", nowhere]) == 1
    report = json.loads(capsys.readouterr().err)
    assert report["outcome"] == "unreachable" and report["url"] == nowhere, report


def test_a_token_that_names_no_patient_still_asks_for_a_patient_id(monkeypatch, capsys):
    monkeypatch.setenv("ANAMNESIS_TOKEN", f"e30.{_segment(json.dumps({'sub': 'nurse-1'}).encode())}.c2ln")
    assert _example().main(["--url", f"http://127.0.0.1:{free_port()}/mcp"]) == 2
    assert "pass --patient-id" in capsys.readouterr().err
