"""One set of services: the same person sees the same data through the portal and through the API, and the
development provider's access tokens (JWTs signed by its own key) are accepted by the API."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.portal.conftest import point_at_idp
from tests.support import Api

pytestmark = pytest.mark.django_db


def test_portal_and_api_show_the_same_preferences_and_consents(settings, dev_idp, people, world, signed_in):
    point_at_idp(settings, dev_idp, api_too=True, world=world)
    sub = people.patient(world.patient_a, name="Alice")
    api = Api(people.access_token(sub))  # issued by the provider, like a demo agent's
    patient = world.patient_a

    consent = api.post(f"/v1/patients/{patient}/consents", {"purpose": "appointment_scheduling"})
    assert consent.status_code == 201, consent.content
    consent_id = consent.json()["consent_record_id"]
    for fact in ({"kind": "earliest_time", "time": "08:45"}, {"kind": "excluded_days", "days": ["friday"]}):
        r = api.post(f"/v1/patients/{patient}/memories", {
            "memory_type": "scheduling_preference", "fact": fact, "consent_purpose": "appointment_scheduling",
            "consent_record_id": consent_id})
        assert r.status_code == 201, r.content

    portal = signed_in(sub)
    # A correction in the portal is visible through the API, and vice versa.
    html = portal.get("/me/").content.decode()
    first = re.findall(r'data-memory-id="([0-9a-f-]{36})"', html)
    items = api.get(f"/v1/patients/{patient}/memories").json()["items"]
    assert sorted(first) == sorted(i["memory_id"] for i in items)
    for item in items:
        assert item["text"] in html
        assert item["source"] == "patient_stated"

    target = next(i for i in items if i["fact"]["kind"] == "earliest_time")
    assert portal.post(f"/me/preferences/{target['memory_id']}/correct/", {"time": "09:15"}).status_code == 302
    items = api.get(f"/v1/patients/{patient}/memories").json()["items"]
    html = portal.get("/me/").content.decode()
    assert sorted(re.findall(r'data-memory-id="([0-9a-f-]{36})"', html)) == sorted(i["memory_id"] for i in items)
    assert "appointments not before 09:15" in html
    assert [i["fact"]["time"] for i in items if i["fact"]["kind"] == "earliest_time"] == ["09:15"]

    consents_html = portal.get("/me/consents/").content.decode()
    api_consents = api.get(f"/v1/patients/{patient}/consents").json()["items"]
    assert re.findall(r'data-consent-id="([0-9a-f-]{36})"', consents_html) == [
        c["consent_record_id"] for c in api_consents]

    # The audit trail is one trail: the portal's reads and the API's writes in the same history.
    events = api.get("/v1/audit-events", {"patient_id": str(patient)}).json()["items"]
    actions = {e["action"] for e in events}
    assert {"memory.create", "memory.correct", "memory.list", "consent.grant"} <= actions
    assert {e["actor_sub"] for e in events} == {sub}


def test_the_providers_id_token_is_not_an_api_access_token(settings, dev_idp, people, world):
    """ID tokens are for the portal's client id; the API requires its own audience."""
    point_at_idp(settings, dev_idp, api_too=True, world=world)
    import httpx

    from demo import devidp

    sub = people.patient(world.patient_a)
    location = devidp.sign_in(dev_idp, sub, client_id="anamnesis-portal", redirect_uri="http://testserver/cb",
                              scope="openid")
    code = re.search(r"code=([^&]+)", location).group(1)
    tokens = httpx.post(f"{dev_idp}/oauth2/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": "http://testserver/cb",
        "client_id": "anamnesis-portal", "client_secret": "x"}).json()
    response = Client().get(f"/v1/patients/{world.patient_a}/memories",
                            HTTP_AUTHORIZATION=f"Bearer {tokens['id_token']}")
    assert response.status_code == 401
    ok = Client().get(f"/v1/patients/{world.patient_a}/memories",
                      HTTP_AUTHORIZATION=f"Bearer {tokens['access_token']}")
    assert ok.status_code == 200
