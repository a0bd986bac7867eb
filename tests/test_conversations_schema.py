"""Every conversation response matches the OpenAPI schema we publish: required arrays are arrays (never
``null``), nullable fields are the only nulls, through a whole conversation including its end."""

from __future__ import annotations

import re
from functools import lru_cache

import pytest
from drf_spectacular.generators import SchemaGenerator
from openapi_schema_validator import OAS30Validator

from tests.test_conversations_api import SEED_TURN_1, SEED_TURN_2, session_path, start

pytestmark = pytest.mark.django_db


@lru_cache(maxsize=1)
def _document() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _operation(method: str, path: str) -> dict:
    for template, operations in _document()["paths"].items():
        if re.fullmatch(re.sub(r"\{[^}]+\}", r"[^/]+", template), path) and method in operations:
            return operations[method]
    raise AssertionError(f"{method.upper()} {path} is not in the schema")


def assert_matches_schema(response, method: str, path: str) -> dict:
    """Validate a response body against the schema the API publishes for that operation and status."""
    operation = _operation(method, path)
    declared = operation["responses"].get(str(response.status_code))
    assert declared, f"{method.upper()} {path} does not declare {response.status_code}"
    schema = declared["content"]["application/json"]["schema"]
    document = {**_document(), **schema}  # $refs resolve against the whole document
    body = response.json()
    errors = sorted(OAS30Validator(document).iter_errors(body), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)
    return body


def test_schema_check_catches_a_null_required_array(world):
    """The check itself: a body with a null where the schema wants an array fails."""
    api = world.patient(world.patient_a)
    r = api.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"})

    class Broken:
        status_code = r.status_code

        def json(self):
            body = r.json()
            body["slots"]["excluded_days"] = None
            return body

    with pytest.raises(AssertionError, match="excluded_days"):
        assert_matches_schema(Broken(), "post", "/v1/sessions")


@pytest.mark.parametrize("outcome", ["completed", "abandoned"])
def test_every_response_of_a_conversation_matches_the_schema(world, outcome):
    api = world.patient(world.patient_a)
    r = api.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"})
    sid = assert_matches_schema(r, "post", "/v1/sessions")["session"]["session_id"]
    for content in (SEED_TURN_1, SEED_TURN_2, "after 3", "PM, sorry"):
        r = api.post(session_path(sid, "/turns"), {"role": "user", "content": content})
        assert_matches_schema(r, "post", session_path(sid, "/turns"))
    r = api.post(session_path(sid, "/turns"), {"role": "tool", "content": "", "tool_name": "scheduling.hold_slot",
                                               "tool_result": {"slot_id": "A1"}})
    assert_matches_schema(r, "post", session_path(sid, "/turns"))
    assert_matches_schema(api.get(session_path(sid)), "get", session_path(sid))
    assert_matches_schema(api.get(session_path(sid, "/context")), "get", session_path(sid, "/context"))
    r = api.post(session_path(sid, "/end"), {"outcome": outcome})
    body = assert_matches_schema(r, "post", session_path(sid, "/end"))
    slots = body["slots"]
    assert slots["preferred_days"] == [] and slots["excluded_days"] == [] and slots["excluded_periods"] == []
    # ending again (a no-op) and reading the ended session answer the same shape
    assert_matches_schema(api.post(session_path(sid, "/end"), {"outcome": outcome}), "post", session_path(sid, "/end"))
    assert_matches_schema(api.get(session_path(sid)), "get", session_path(sid))


def test_a_fresh_session_matches_the_schema(world):
    api = world.patient(world.patient_a)
    body = start(api, world.patient_a)
    assert body["slots"]["preferred_days"] == [] and body["clarifying_questions"] == []
