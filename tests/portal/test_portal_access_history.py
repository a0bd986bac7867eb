"""The auditor's page: the organisation's access history, as ``GET /v1/audit-events`` answers ``audit:read`` (ids,
no names or values), a page at a time, filtered by patient and days, each view of it audited."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from core.identity import Identity, identity_context
from core.models import AuditEvent
from tests.conftest import memory_body
from tests.portal.test_portal_accessibility import assert_described_by_ids_exist

pytestmark = pytest.mark.django_db


def named_patient_with_a_memory(world) -> tuple[str, str]:
    """Patient A named "Ada Quill" in the directory, with a consent and a memory under it: their ids."""
    admin = world.staff("admin-1", scope="patient:write")
    assert admin.post("/v1/patients", {"patient_id": str(world.patient_a), "display_name": "Ada Quill"},
                      ).status_code == 201
    consent = world.consent(world.patient_a)
    r = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories", memory_body(consent))
    assert r.status_code == 201, r.content
    return consent, r.json()["memory_id"]


def _arrange(world):
    """Patient A (named in the directory) with a memory, patient B with a consent; another organisation's too."""
    named_patient_with_a_memory(world)
    world.consent(world.patient_b)
    world.consent(world.patient_a, org=world.other_org)


def _events(org, **filters) -> list[AuditEvent]:
    with identity_context(Identity(org_id=org, actor_sub="test-auditor", scopes=frozenset({"audit:read"}))):
        return list(AuditEvent.objects.filter(organization_id=org, **filters).order_by("occurred_at", "id"))


def _rows(html: str) -> list[str]:
    return re.findall(r"<tr(?: class=\"refused\")?><td><time.*?</tr>", html, re.S)


def test_an_auditor_signing_in_sees_the_organisations_access_history(world, people, signed_in):
    """An auditor signing in got an empty "My patients" page: the portal showed them nothing they may read."""
    _arrange(world)
    auditor_sub = people.auditor()
    client = signed_in(auditor_sub)
    assert client.get("/")["Location"] == "/staff/access-history/"
    assert client.get("/staff/")["Location"] == "/staff/access-history/"
    page = client.get("/staff/access-history/")
    assert page.status_code == 200 and page["Cache-Control"].startswith("max-age=0")
    html = page.content.decode()
    assert "<title>Access history · Anamnesis</title>" in html and 'aria-current="page">Access history' in html
    assert "My patients" not in html
    rows = _rows(html)
    assert len(rows) == len(_events(world.org)) - 1  # the page's own row is written after its read
    assert str(world.patient_a) in html and str(world.patient_b) in html
    assert all(f"<code>{e.action}</code>" in html for e in _events(world.org)[:-1])
    assert "Ada" not in html and "Quill" not in html  # ids, never names: what the API's audit view shows
    # the other organisation's events are not there
    others = _events(world.other_org)
    assert others and not [e for e in others if e.resource_id and str(e.resource_id) in html]
    # each view is itself audited, as the API's read
    seen = _events(world.org, action="audit.list")[-1]
    assert seen.actor_sub == auditor_sub and seen.outcome == "success" and seen.patient_id is None


def test_the_history_is_filtered_by_patient_and_by_days_and_paged(world, people, signed_in, monkeypatch):
    from portal.views import audit as audit_page

    _arrange(world)
    client = signed_in(people.auditor())
    html = client.get(f"/staff/access-history/?patient={world.patient_b}").content.decode()
    assert str(world.patient_b) in html and str(world.patient_a) not in html
    viewed = _events(world.org, action="audit.list")[-1]
    assert viewed.patient_id == world.patient_b  # the patient looked up is named in their history
    today = timezone.localdate().isoformat()
    assert _rows(client.get(f"/staff/access-history/?since={today}&until={today}").content.decode())
    assert not _rows(client.get("/staff/access-history/?until=2000-01-01").content.decode())
    monkeypatch.setattr(audit_page, "PAGE_SIZE", 2)
    first = client.get(f"/staff/access-history/?patient={world.patient_a}").content.decode()
    older = re.search(r'href="\?([^"]*older=[^"]*)">Older', first).group(1).replace("&amp;", "&")
    assert f"patient={world.patient_a}" in older  # the filter is kept on the older pages
    second = client.get(f"/staff/access-history/?{older}").content.decode()
    assert len(_rows(first)) == 2 and _rows(second) and set(_rows(first)).isdisjoint(_rows(second))
    assert str(world.patient_b) not in second


@pytest.mark.parametrize("query", ["patient=not-an-id", "since=2026-13-01", "since=2026-05-02&until=2026-05-01"])
def test_filters_it_cannot_read_come_back_with_their_error_and_nothing_is_read(world, people, signed_in, query):
    client = signed_in(people.auditor())
    before = len(_events(world.org, action="audit.list"))
    page = client.get(f"/staff/access-history/?{query}")
    html = page.content.decode()
    assert page.status_code == 422 and "<title>Error: Access history · Anamnesis</title>" in html
    assert_described_by_ids_exist(html)
    assert 'class="error-summary"' in html and not _rows(html)
    assert len(_events(world.org, action="audit.list")) == before


def test_an_older_page_link_it_did_not_give_is_refused(world, people, signed_in):
    assert signed_in(people.auditor()).get("/staff/access-history/?older=forged").status_code == 400


def test_care_staff_and_patients_cannot_open_the_access_history(world, people, signed_in):
    assert signed_in(people.staff("nurse")).get("/staff/access-history/").status_code == 403
    assert signed_in(people.patient(world.patient_a)).get("/staff/access-history/").status_code == 403
    assert signed_in(people.admin()).get("/staff/access-history/").status_code == 200
