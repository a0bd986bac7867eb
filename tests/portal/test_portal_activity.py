"""The patient's page of who used their information, in words a patient reads: their own actions as they did
them."""

from __future__ import annotations

import pytest

from tests.support import PATIENT_SCOPES, Api

pytestmark = pytest.mark.django_db


def test_the_patients_own_tasks_and_conversations_are_not_said_to_be_for_or_with_themselves(world, people,
                                                                                          signed_in):
    """What the patient did through an app signed in as themselves read "You started a task for you" and "You
    started a conversation with you": their own lines say "You started a task", "You started a conversation" (what
    others did for them keeps "for you": test_portal_pages)."""
    sub = people.patient(world.patient_a, name="Alice")
    world.consent(world.patient_a, purpose="prior_authorization")
    world.consent(world.patient_a)
    me = Api(world.token(sub=sub, patient_id=world.patient_a, org_id=world.org, scope=PATIENT_SCOPES))
    assert me.post("/v1/workflows", {"workflow_type": "prior_authorization",
                                     "patient_id": str(world.patient_a)}).status_code == 201
    started = me.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"})
    assert started.status_code == 201, started.content
    own = signed_in(sub).get("/me/activity/").content.decode().split("What you did", 1)[1]
    assert "<td>You started a task</td>" in own and "<td>You started a conversation</td>" in own
    assert " for you" not in own and " with you" not in own
