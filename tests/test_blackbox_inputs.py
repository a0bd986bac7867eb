"""What a careless or hostile client sends, as the documentation and the OpenAPI document describe the API: a value
of the wrong JSON type is refused with its field, whatever DRF would have read it as."""

from __future__ import annotations

import pytest

from tests.support import Api

SUBS = "/v1/event-subscriptions"


@pytest.mark.django_db
def test_a_flag_is_json_true_or_false_never_a_word_or_a_number_and_nothing_changes(world):
    """The document says ``enabled`` is a boolean. DRF's field also read "yes", "off", "0", 1 and 0 as one, so
    ``{"enabled": "no"}`` paused an endpoint and ``{"enabled": "false "}`` was a 422 beside it: now anything but
    ``true`` or ``false`` is 422 ``invalid`` naming the field, and the subscription stays as it was."""
    admin = Api(world.token(sub="webhook-admin", scope="webhook:admin"))
    r = admin.post(SUBS, {"url": "https://hooks.example.org/in", "event_types": ["consent.revoked"]})
    assert r.status_code == 201, r.content
    one = f"{SUBS}/{r.json()['subscription_id']}"
    for value in ("no", "off", "false", "0", 0, 1, "yes", "true"):
        r = admin.request("PATCH", one, {"enabled": value})
        assert r.status_code == 422, (value, r.content)
        assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("enabled", "invalid")], r.json()
    assert admin.get(one).json()["subscription"]["enabled"] is True
    r = admin.request("PATCH", one, {"enabled": False})
    assert r.status_code == 200 and r.json()["enabled"] is False, r.content
