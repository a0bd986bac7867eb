"""The demo agent is an agent: the development provider's token for ``scheduling-agent`` (what
``manage.py demo_agent_token`` prints) proposes, and the patient's activity page names the agent and the purpose."""

from __future__ import annotations

import pytest

from demo import devidp
from tests.conftest import memory_body
from tests.portal.conftest import point_at_idp
from tests.support import Api

pytestmark = pytest.mark.django_db


def test_the_demo_agent_proposes_and_the_patient_sees_it_by_name(settings, dev_idp, people, world, signed_in):
    point_at_idp(settings, dev_idp, api_too=True, world=world)
    alice = people.patient(world.patient_a, name="Alice")
    me = Api(people.access_token(alice))
    consent = me.post(f"/v1/patients/{world.patient_a}/consents", {"purpose": "appointment_scheduling"})
    assert consent.status_code == 201, consent.content
    claims = {**devidp.DEMO_AGENT["scheduling-agent"], "org_id": str(world.org), "patient_id": str(world.patient_a)}
    agent = Api(people.access_token(people.raw("scheduling-agent", claims)))
    r = agent.post(f"/v1/patients/{world.patient_a}/memories",
                   memory_body(consent.json()["consent_record_id"], "latest_time", "15:00"))
    assert r.status_code == 201, r.content
    assert r.json()["status"] == "proposed" and r.json()["memory"]["source"] == "agent_extracted"
    assert r.json()["memory"]["agent_client_id"] == "scheduling-agent"

    # its token names its one purpose of use, so its read names it without asking
    assert agent.get(f"/v1/patients/{world.patient_a}/memories").status_code == 200

    client = signed_in(alice)
    page = client.get("/me/activity/").content.decode()
    assert "AI agent “scheduling-agent” acting for you" in page
    assert ("<td>AI agent “scheduling-agent” acting for you</td><td>looked at your preferences</td>"
            "<td>Appointment scheduling</td>") in page, "the purpose of the agent's read"
    # others first, then the patient's own actions
    assert page.index("Read or changed by others") < page.index("What you did")
    # the suggestion is the agent's, not "recorded by you" (its token carries Alice's subject)
    preferences = client.get("/me/").content.decode()
    assert "AI agent “scheduling-agent”" in preferences
    assert "<dd>you</dd>" not in preferences
