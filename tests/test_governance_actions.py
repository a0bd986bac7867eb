"""Methods and bodies of actions: a method no view serves is 405 for everyone (not a scope refusal), HEAD reads
like GET; an action that takes no body (confirm, reject, revoke, retry) refuses malformed JSON and any field
instead of acting on it; a type name no type can have is 404 before it reaches the database."""

from __future__ import annotations

import pytest

from tests.conftest import memory_body
from tests.support import PATIENT_SCOPES, Api, mint

pytestmark = pytest.mark.django_db


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


@pytest.mark.parametrize("method", ["PUT", "PATCH", "TRACE"])
def test_a_method_no_view_serves_is_405_whatever_the_callers_scopes(world, method):
    for caller in (world.patient(world.patient_a), Api(mint(world.keyring, sub="nobody", org_id=world.org,
                                                            scope="audit:read"))):
        r = caller.request(method, mem(world.patient_a), {})
        assert r.status_code == 405, (method, r.content)
        assert r.json()["code"] == "method_not_allowed"


def test_head_reads_like_get_with_gets_scopes(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    assert patient.post(mem(world.patient_a), memory_body(cid)).status_code == 201
    r = patient.request("HEAD", mem(world.patient_a))
    assert r.status_code == 200 and r.content == b""
    no_read = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org,
                       patient_id=world.patient_a, scope="consent:read"))
    r = no_read.request("HEAD", mem(world.patient_a))
    assert r.status_code == 403  # GET's scopes apply, refused like GET


@pytest.fixture
def proposal(world):
    cid = world.consent(world.patient_a)
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                     scope=PATIENT_SCOPES, act="scheduling-agent"))
    r = agent.post(mem(world.patient_a), memory_body(cid, "latest_time", "15:00"))
    assert r.status_code == 201 and r.json()["status"] == "proposed"
    return r.json()["memory_id"]


@pytest.mark.parametrize("action", ["confirm", "reject"])
def test_confirm_and_reject_refuse_a_body_and_leave_the_proposal_as_it_was(world, proposal, action):
    patient = world.patient(world.patient_a)
    url = f"{mem(world.patient_a)}/{proposal}/{action}"
    r = patient.post(url, raw="{not json")
    assert r.status_code == 400 and r.json()["code"] == "malformed_json"
    r = patient.post(url, {"state": "active"})
    assert r.status_code == 422 and r.json()["code"] == "validation_error"
    proposals = patient.get(f"{mem(world.patient_a)}/proposals").json()["items"]
    assert [p["memory_id"] for p in proposals] == [proposal]  # nothing happened
    assert patient.post(url, raw="").status_code == 200  # no body at all, or {}, is the action
    assert patient.get(f"{mem(world.patient_a)}/proposals").json()["items"] == []


def test_revoke_refuses_a_body_and_the_consent_stays_granted(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    url = f"/v1/patients/{world.patient_a}/consents/{cid}/revoke"
    assert patient.post(url, raw="{bad").status_code == 400
    r = patient.post(url, {"reason": "x"})
    assert r.status_code == 422 and r.json()["code"] == "validation_error"
    consents = patient.get(f"/v1/patients/{world.patient_a}/consents").json()["items"]
    assert [c["status"] for c in consents if c["consent_record_id"] == cid] == ["granted"]
    r = patient.post(url)
    assert r.status_code == 200 and r.json()["status"] == "revoked"


@pytest.mark.parametrize("name", ["a%00b", "a%20b", "A-B", "x" * 80])
def test_a_type_name_no_type_can_have_is_404(world, name):
    r = world.patient(world.patient_a).get(f"/v1/memory-types/{name}")
    assert r.status_code == 404 and r.json()["code"] == "not_found"


def test_an_action_that_takes_no_body_refuses_any_json_value_but_an_empty_object(world, proposal):
    """``null`` and ``""`` sent as the body of an action that takes none were taken for no body at all: an erase-all
    or a revocation sent ``null`` (a client serialising a missing value) acted, while ``[]`` was refused. Any
    JSON value but ``{}`` is now 422 ``validation_error``, and nothing is done; no body at all, or ``{}``, is the
    action."""
    patient = world.patient(world.patient_a)
    memories = mem(world.patient_a)
    for raw in ("null", '""', "[]", "0"):
        for method, url in (("POST", f"{memories}/{proposal}/confirm"), ("DELETE", memories)):
            r = patient.client.generic(method, url, data=raw, content_type="application/json",
                                       **patient._headers(None))
            assert (r.status_code, r.json()["code"]) == (422, "validation_error"), (raw, method, r.content)
    proposals = patient.get(f"{memories}/proposals").json()["items"]
    assert [p["memory_id"] for p in proposals] == [proposal]  # nothing happened
    assert patient.request("DELETE", memories).status_code == 200  # no body at all: the erasure
