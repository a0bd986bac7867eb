"""The patient portal and the staff console through Django's test client, logged in through the real provider.
Every access rule has its negative; every form refuses bad input next to the field and saves nothing."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from consent.models import AccessGrant, ConsentRecord
from core.identity import ACTOR_STAFF, Identity, identity_context
from core.models import AuditEvent
from memory.models import MemoryState
from memory.services import memory_propose
from tests.conftest import grant_outside_directory, in_directory, memory_body
from tests.support import PATIENT_SCOPES, Api, mint, without_timestamps

pytestmark = pytest.mark.django_db


def _memory(world, patient, consent, kind="earliest_time", time="10:00") -> str:
    r = world.patient(patient).post(f"/v1/patients/{patient}/memories", memory_body(consent, kind=kind, time=time))
    assert r.status_code == 201, r.content
    return r.json()["memory_id"]


def _owner_counts(world, patient) -> tuple[int, int]:
    from tests.conftest import owner_connect

    with owner_connect() as conn:
        m = conn.execute("SELECT count(*) FROM patient_memory WHERE patient_id = %s", [patient]).fetchone()[0]
        a = conn.execute("SELECT count(*) FROM audit_event WHERE patient_id = %s", [patient]).fetchone()[0]
    return m, a


@pytest.fixture
def alice(world, people, signed_in):
    consent = world.consent(world.patient_a)
    first = _memory(world, world.patient_a, consent, "earliest_time", "10:00")
    second = _memory(world, world.patient_a, consent, "latest_time", "16:00")
    client = signed_in(people.patient(world.patient_a, name="Alice"))
    return {"client": client, "consent": consent, "first": first, "second": second}


# --- patient ----------------------------------------------------------------------------------------------------
def test_preferences_show_what_where_from_who_when_and_until_when(alice):
    page = alice["client"].get("/me/").content.decode()
    assert "appointments not before 10:00" in page and "no later than 16:00" in page
    assert "You told us" in page and "Recorded by" in page and "Until you change it" in page
    assert "Appointment scheduling" in page


def test_a_patient_never_sees_another_patients_preferences(world, alice, people, signed_in):
    consent_b = world.consent(world.patient_b)
    b_memory = _memory(world, world.patient_b, consent_b, "earliest_time", "07:15")
    client = alice["client"]
    # the fact as the page words it, and its id: a bare "07:15" is also the clock at a quarter past seven, and the
    # page shows when each preference was recorded
    page = client.get("/me/").content.decode()
    assert "not before 07:15" not in page and b_memory not in page
    for path in (f"/me/preferences/{b_memory}/correct/",):
        assert client.get(path).status_code == 404
    assert client.post(f"/me/preferences/{b_memory}/delete/").status_code == 404
    assert client.get(f"/me/consents/{consent_b}/revoke/").status_code == 404
    assert client.post(f"/me/consents/{consent_b}/revoke/", {"confirm": "yes"}).status_code == 404
    bob = signed_in(people.patient(world.patient_b))
    assert "not before 07:15" in bob.get("/me/").content.decode()


def test_a_server_error_is_a_page_for_browsers_and_a_problem_for_the_api(alice, monkeypatch):
    """A fault behind a page shows the portal's plain page with the request's reference (nothing that could fail
    again: no template, no database); the API keeps its problem document."""
    import portal.views.memory as views

    def broken(*args, **kwargs):
        raise RuntimeError("a fault")

    client = alice["client"]
    client.raise_request_exception = False
    monkeypatch.setattr(views, "render", broken)
    page = client.get("/me/", HTTP_ACCEPT="text/html", HTTP_X_REQUEST_ID="fault-1")
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")
    assert "Something went wrong" in page.content.decode() and "fault-1" in page.content.decode()
    assert "a fault" not in page.content.decode()
    api = client.get("/me/", HTTP_ACCEPT="application/json")
    assert api.status_code == 500 and api.json()["code"] == "internal_error"


def test_a_form_django_cannot_read_says_so_and_saves_nothing(alice):
    """More fields than Django takes (DATA_UPLOAD_MAX_NUMBER_FIELDS) is its 400: a browser's page about the form,
    not "This link is not valid ... part of the address"; the API's problem stays."""
    client = alice["client"]
    fields = {f"f{i}": "x" for i in range(1100)} | {"time": "12:45"}
    page = client.post(f"/me/preferences/{alice['first']}/correct/", urlencode(fields),
                       content_type="application/x-www-form-urlencoded", HTTP_ACCEPT="text/html")
    html = page.content.decode()
    assert page.status_code == 400 and "This form could not be read" in html and "nothing was saved" in html
    assert "part of the address" not in html
    assert "not before 10:00" in client.get("/me/").content.decode()
    assert client.get("/me/activity/?older=not-a-cursor", HTTP_ACCEPT="text/html").status_code == 400


def test_the_database_out_of_reach_is_a_503_page_with_retry_after_as_the_api_answers(alice, monkeypatch):
    """PostgreSQL cannot be reached (here a real connection refused, behind the page): the browser gets the
    product's page saying to try again shortly, 503 with Retry-After, as the API answers 503 service_unavailable;
    it was "Something went wrong", a 500 without Retry-After, on every page (each reads its session there)."""
    import psycopg

    import portal.views.memory as views
    from tests.fakes.service import free_port

    closed = free_port()  # nothing listens there

    def database_gone(*args, **kwargs):
        psycopg.connect(host="127.0.0.1", port=closed, dbname="anamnesis", connect_timeout=2)

    client = alice["client"]
    client.raise_request_exception = False
    monkeypatch.setattr(views, "render", database_gone)
    page = client.get("/me/", HTTP_ACCEPT="text/html")
    text = page.content.decode()
    assert page.status_code == 503 and int(page["Retry-After"]) >= 1 and "no-store" in page["Cache-Control"]
    assert "unavailable for a moment" in text and "Nothing was changed" in text and "Traceback" not in text
    assert 'lang="en-GB"' in text and "· Anamnesis</title>" in text and 'rel="stylesheet"' in text
    problem = client.get("/me/", HTTP_ACCEPT="application/json")
    assert problem.status_code == 503 and problem.json()["code"] == "service_unavailable" and problem["Retry-After"]


def test_a_change_whose_commit_was_cut_off_is_not_said_to_have_changed_nothing(alice, monkeypatch):
    """The connection lost while a page's transaction was committing (core.identity.CommitInterrupted, here
    raised from a real refused connection behind the page): the change may have been saved, so the page no longer
    says "Nothing was changed", and JSON callers get 503 commit_outcome_unknown."""
    import psycopg

    import portal.views.memory as views
    from core.identity import CommitInterrupted
    from tests.fakes.service import free_port

    closed = free_port()

    def commit_cut_off(*args, **kwargs):
        try:
            psycopg.connect(host="127.0.0.1", port=closed, dbname="anamnesis", connect_timeout=2)
        except psycopg.OperationalError as exc:
            raise CommitInterrupted("the connection was lost while the transaction was committing") from exc

    text, code = _unavailable_answers(alice, monkeypatch, views, commit_cut_off)
    assert "may or may not have been saved" in text and "Nothing was changed" not in text
    assert code == "commit_outcome_unknown"


def _unavailable_answers(alice, monkeypatch, views, failing) -> tuple[str, str]:
    """The page and the JSON problem's code for /me/ when rendering it raises what ``failing`` raises; both 503
    with Retry-After."""
    client = alice["client"]
    client.raise_request_exception = False
    monkeypatch.setattr(views, "render", failing)
    page = client.get("/me/", HTTP_ACCEPT="text/html")
    assert page.status_code == 503 and int(page["Retry-After"]) >= 1
    problem = client.get("/me/", HTTP_ACCEPT="application/json")
    assert problem.status_code == 503 and int(problem["Retry-After"]) >= 1
    return page.content.decode(), problem.json()["code"]


def test_a_database_that_takes_no_writes_is_a_503_page_not_something_went_wrong(alice, monkeypatch):
    """PostgreSQL refusing writes (read_only_sql_transaction, here a real one from a read-only session behind the
    page): the page said "Something went wrong", 500, and JSON callers got 500 internal_error. It is the
    unavailable page, 503 with Retry-After, and 503 service_unavailable, as the API answers."""
    import psycopg
    from django.db import connection

    import portal.views.memory as views

    db = connection.settings_dict

    def read_only(*args, **kwargs):
        with psycopg.connect(dbname=db["NAME"], user=db["USER"], password=db["PASSWORD"] or None,
                             host=db["HOST"] or None, port=db["PORT"] or None) as conn:
            conn.execute("SET TRANSACTION READ ONLY")
            conn.execute("UPDATE idempotency_record SET response_status = response_status WHERE false")

    text, code = _unavailable_answers(alice, monkeypatch, views, read_only)
    assert "unavailable for a moment" in text and "Something went wrong" not in text
    assert code == "service_unavailable"


def test_correcting_a_preference_supersedes_it(alice, world):
    client = alice["client"]
    form = client.get(f"/me/preferences/{alice['first']}/correct/").content.decode()
    assert 'value="10:00"' in form and 'type="time"' in form and "<label" in form
    response = client.post(f"/me/preferences/{alice['first']}/correct/", {"time": "11:30"})
    assert response.status_code == 302
    page = client.get("/me/").content.decode()
    assert "not before 11:30" in page and "not before 10:00" not in page
    old = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/memories/{alice['first']}").json()
    assert old["state"] == "superseded" and old["superseded_by"]


@pytest.mark.parametrize("data, field, message", [
    ({"time": "25:99"}, "time", "use 24-hour HH:MM"),
    ({"time": ""}, "time", "This field is required."),
    ({"time": "09:00", "valid_until": "2001-01-01"}, "valid_until", "must be in the future"),
    ({"time": "09:00", "valid_until": "not a date"}, "valid_until", "Enter a valid date."),
])
def test_a_bad_correction_is_refused_next_to_its_field_and_nothing_is_saved(alice, world, data, field, message):
    before = _owner_counts(world, world.patient_a)
    response = alice["client"].post(f"/me/preferences/{alice['first']}/correct/", data)
    assert response.status_code == 422
    html = response.content.decode()
    assert "Nothing was saved" in html
    # The message sits inside the field's own block, right before its input.
    block = re.search(rf'<div class="field field-invalid">(?:(?!<div class="field).)*?name="{field}"', html, re.S)
    assert block and message in block.group(0), html
    assert _owner_counts(world, world.patient_a) == before
    assert "not before 10:00" in alice["client"].get("/me/").content.decode()


def test_deleting_one_preference_asks_first_then_shows_its_receipt(alice, world):
    """The card's Delete is a link to a page naming what will be erased (no JavaScript needed); only its own
    button, which sends confirm=yes, deletes. A post without it (an old page's one-click form) gets the same
    page and deletes nothing."""
    client = alice["client"]
    url = f"/me/preferences/{alice['first']}/delete/"
    card = client.get("/me/").content.decode()
    assert f'href="{url}"' in card and f'action="{url}"' not in card
    for asked in (client.get(url), client.post(url), client.post(url, {"confirm": "no"})):
        html = asked.content.decode()
        assert asked.status_code == 200 and "Delete this preference?" in html
        assert "appointments not before 10:00" in html and "no later than 16:00" not in html
        assert re.search(r'<form method="post" class="form">\s*<input type="hidden" name="csrfmiddlewaretoken"[^>]*>'
                         r'\s*<input type="hidden" name="confirm" value="yes">', html), html
        assert 'href="/me/"' in html  # cancel
    assert "not before 10:00" in client.get("/me/").content.decode()
    response = client.post(url, {"confirm": "yes"}, follow=True)
    html = response.content.decode()
    assert response.status_code == 200 and "Deletion receipt" in html and "Deleted: 1 record" in html
    # in the patient's words: the places and states named, times as dates, the reason said
    assert "The record itself" in html and "Erased, and checked" in html and "Your request" in html
    assert "postgres" not in html and "<td>verified</td>" not in html and not re.search(r"\d{4}-\d\d-\d\dT", html)
    listed = client.get("/me/deletions/").content.decode()
    assert "Deletion of " in listed and "1 record erased" in listed and not re.search(r"\d{4}-\d\d-\d\dT", listed)
    assert "not before 10:00" not in client.get("/me/").content.decode()
    assert "no later than 16:00" in client.get("/me/").content.decode()
    receipts = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/deletions").json()["items"]
    assert receipts[0]["deletion_id"] in html


def test_the_deletion_receipts_page_shows_every_receipt_a_page_at_a_time(alice, world):
    """The receipts page listed every receipt there ever was on one page (each rejected or lapsed suggestion makes
    one): 50 a page, newest first, an 'Older' link to the next until the last, 'Newest' back; a link the page never
    gave is 400."""
    from memory.models import Deletion

    pid = world.patient_a
    start = timezone.now() - timedelta(days=1)
    with identity_context(Identity(org_id=world.org, actor_sub=f"patient-{pid}", patient_self_id=pid)):
        Deletion.objects.bulk_create([
            Deletion(organization_id=world.org, patient_id=pid, scope="memory", requested_by=f"patient-{pid}",
                     reason_code="proposal_rejected", requested_at=start + timedelta(minutes=i),
                     completed_at=start + timedelta(minutes=i),
                     receipt={"deletion_id": str(uuid.uuid4()), "memory_ids": [str(uuid.uuid4())] * (1 + i % 2),
                              "completed_at": (start + timedelta(minutes=i)).isoformat()})
            for i in range(53)])
    client = alice["client"]
    first = client.get("/me/deletions/").content.decode()
    assert first.count("Deletion of ") == 50 and ">Newest<" not in first
    older = re.search(r'<a href="\?older=([^"]+)">Older</a>', first)
    assert older
    second = client.get(f"/me/deletions/?older={older.group(1)}").content.decode()
    assert second.count("Deletion of ") == 3 and ">Newest<" in second and ">Older<" not in second
    ids = re.findall(r"/me/deletions/([0-9a-f-]{36})/", first + second)
    assert len(set(ids)) == 53
    assert client.get("/me/deletions/", {"older": "not-a-cursor"}).status_code == 400


def test_what_assistants_were_given_is_shown_a_page_at_a_time(alice, world):
    """'Given to assistants' showed the newest 50 context packs and nothing of the older ones: 'Older given' reads
    the next 50 (the API's cursor) until the last, 'Newest given' goes back; a link the page never gave is 400."""
    from memory.models import Release, ReleaseMember

    pid = world.patient_a
    start = timezone.now() - timedelta(days=1)
    with identity_context(Identity(org_id=world.org, actor_sub=f"patient-{pid}", patient_self_id=pid)):
        releases = Release.objects.bulk_create([
            Release(organization_id=world.org, patient_id=pid, actor_sub=f"patient-{pid}", agent_client_id="helper",
                    purpose="appointment_scheduling", created_at=start + timedelta(minutes=i)) for i in range(53)])
        ReleaseMember.objects.bulk_create([
            ReleaseMember(release_id=r.release_id, memory_id=alice["first"], organization_id=world.org,
                          patient_id=pid, purpose="appointment_scheduling", score=0.5) for r in releases])
    client = alice["client"]
    given = re.compile(r"given one of your preferences for")
    first = client.get("/me/activity/").content.decode()
    older = re.search(r'<a href="\?releases=([^"#]+)#rel-h">Older given</a>', first)
    assert len(given.findall(first)) == 50 and older and "Newest given" not in first
    second = client.get(f"/me/activity/?releases={older.group(1)}").content.decode()
    assert len(given.findall(second)) == 3 and "Newest given" in second and "Older given" not in second
    assert client.get("/me/activity/", {"releases": "not-a-cursor"}).status_code == 400


def test_a_delete_sent_twice_shows_its_one_receipt_and_says_nothing_more_was_changed(alice):
    """A double click or the back button sends the delete form again: the second answer is the first deletion's
    receipt saying it had already been deleted (it was "This has changed", as if nothing had been deleted), and
    there is still one receipt."""
    client = alice["client"]
    url = f"/me/preferences/{alice['first']}/delete/"
    first = client.post(url, {"confirm": "yes"})
    again = client.post(url, {"confirm": "yes"})
    assert first.status_code == again.status_code == 302 and again["Location"] == first["Location"]
    page = client.get(again["Location"]).content.decode()
    assert "had already been deleted. Nothing more was changed." in page and "Deleted: 1 record" in page
    assert client.get("/me/deletions/").content.decode().count("Deletion of ") == 1
    assert client.get(url).status_code == 409  # a link to it, later: it is gone


def test_deleting_everything_needs_confirmation_and_shows_the_receipt(alice):
    client = alice["client"]
    refused = client.post("/me/preferences/delete-all/", {})
    assert refused.status_code == 422 and "Tick the box" in refused.content.decode()
    assert "not before 10:00" in client.get("/me/").content.decode()
    done = client.post("/me/preferences/delete-all/", {"confirm": "yes"}, follow=True).content.decode()
    assert "Deleted: 2 records" in done
    assert "We keep no preferences" in client.get("/me/").content.decode()


def test_deleting_everything_sent_twice_gives_one_receipt_and_says_so(alice):
    """The back button or a double click sends "Delete everything" again: the answer is the first erasure's
    receipt saying nothing more was changed, not a second receipt of 0 records. A later request from a page shown
    after it is a request of its own."""
    client = alice["client"]
    form = client.get("/me/preferences/delete-all/").content.decode()
    shown_at = re.search(r'name="shown_at" value="([^"]+)"', form).group(1)
    sent = {"confirm": "yes", "shown_at": shown_at}
    first = client.post("/me/preferences/delete-all/", sent)
    again = client.post("/me/preferences/delete-all/", sent)
    assert first.status_code == again.status_code == 302 and again["Location"] == first["Location"]
    page = client.get(again["Location"]).content.decode()
    assert "Everything had already been deleted" in page and "Deleted: 2 records" in page
    assert client.get("/me/deletions/").content.decode().count("Deletion of ") == 1
    later = re.search(r'name="shown_at" value="([^"]+)"',
                      client.get("/me/preferences/delete-all/").content.decode()).group(1)
    anew = client.post("/me/preferences/delete-all/", {"confirm": "yes", "shown_at": later})
    assert anew.status_code == 302 and anew["Location"] != first["Location"]
    assert client.get("/me/deletions/").content.decode().count("Deletion of ") == 2
    for odd in ("", "yesterday", "2026-13-45T00:00:00", "2026-01-01T00:00:00"):  # missing, malformed, naive
        assert client.post("/me/preferences/delete-all/", {"confirm": "yes", "shown_at": odd}).status_code == 302


def test_revoking_a_consent_stops_the_use_of_what_depends_on_it(alice):
    client = alice["client"]
    page = client.get("/me/consents/").content.decode()
    assert "Appointment scheduling" in page and "Given" in page
    response = client.post(f"/me/consents/{alice['consent']}/revoke/", {"confirm": "yes"},
                           follow=True).content.decode()
    assert "Consent withdrawn" in response and "Withdrawn" in response
    assert "We keep no preferences" in client.get("/me/").content.decode()


def test_who_used_my_information_in_plain_language(alice, world):
    nurse = "nurse-" + uuid.uuid4().hex[:6]
    world.grant(world.patient_a, nurse, "appointment_scheduling")
    world.staff(nurse).get(f"/v1/patients/{world.patient_a}/memories")
    page = alice["client"].get("/me/activity/").content.decode()
    assert f"Staff member or assistant “{nurse}”" in page
    assert "looked at your preferences" in page
    assert "gave a staff member access to your information" in page
    assert "recorded your consent" in page and "Appointment scheduling" in page


def test_each_deletion_receipt_listed_says_why_it_was_made(alice, world):
    """The receipts page listed each receipt as "Deletion of <time>", nothing else: a patient could not tell their
    own deletion from a suggestion they turned down (or one that lapsed), and two in one minute were two links
    reading alike. Each says why, as its receipt does, inside its link."""
    [drop] = _agent_proposes(world, alice, {"kind": "language", "language": "pl"})
    client = alice["client"]
    assert client.post(f"/me/proposals/{drop}/reject/").status_code == 302
    assert client.post(f"/me/preferences/{alice['first']}/delete/", {"confirm": "yes"}).status_code == 302
    listed = re.findall(r'<a href="/me/deletions/[^"]+/">(.*?)</a>', client.get("/me/deletions/").content.decode())
    assert len(listed) == 2
    assert listed[0].endswith(": your request") and listed[1].endswith(": you turned down a suggestion"), listed


def _agent_proposes(world, alice, *facts: dict) -> list:
    """An agent holding a grant proposes each of ``facts`` (communication preferences) for Alice: their ids."""
    agent = Identity(org_id=world.org, actor_sub="agent-x", actor_kind=ACTOR_STAFF,
                     scopes=frozenset({"memory:write"}))
    world.grant(world.patient_a, "agent-x", "appointment_scheduling")
    with identity_context(agent):
        return [memory_propose(identity=agent, patient_id=world.patient_a, memory_type="communication_preference",
                               fact=fact, consent_purpose="appointment_scheduling",
                               consent_record_id=alice["consent"], source_ref=f"turn:{n}")[0].memory_id
                for n, fact in enumerate(facts, 1)]


def test_proposals_wait_for_the_patient_to_confirm_or_reject(alice, world):
    keep, drop = _agent_proposes(world, alice, {"kind": "channel", "channel": "sms"},
                                 {"kind": "language", "language": "pl"})
    client = alice["client"]
    page = client.get("/me/").content.decode()
    assert "Waiting for you to confirm" in page and "contact by text message" in page and "language Polish" in page
    client.post(f"/me/proposals/{keep}/confirm/")
    client.post(f"/me/proposals/{drop}/reject/")
    page = client.get("/me/").content.decode()
    assert "Waiting for you to confirm" not in page
    assert "contact by text message" in page and "language Polish" not in page
    # a second submit of the same form (another window, a double click) changes nothing and says so, in words
    # about what was done: not "This has changed" (as if it had not been confirmed) nor "Page not found"
    again = client.post(f"/me/proposals/{keep}/confirm/", follow=True)
    html = again.content.decode()
    assert again.status_code == 200 and "had already been confirmed. Nothing more was changed." in html
    assert "contact by text message" in html
    again = client.post(f"/me/proposals/{drop}/reject/", follow=True)
    html = again.content.decode()
    assert again.status_code == 200 and "had already been rejected and erased. Nothing more was changed." in html
    assert "language Polish" not in html
    # a proposal's forms for one that was never the patient's stay "not found"
    assert client.post(f"/me/proposals/{uuid.uuid4()}/reject/").status_code == 404
    assert client.post(f"/me/proposals/{uuid.uuid4()}/confirm/").status_code == 404


def test_confirming_a_suggestion_erased_with_a_value_the_patient_deleted_says_so(alice, world):
    """The patient deletes a preference; the suggestion waiting with the same value is erased with it. Its confirm
    button, sent from a page opened before, said "Page not found"; it now says the suggestion went with the value."""
    api = world.patient(world.patient_a)
    body = {"memory_type": "communication_preference", "fact": {"kind": "channel", "channel": "sms"},
            "consent_purpose": "appointment_scheduling", "consent_record_id": alice["consent"]}
    stated = api.post(f"/v1/patients/{world.patient_a}/memories", body).json()["memory_id"]
    agent = Api(world.token(sub="agent-x", act="agent-x"))
    world.grant(world.patient_a, "agent-x", "appointment_scheduling")
    proposal = agent.post(f"/v1/patients/{world.patient_a}/memories/proposals", {**body, "source_ref": "turn:1"})
    assert proposal.status_code == 201, proposal.content
    receipt = api.request("DELETE", f"/v1/patients/{world.patient_a}/memories/{stated}").json()
    assert proposal.json()["memory_id"] in receipt["memory_ids"]
    answer = alice["client"].post(f"/me/proposals/{proposal.json()['memory_id']}/confirm/", follow=True)
    assert answer.status_code == 200
    assert "This suggestion was erased with a value you deleted. Nothing was confirmed." in answer.content.decode()


def test_a_suggestion_made_before_the_preference_changed_is_shown_as_such_without_confirm(alice, world):
    """The page offered Confirm on a suggestion the patient had since overtaken by changing the preference, only
    to refuse it once pressed. It says on the page that it can no longer be confirmed and offers Reject alone; a
    suggestion still waiting keeps both. A suggestion that lapsed unreviewed, confirmed from a page shown before,
    says so in words, and nothing changes."""
    api = world.patient(world.patient_a)
    body = {"memory_type": "communication_preference", "fact": {"kind": "channel", "channel": "sms"},
            "consent_purpose": "appointment_scheduling", "consent_record_id": alice["consent"]}
    agent = Api(world.token(sub="agent-x", act="agent-x"))
    world.grant(world.patient_a, "agent-x", "appointment_scheduling")
    proposals = f"/v1/patients/{world.patient_a}/memories/proposals"
    overtaken = agent.post(proposals, {**body, "source_ref": "turn:1"}).json()["memory_id"]
    assert api.post(f"/v1/patients/{world.patient_a}/memories", {
        **body, "fact": {"kind": "channel", "channel": "email"}}).status_code == 201
    waiting = agent.post(proposals, {**body, "fact": {"kind": "language", "language": "pl"},
                                     "source_ref": "turn:2"}).json()["memory_id"]
    html = alice["client"].get("/me/").content.decode()
    assert html.count("can no longer be confirmed") == 1
    assert f"/me/proposals/{overtaken}/confirm/" not in html and f"/me/proposals/{overtaken}/reject/" in html
    assert f"/me/proposals/{waiting}/confirm/" in html and f"/me/proposals/{waiting}/reject/" in html
    lapses_on = (timezone.localtime() + timedelta(days=30)).strftime("%-d %b %Y")
    assert html.count("this suggestion lapses on <time") == 1 and lapses_on in html, lapses_on

    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)
    with identity_context(me), connection.cursor() as cur:  # the clock moves past the suggestion's lapse
        cur.execute("UPDATE patient_memory SET created_at = created_at - interval '31 days', valid_from = "
                    "valid_from - interval '31 days', expires_at = now() - interval '1 day' WHERE memory_id = %s",
                    [waiting])
    answer = alice["client"].post(f"/me/proposals/{waiting}/confirm/", follow=True)
    html = answer.content.decode()
    assert answer.status_code == 200 and "waited too long and lapsed" in html, html
    assert api.get(f"/v1/patients/{world.patient_a}/memories/{waiting}").json()["state"] == "expired"


def test_confirming_a_suggestion_made_before_the_preference_changed_says_why_nothing_changed(alice, world):
    """A suggestion made before the patient changed that preference is not confirmed (it would overwrite the newer
    value): the page says why, in words, instead of an error page, and the newer value stays."""
    api = world.patient(world.patient_a)
    body = {"memory_type": "communication_preference", "fact": {"kind": "channel", "channel": "sms"},
            "consent_purpose": "appointment_scheduling", "consent_record_id": alice["consent"]}
    agent = Api(world.token(sub="agent-x", act="agent-x"))
    world.grant(world.patient_a, "agent-x", "appointment_scheduling")
    proposal = agent.post(f"/v1/patients/{world.patient_a}/memories/proposals", {**body, "source_ref": "turn:1"})
    assert proposal.status_code == 201, proposal.content
    assert api.post(f"/v1/patients/{world.patient_a}/memories", {
        **body, "fact": {"kind": "channel", "channel": "email"}}).status_code == 201
    answer = alice["client"].post(f"/me/proposals/{proposal.json()['memory_id']}/confirm/", follow=True)
    html = answer.content.decode()
    assert answer.status_code == 200 and "made before your preference last changed" in html, html
    assert "contact by email" in html


def test_a_preference_the_patient_confirmed_from_a_proposal_has_a_delete_on_its_card(alice, world):
    """An organisation's type that staff record and agents propose: the patient confirms it, so it is theirs to
    delete (not to correct). Its card said "Recorded by your care team; ask them to change it", with no Delete."""
    from tests.test_rights_erasure import PARKING

    assert world.staff("type-admin", scope="memory_type:write memory:read").post(
        "/v1/memory-types", PARKING).status_code == 201
    agent = Identity(org_id=world.org, actor_sub="agent-x", actor_kind=ACTOR_STAFF, scopes=frozenset({"memory:write"}))
    world.grant(world.patient_a, "agent-x", "appointment_scheduling")
    with identity_context(agent):
        proposed = memory_propose(identity=agent, patient_id=world.patient_a, memory_type="parking_pref",
                                  fact={"spot": "drop_off"}, consent_purpose="appointment_scheduling",
                                  consent_record_id=alice["consent"], source_ref="turn:1")[0].memory_id
    client = alice["client"]
    client.post(f"/me/proposals/{proposed}/confirm/")
    page = client.get("/me/").content.decode()
    card = page[page.index(f'data-memory-id="{proposed}"'):]
    card = card[:card.index("</li>")]
    assert "Parking: drop off" in card, card
    assert f'href="/me/preferences/{proposed}/delete/"' in card and "/correct/" not in card, card
    response = client.post(f"/me/preferences/{proposed}/delete/", {"confirm": "yes"}, follow=True)
    assert response.status_code == 200 and "Deleted: 1 record" in response.content.decode()


def test_forms_without_the_csrf_token_are_refused(world, people, dev_idp):
    from tests.portal.conftest import login

    consent = world.consent(world.patient_a)
    memory_id = _memory(world, world.patient_a, consent)
    client = Client(enforce_csrf_checks=True)
    login(client, dev_idp, people.patient(world.patient_a))
    assert client.post(f"/me/preferences/{memory_id}/delete/").status_code == 403
    assert "not before 10:00" in client.get("/me/").content.decode()


# --- staff ------------------------------------------------------------------------------------------------------
@pytest.fixture
def nurse(world, people, signed_in):
    sub = people.staff("nurse")
    world.grant(world.patient_a, sub, "appointment_scheduling")
    return {"sub": sub, "client": signed_in(sub)}


def test_a_nurse_sees_only_the_patients_she_holds_grants_for(world, nurse):
    consent = world.consent(world.patient_a)
    _memory(world, world.patient_a, consent)
    page = nurse["client"].get("/staff/").content.decode()
    assert str(world.patient_a) in page and str(world.patient_b) not in page
    detail = nurse["client"].get(f"/staff/patients/{world.patient_a}/").content.decode()
    assert "not before 10:00" in detail and "Appointment scheduling" in detail
    # her one grant is the purpose of her read, in the patient's history
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        reads = AuditEvent.objects.filter(organization_id=world.org, action="memory.list",
                                          actor_sub=nurse["sub"]).values_list("purpose", flat=True)
        assert set(reads) == {"appointment_scheduling"}
    # staff pages speak to staff, not in the patient's voice
    assert "Until the patient or their care team change it" in detail and "Until you change it" not in detail
    assert "purposes you agreed to" not in detail and "purposes you hold a grant for" in detail


def test_the_nurse_sees_what_conversations_flagged_for_the_care_team(world, nurse):
    patient = world.patient(world.patient_a)
    sid = patient.post("/v1/sessions", {"patient_id": str(world.patient_a),
                                        "purpose": "appointment_scheduling"}).json()["session"]["session_id"]
    assert patient.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "I have crushing chest pain right "
                                                                                  "now"}).status_code == 201
    detail = nurse["client"].get(f"/staff/patients/{world.patient_a}/").content.decode()
    assert "Flagged for the care team" in detail and "Urgent:" in detail
    assert "chest pain" not in detail  # what kind of remark, never what was said


def test_a_correction_form_shows_the_keep_until_day_that_was_chosen_in_the_pages_zone(alice, world, settings):
    """The form was filled with the UTC date of the end of the chosen day: west of UTC that is the next day, so
    each correction saved from the form kept the preference one day longer than the patient chose."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    settings.PORTAL_TIME_ZONE = "America/Sao_Paulo"
    client, api = alice["client"], world.patient(world.patient_a)
    until = datetime.now(ZoneInfo(settings.PORTAL_TIME_ZONE)).date() + timedelta(days=30)
    assert client.post(f"/me/preferences/{alice['first']}/correct/",
                       {"time": "11:30", "valid_until": until.isoformat()}).status_code == 302
    newest = [m for m in api.get(f"/v1/patients/{world.patient_a}/memories").json()["items"]
              if m["fact"].get("time") == "11:30"][0]
    form = client.get(f"/me/preferences/{newest['memory_id']}/correct/").content.decode()
    assert f'name="valid_until" value="{until.isoformat()}"' in form


def test_a_flags_time_is_shown_in_the_pages_zone_and_named_as_every_other_time(world, nurse, settings):
    """A flag's time was the stored UTC text cut to the minute, unnamed, beside times shown in the page's zone."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    settings.PORTAL_TIME_ZONE = "Asia/Tokyo"
    patient = world.patient(world.patient_a)
    sid = patient.post("/v1/sessions", {"patient_id": str(world.patient_a),
                                        "purpose": "appointment_scheduling"}).json()["session"]["session_id"]
    assert patient.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "I have crushing chest pain right "
                                                                                  "now"}).status_code == 201
    flags = world.staff(nurse["sub"]).get(f"/v1/patients/{world.patient_a}/care-team-flags").json()["items"]
    flagged = datetime.fromisoformat(flags[0]["flagged_at"].replace("Z", "+00:00")).astimezone(ZoneInfo("Asia/Tokyo"))
    detail = nurse["client"].get(f"/staff/patients/{world.patient_a}/").content.decode()
    assert f"{flagged:%-d %b %Y, %H:%M} JST" in detail


def test_another_patients_page_looks_exactly_like_a_missing_one_and_is_audited(world, nurse):
    consent_b = world.consent(world.patient_b)
    _memory(world, world.patient_b, consent_b, time="07:15")
    other = nurse["client"].get(f"/staff/patients/{world.patient_b}/")
    missing = nurse["client"].get(f"/staff/patients/{uuid.uuid4()}/")
    assert other.status_code == missing.status_code == 404
    masked = re.compile(rb'name="csrfmiddlewaretoken" value="[^"]+"')
    assert masked.sub(b"", other.content) == masked.sub(b"", missing.content)
    assert "07:15" not in other.content.decode()
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        assert AuditEvent.objects.filter(actor_sub=nurse["sub"], patient_id=world.patient_b,
                                         outcome="denied").exists()


def test_staff_record_consent_with_evidence_and_bad_input_saves_nothing(world, nurse):
    client = nurse["client"]
    url = f"/staff/patients/{world.patient_a}/consents/new/"
    bad = client.post(url, {"purpose": "appointment_scheduling", "evidence_ref": " "})
    assert bad.status_code == 422 and "This field is required." in bad.content.decode()
    wrong_purpose = client.post(url, {"purpose": "care_coordination", "evidence_ref": "form-17"})
    assert wrong_purpose.status_code == 422 and "Select a valid choice" in wrong_purpose.content.decode()
    past = client.post(url, {"purpose": "appointment_scheduling", "evidence_ref": "form-17",
                             "expires_at": "2001-01-01"})
    assert past.status_code == 422 and "Must be a date in the future." in past.content.decode()
    admin = Identity(org_id=world.org, actor_sub="x", patient_self_id=world.patient_a)
    with identity_context(admin):
        assert not ConsentRecord.objects.filter(patient_id=world.patient_a).exists()
    ok = client.post(url, {"purpose": "appointment_scheduling", "evidence_ref": "signed-form-17"}, follow=True)
    assert "Consent recorded." in ok.content.decode() and "signed-form-17" in ok.content.decode()


def test_my_patients_shows_a_page_of_patients_by_name_and_audits_only_those_shown(world, people, signed_in,
                                                                                   monkeypatch):
    """My patients listed (and read, one audit row each) every patient the staff member holds a grant for on one
    page, however many. It shows a page at a time by name, the unnamed last, each page audited for the patients it
    shows; 'Next patients' reads on (keeping the search), 'First patients' goes back; a link it never gave is 400."""
    from portal.views import consent as views
    from tests.portal.test_portal_open_model import register

    monkeypatch.setattr(views, "PATIENTS_PAGE", 2, raising=False)
    sub = people.staff("nurse")
    unnamed = uuid.uuid4()
    register(world, world.patient_a, "Zofia Zielinska", "1970-01-01", "MRN-Z")
    register(world, world.patient_b, "Adam Abacki", "1971-01-01", "MRN-A")
    for patient in (world.patient_a, world.patient_b):
        world.grant(patient, sub, "appointment_scheduling")
    grant_outside_directory(world.org, unnamed, sub, "appointment_scheduling")  # its patient has no name
    client = signed_in(sub)
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        before = AuditEvent.objects.filter(actor_sub=sub, action="patient.list").count()
    first = client.get("/staff/", {"q": "zz"}).content.decode()
    with identity_context(auditor):
        assert AuditEvent.objects.filter(actor_sub=sub, action="patient.list").count() == before + 2
    assert first.index("Adam Abacki") < first.index("Zofia Zielinska") and "Unnamed patient" not in first
    more = re.search(r'<a href="\?([^"]+)">Next patients</a>', first)
    assert more and "q=zz" in more.group(1)
    second = client.get(f"/staff/?{more.group(1).replace('&amp;', '&')}").content.decode()
    assert "Unnamed patient" in second and "Zofia Zielinska" not in second and "Next patients" not in second
    assert '<a href="?q=zz">First patients</a>' in second
    assert client.get("/staff/", {"patients": "not-a-cursor"}).status_code == 400


def test_the_staff_patient_page_says_until_when_each_consent_holds(world, nurse):
    """The patient page's consents said only when each was given: a consent recorded to expire read like one in
    force for good, and a withdrawn one gave no date. Each row says until when it holds (its expiry, or until
    withdrawn) and when it was withdrawn."""
    client = nurse["client"]
    assert client.post(f"/staff/patients/{world.patient_a}/consents/new/", {
        "purpose": "appointment_scheduling", "evidence_ref": "signed-form-18",
        "expires_at": "2099-03-04"}).status_code == 302
    page = client.get(f"/staff/patients/{world.patient_a}/").content.decode()
    assert '<th scope="col">Until</th>' in page and "<td>4 Mar 2099</td>" in page
    api = world.patient(world.patient_a)
    consent_id = api.get(f"/v1/patients/{world.patient_a}/consents").json()["items"][0]["consent_record_id"]
    assert api.post(f"/v1/patients/{world.patient_a}/consents/{consent_id}/revoke").status_code == 200
    assert world.consent(world.patient_a)
    rows = re.findall(r"<tr><td>Appointment scheduling</td>.*?</tr>",
                      client.get(f"/staff/patients/{world.patient_a}/").content.decode())
    assert len(rows) == 2 and "<td>Until withdrawn</td>" in rows[0] and "<td>Withdrawn " in rows[1]


def test_staff_quarantine_a_memory_with_a_reason(world, nurse):
    consent = world.consent(world.patient_a)
    memory_id = _memory(world, world.patient_a, consent)
    url = f"/staff/patients/{world.patient_a}/memories/{memory_id}/quarantine/"
    bad = nurse["client"].post(url, {"reason_code": "Bad Reason!"})
    assert bad.status_code == 422 and "lower-case letters" in bad.content.decode()
    ok = nurse["client"].post(url, {"reason_code": "doubtful_source"}, follow=True).content.decode()
    assert "Quarantined" in ok
    memory = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/memories/{memory_id}").json()
    assert memory["state"] == MemoryState.QUARANTINED
    # sent again (a double click, another window): it says so, where it said "it changed meanwhile" (422)
    again = nurse["client"].post(url, {"reason_code": "doubtful_source"}, follow=True)
    html = again.content.decode()
    assert again.status_code == 200 and "This memory had already been quarantined. Nothing more was changed." in html


def test_staff_quarantine_the_newer_value_and_release_it_from_the_patient_page(world, nurse):
    """Quarantining the current value brings back the one it replaced (the patient's list is not left empty); the
    staff page offers to release it, which makes it current again; a second release says nothing changed."""
    consent = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    memories = f"/v1/patients/{world.patient_a}/memories"
    older = _memory(world, world.patient_a, consent)
    newer = api.post(f"{memories}/{older}/correct", {"fact": {"kind": "earliest_time", "time": "11:15"}}).json()
    page = f"/staff/patients/{world.patient_a}/"
    nurse["client"].post(f"{page}memories/{newer['memory_id']}/quarantine/", {"reason_code": "doubtful_source"})
    assert [i["memory_id"] for i in api.get(memories).json()["items"]] == [older]
    release = f"{page}memories/{newer['memory_id']}/release/"
    assert release in nurse["client"].get(page).content.decode()
    done = nurse["client"].post(release, follow=True)
    assert done.status_code == 200 and "Released: it is the current value again." in done.content.decode()
    assert [i["memory_id"] for i in api.get(memories).json()["items"]] == [newer["memory_id"]]
    again = nurse["client"].post(release, follow=True).content.decode()
    assert "This memory is no longer quarantined. Nothing more was changed." in again


def test_staff_review_suggestions_from_the_patient_page(world, nurse, people, signed_in):
    """The staff console could not review suggestions (only the patient's portal could): the patient page now lists
    those waiting for review for the purpose it reads for, and a nurse holding a grant confirms or rejects each
    through the API's services (audited under her name, as the API's: memory.confirm, and memory.delete for the
    rejection, proposal_rejected); a second submit says it was
    done; a nurse without a grant for the patient gets the page's 'not found', and nothing changes."""
    consent = world.consent(world.patient_a)
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                     scope=PATIENT_SCOPES, act="booking-agent"))
    memories = f"/v1/patients/{world.patient_a}/memories"
    proposed = [agent.post(memories, {"memory_type": "communication_preference", "fact": fact,
                                      "consent_purpose": "appointment_scheduling",
                                      "consent_record_id": consent}).json()
                for fact in ({"kind": "channel", "channel": "sms"},
                             {"kind": "language", "language": "pl"})]
    assert all("memory_id" in p for p in proposed), proposed
    keep, drop = [p["memory_id"] for p in proposed]
    page = f"/staff/patients/{world.patient_a}/"
    html = nurse["client"].get(page).content.decode()
    assert "Waiting for review" in html and "contact by text message" in html and "language Polish" in html
    outsider = signed_in(people.staff("other-nurse"))
    assert outsider.post(f"{page}memories/{keep}/confirm/").status_code == 404
    assert outsider.post(f"{page}memories/{drop}/reject/").status_code == 404
    done = nurse["client"].post(f"{page}memories/{keep}/confirm/", follow=True)
    assert done.status_code == 200 and "Confirmed. It is now the value on record." in done.content.decode()
    done = nurse["client"].post(f"{page}memories/{drop}/reject/", follow=True)
    html = done.content.decode()
    assert done.status_code == 200 and "Rejected. The suggestion has been erased." in html
    assert "Waiting for review" not in html and "language Polish" not in html
    items = world.patient(world.patient_a).get(memories).json()["items"]
    assert [(i["memory_id"], i["state"]) for i in items] == [(keep, "active")]
    again = nurse["client"].post(f"{page}memories/{keep}/confirm/", follow=True).content.decode()
    assert "This suggestion had already been confirmed. Nothing more was changed." in again
    again = nurse["client"].post(f"{page}memories/{drop}/reject/", follow=True).content.decode()
    assert "This suggestion had already been rejected and erased. Nothing more was changed." in again
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        done = set(AuditEvent.objects.filter(organization_id=world.org, outcome="success",
                                             action__in=["memory.confirm", "memory.delete"])
                   .values_list("action", "actor_sub", "resource_id", "reason"))
    assert done == {("memory.confirm", nurse["sub"], keep, None),
                    ("memory.delete", nurse["sub"], drop, "proposal_rejected")}


def test_staff_correct_a_memory(world, nurse):
    consent = world.consent(world.patient_a)
    memory_id = _memory(world, world.patient_a, consent)
    url = f"/staff/patients/{world.patient_a}/memories/{memory_id}/correct/"
    assert nurse["client"].post(url, {"time": "9am"}).status_code == 422
    assert nurse["client"].post(url, {"time": "09:30"}).status_code == 302
    items = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/memories").json()["items"]
    assert [i["fact"]["time"] for i in items] == ["09:30"] and items[0]["source"] == "staff_entered"
    # the old page's form again (another value): what was typed comes back, for the value now current
    stale = nurse["client"].post(url, {"time": "10:45"})
    html = stale.content.decode()
    assert stale.status_code == 409 and 'value="10:45"' in html
    action = re.search(r'class="form" action="([^"]+)"', html).group(1)
    assert action == f"/staff/patients/{world.patient_a}/memories/{items[0]['memory_id']}/correct/"


def test_the_staff_pages_that_act_on_a_patient_name_the_patient(world, nurse):
    """Correcting or quarantining a memory and recording a consent named no patient: from a tab left open, staff
    could act on the wrong one. Each names the patient as the patient's page does (no more reads in their
    history: the page's own read is the one recorded)."""
    in_directory(world.org, world.patient_a, "Ada Quill")  # the nurse's grant registered her under a placeholder
    consent = world.consent(world.patient_a)
    memory_id = _memory(world, world.patient_a, consent)
    base = f"/staff/patients/{world.patient_a}"
    for path in (f"{base}/memories/{memory_id}/correct/", f"{base}/memories/{memory_id}/quarantine/",
                 f"{base}/consents/new/"):
        page = nurse["client"].get(path).content.decode()
        assert 'Patient: <strong>Ada Quill</strong>' in page, path
    refused = nurse["client"].post(f"{base}/memories/{memory_id}/quarantine/", {"reason_code": "?"})
    assert refused.status_code == 422 and "Ada Quill" in refused.content.decode()


def test_an_administrator_grants_and_revokes_access_with_a_reason(world, people, signed_in):
    admin = signed_in(people.admin())
    nurse_sub = people.staff("newnurse")
    nurse = signed_in(nurse_sub)
    assert str(world.patient_b) not in nurse.get("/staff/").content.decode()
    bad = admin.post("/staff/access/", {"actor_sub": nurse_sub, "patient_id": "not-a-uuid",
                                        "purpose": "appointment_scheduling", "reason": ""})
    html = bad.content.decode()
    assert bad.status_code == 422 and "Enter a valid patient id" in html and "This field is required." in html
    assert not AccessGrant.objects.filter(actor_sub=nurse_sub).exists()
    # a patient id the organisation's directory does not hold (a forged choice) is refused beside the field
    form = {"actor_sub": nurse_sub, "patient_id": str(world.patient_b), "purpose": "appointment_scheduling",
            "reason": "covering the clinic"}
    unknown = admin.post("/staff/access/", form)
    assert unknown.status_code == 422 and "is in your organisation&#x27;s directory" in unknown.content.decode()
    assert not AccessGrant.objects.filter(actor_sub=nurse_sub).exists()
    in_directory(world.org, world.patient_b)
    ok = admin.post("/staff/access/", form, follow=True)
    assert "Access granted." in ok.content.decode() and "covering the clinic" in ok.content.decode()
    assert str(world.patient_b) in nurse.get("/staff/").content.decode()
    assert nurse.get(f"/staff/patients/{world.patient_b}/").status_code == 200
    grant_id = re.search(r'data-grant-id="([0-9a-f-]{36})"', ok.content.decode()).group(1)
    no_reason = admin.post(f"/staff/access/{grant_id}/revoke/", {"reason": ""})
    assert no_reason.status_code == 422 and "This field is required." in no_reason.content.decode()
    assert nurse.get(f"/staff/patients/{world.patient_b}/").status_code == 200
    ended = admin.post(f"/staff/access/{grant_id}/revoke/", {"reason": "cover ended"}, follow=True)
    assert "Access ended." in ended.content.decode()
    assert nurse.get(f"/staff/patients/{world.patient_b}/").status_code == 404
    assert str(world.patient_b) not in nurse.get("/staff/").content.decode()
    # sent again (a double click, another window): it says the access had already ended, and the reason given
    # the second time is not kept (it said "Access ended." as if this had ended it)
    again = admin.post(f"/staff/access/{grant_id}/revoke/", {"reason": "second thoughts"}, follow=True)
    html = again.content.decode()
    assert "This access had already ended on " in html and "Nothing was changed." in html
    assert "Access ended." not in html and "second thoughts" not in html


def test_the_access_page_shows_every_grant_a_page_at_a_time(world, people, signed_in):
    """The administrators' Access page showed the newest 500 grants and no way to the older ones, which could then
    not be seen or ended from the console: 100 a page, newest first, 'Older grants' to the next until the last,
    'Newest grants' back, the searches kept; a link the page never gave is 400."""
    made = {world.grant(world.patient_a, f"locum-{i:03d}", "appointment_scheduling")["grant_id"] for i in range(105)}
    admin = signed_in(people.admin())
    first = admin.get("/staff/access/", {"staff_q": "locum"}).content.decode()
    older = re.search(r'<a href="\?([^"#]+)#list-h">Older grants</a>', first)
    assert older and "Newest grants" not in first
    query = older.group(1).replace("&amp;", "&")
    assert "staff_q=locum" in query
    second = admin.get(f"/staff/access/?{query}").content.decode()
    assert "Newest grants" in second and "Older grants" not in second
    pages = [re.findall(r'data-grant-id="([0-9a-f-]{36})"', page) for page in (first, second)]
    assert len(pages[0]) == 100 and set(pages[0] + pages[1]) >= made and not set(pages[0]) & set(pages[1])
    assert admin.get("/staff/access/", {"older": "not-a-cursor"}).status_code == 400


def test_a_revocation_asked_again_names_the_grant_past_the_newest_500(world, people, signed_in):
    """A revocation sent without its reason came back naming the grant only when it was among the organisation's
    newest 500 grants (the list it was looked up in): it is looked up by its id."""
    oldest = world.grant(world.patient_a, "locum-oldest", "appointment_scheduling")["grant_id"]
    with identity_context(Identity(org_id=world.org, actor_sub="admin-1", scopes=frozenset({"grant:write"}))):
        AccessGrant.objects.bulk_create([
            AccessGrant(organization_id=world.org, patient_id=world.patient_a, actor_sub=f"locum-{i:03d}",
                        purpose="appointment_scheduling", granted_by="admin-1") for i in range(500)])
    again = signed_in(people.admin()).post(f"/staff/access/{oldest}/revoke/", {"reason": ""})
    assert again.status_code == 422 and "<strong>locum-oldest</strong>" in again.content.decode()


def test_a_revocation_reason_that_does_not_fit_beside_the_grants_is_asked_again(world, people, signed_in):
    """The console's revocation with a reason the grant cannot keep whole beside its own is shown the form again
    (422) and ends nothing, as the API's; it is never kept cut off."""
    admin = signed_in(people.admin())
    nurse_sub = people.staff("newnurse")
    in_directory(world.org, world.patient_b)
    ok = admin.post("/staff/access/", {"actor_sub": nurse_sub, "patient_id": str(world.patient_b),
                                       "purpose": "appointment_scheduling", "reason": "g" * 300}, follow=True)
    grant_id = re.search(r'data-grant-id="([0-9a-f-]{36})"', ok.content.decode()).group(1)
    refused = admin.post(f"/staff/access/{grant_id}/revoke/", {"reason": "r" * 200})
    assert refused.status_code == 422 and "beside the grant" in refused.content.decode()
    [grant] = world.admin().get("/v1/grants", {"patient_id": str(world.patient_b)}).json()["items"]
    assert grant["revoked_at"] is None and grant["reason"] == "g" * 300
    admin.post(f"/staff/access/{grant_id}/revoke/", {"reason": "cover ended"})
    [grant] = world.admin().get("/v1/grants", {"patient_id": str(world.patient_b)}).json()["items"]
    assert grant["revoked_at"] and grant["reason"] == "g" * 300 + " | revoked: cover ended"


def test_a_nurse_cannot_grant_access(nurse):
    assert nurse["client"].get("/staff/access/").status_code == 403


def test_the_workflow_monitor_charts_steps_and_lists_reconciliation(world, nurse):
    for _ in range(2):
        r = world.patient(world.patient_a).post("/v1/workflows", {"workflow_type": "appointment_booking",
                                                                  "patient_id": str(world.patient_a)})
        assert r.status_code == 201, r.content
    page = nurse["client"].get("/staff/workflows/").content.decode()
    assert "<svg" in page and "collect preferences" in page and "2 workflows you may see" in page
    assert "Needing reconciliation" in page


def test_a_patient_downloads_a_copy_of_everything_as_json_and_fhir(alice, world):
    page = alice["client"].get("/me/")
    assert b'href="/me/export/"' in page.content and b'href="/me/export/?format=fhir"' in page.content
    r = alice["client"].get("/me/export/")
    assert r.status_code == 200 and r.streaming and r["Content-Disposition"] == 'attachment; filename="my-data.json"'
    fhir = alice["client"].get("/me/export/?format=fhir")
    assert fhir["Content-Disposition"] == 'attachment; filename="my-data.fhir.json"'
    b"".join(fhir.streaming_content)
    import json

    body = json.loads(b"".join(r.streaming_content))
    assert body["patient"]["patient_id"] == str(world.patient_a)
    assert {m["memory_id"] for m in body["memories"]} == {alice["first"], alice["second"]}
    bundle = json.loads(b"".join(alice["client"].get("/me/export/?format=fhir").streaming_content))
    assert bundle["resourceType"] == "Bundle" and any(
        e["resource"]["resourceType"] == "Basic" for e in bundle["entry"])
    for query in ("format=xml", "format=", "format=json&format=fhir", "format=%00"):  # a clear page, not "not found"
        refused = alice["client"].get(f"/me/export/?{query}")
        assert refused.status_code == 400 and "This download is not offered" in refused.content.decode(), query
        assert "Content-Disposition" not in refused and "no-store" in refused["Cache-Control"]
    activity = alice["client"].get("/me/activity/").content.decode()
    assert "downloaded a copy of everything held about you" in activity


def test_staff_have_no_patient_download_button(world, people, signed_in):
    client = signed_in(people.staff())
    assert client.get("/me/export/").status_code == 403


def test_who_used_my_information_pages_back_to_the_oldest_event(alice, world):
    """The activity page shows the newest events and links to older ones, down to the first; a link it did not
    give is a clear error page, not an empty history."""
    client = alice["client"]
    for _ in range(4):  # each view of the page is itself in the history: more than one page of 200 in the end
        world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/memories")
    staff = Identity(org_id=world.org, actor_sub="nurse-old", scopes=frozenset({"audit:read"}))
    with identity_context(staff):
        AuditEvent.objects.bulk_create(AuditEvent(
            organization_id=world.org, patient_id=world.patient_a, actor_sub="nurse-old", actor_kind="staff",
            action="memory.list", resource_type="memory", outcome="success", correlation_id=f"old-{i}",
            purpose="appointment_scheduling") for i in range(210))
    first = client.get("/me/activity/").content.decode()
    older = re.search(r'href="\?older=([^"]+)"', first)
    assert older, "a full first page links to older events"
    second = client.get(f"/me/activity/?older={older.group(1)}").content.decode()
    assert "recorded your consent" in second and "recorded your consent" not in first  # the oldest event
    assert 'href="?older=' not in second and 'href="?">Newest' in second
    assert client.get("/me/activity/?older=not-a-cursor").status_code == 400


def test_the_activity_page_words_conversations_and_erasure_in_plain_language(alice, world):
    api = world.patient(world.patient_a)
    session = api.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"})
    assert session.status_code == 201, session.content
    sid = session.json()["session"]["session_id"]
    assert api.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "Mornings are hard"}).status_code == 201
    assert api.post(f"/v1/sessions/{sid}/end", {"outcome": "completed"}).status_code == 200
    r = api.client.delete(f"/v1/patients/{world.patient_a}/memories", HTTP_AUTHORIZATION=f"Bearer {api.token}")
    assert r.status_code == 200
    page = alice["client"].get("/me/activity/").content.decode()
    assert "started a conversation with you" in page and "added to a conversation with you" in page
    assert "ended a conversation with you" in page and "erased your information" in page
    assert not re.search(r"<td>(conversation|memory|workflow) [a-z_ ]+</td>", page), "a raw action code"


def test_a_stale_page_says_this_has_changed_and_changes_nothing(alice, world):
    """The preference was corrected in another window: correcting or deleting from the old page is the 409 page,
    and the current value stays (deleting the old version would have kept the new one in use)."""
    client = alice["client"]
    assert client.post(f"/me/preferences/{alice['first']}/correct/", {"time": "11:30"}).status_code == 302
    for response in (client.get(f"/me/preferences/{alice['first']}/correct/"),
                     client.post(f"/me/preferences/{alice['first']}/correct/", {"time": "12:00"}),
                     client.get(f"/me/preferences/{alice['first']}/delete/"),
                     client.post(f"/me/preferences/{alice['first']}/delete/", {"confirm": "yes"})):
        assert response.status_code == 409 and "This has changed" in response.content.decode()
    page = without_timestamps(client.get("/me/").content.decode())
    assert "not before 11:30" in page and "12:00" not in page


def test_a_correction_sent_twice_says_it_was_saved_and_saves_it_once(alice, world):
    """A double click or the back button sends the same correction again: the answer is the preferences page
    saying it had already been saved (it was the 409 "This has changed", as if the correction had been lost), and
    the value was replaced once. Another value from the old page is still the 409 (the stale-page test)."""
    client = alice["client"]
    url = f"/me/preferences/{alice['first']}/correct/"
    assert client.post(url, {"time": "11:30"}).status_code == 302
    again = client.post(url, {"time": "11:30"}, follow=True)
    html = again.content.decode()
    assert again.status_code == 200 and "This correction had already been saved. Nothing more was changed." in html
    assert "not before 11:30" in html
    history = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/memories/{alice['first']}")
    newest = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/memories/"
                                                f"{history.json()['superseded_by']}").json()
    assert newest["state"] == "active" and newest["superseded_by"] is None  # replaced once, not twice
    assert client.post(url, {"time": "12:00"}).status_code == 409


def test_a_correction_from_a_stale_page_keeps_what_was_typed_for_the_value_now_current(alice, world):
    """Corrected in another window meanwhile: the old page's correction saves nothing, and its answer (409) is the
    form again with what was typed, showing the value now current and sent to that value's page; the "This has
    changed" page lost what was typed. Sending it from there replaces the current value."""
    client = alice["client"]
    old_url = f"/me/preferences/{alice['first']}/correct/"
    assert client.post(old_url, {"time": "11:30"}).status_code == 302
    stale = client.post(old_url, {"time": "12:15"})
    html = stale.content.decode()
    assert stale.status_code == 409 and "This has changed since your page was shown" in html
    assert 'value="12:15"' in html and "Nothing was saved" in html and "not before 11:30" in html
    action = re.search(r'<form method="post" novalidate class="form" action="([^"]+)">', html).group(1)
    assert action != old_url and action.startswith("/me/preferences/") and action.endswith("/correct/")
    assert "12:15" not in without_timestamps(client.get("/me/").content.decode())
    assert client.post(action, {"time": "12:15"}).status_code == 302
    page = without_timestamps(client.get("/me/").content.decode())
    assert "not before 12:15" in page and "not before 11:30" not in page


def test_a_patient_is_refused_the_correction_form_of_a_clinical_fact(alice, world):
    from tests.test_memory_lifecycle import care_body, nurse_with

    nurse = nurse_with(world, "care_coordination")
    allergy = nurse.post(f"/v1/patients/{world.patient_a}/memories", care_body()).json()["memory_id"]
    assert alice["client"].get(f"/me/preferences/{allergy}/correct/").status_code == 403
    assert alice["client"].get(f"/me/preferences/{allergy}/delete/").status_code == 403


def test_a_path_nothing_serves_is_a_page_for_browsers_and_a_problem_for_the_api(client):
    page = client.get("/staff/nothing-here/", HTTP_ACCEPT="text/html,application/xhtml+xml")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
    assert "Page not found" in page.content.decode()
    for path, accept in (("/v1/nothing-here", "text/html"), ("/staff/nothing-here/", "application/json")):
        r = client.get(path, HTTP_ACCEPT=accept)
        assert r.status_code == 404 and r["Content-Type"] == "application/problem+json", path


def test_a_form_or_address_too_large_to_take_is_a_page_for_browsers_and_a_problem_for_the_api(alice, settings):
    """A form past MAX_REQUEST_BYTES (a pasted document as a correction) or a search past the query limit is
    refused before any browser layer runs; a browser gets the portal's page saying what to do, with the page
    headers, not a JSON document. Nothing is saved."""
    client = alice["client"]
    big = {"time": "1" * (settings.MAX_REQUEST_BYTES + 10)}
    page = client.post(f"/me/preferences/{alice['first']}/correct/", big, HTTP_ACCEPT="text/html")
    text = page.content.decode()
    assert page.status_code == 413 and page["Content-Type"].startswith("text/html"), page.content[:200]
    assert "This is too long to send" in text and "nothing was saved" in text and 'lang="en-GB"' in text
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"] and page["X-Frame-Options"] == "DENY"
    assert "no-store" in page["Cache-Control"]
    long_search = client.get("/me/?q=" + "a" * (settings.MAX_QUERY_STRING_CHARS + 1), HTTP_ACCEPT="text/html")
    assert long_search.status_code == 414 and "This address is too long" in long_search.content.decode()
    assert "not before 10:00" in client.get("/me/").content.decode()  # the preference is as it was
    for path, accept in ((f"/me/preferences/{alice['first']}/correct/", "application/json"),
                         (f"/v1/patients/{uuid.uuid4()}/memories", "text/html")):
        refused = client.post(path, big, HTTP_ACCEPT=accept)
        assert refused.status_code == 413 and refused["Content-Type"] == "application/problem+json", path


def test_a_preference_staff_set_aside_is_shown_to_the_patient_who_may_correct_it(alice, world):
    world.grant(world.patient_a, "nurse-q", "appointment_scheduling")
    r = world.staff("nurse-q").post(f"/v1/patients/{world.patient_a}/memories/{alice['first']}/quarantine",
                                    {"reason_code": "disputed_by_patient"})
    assert r.status_code == 200, r.content
    page = alice["client"].get("/me/").content.decode()
    assert "Set aside for review" in page and "not before 10:00" in page.split("Set aside for review")[1]
    assert f"/me/preferences/{alice['first']}/correct/" in page
    assert alice["client"].post(f"/me/preferences/{alice['first']}/correct/", {"time": "10:30"}).status_code == 302
    assert "Set aside for review" not in alice["client"].get("/me/").content.decode()


def test_search_boxes_take_what_the_database_cannot_hold_without_a_500(world, nurse, people, signed_in):
    assert nurse["client"].get("/staff/?q=a%00b").status_code == 200
    admin = signed_in(people.admin())
    assert admin.get("/staff/access/?patient_q=a%00b&staff_q=%00").status_code == 200


def test_an_administrator_holding_a_grant_is_not_linked_to_a_page_that_refuses_them(world, nurse, people,
                                                                                    signed_in):
    """An administrator who holds a grant for a patient (an organisation may give one to anybody) saw that patient
    on My patients, and in search results, as a link to the care staff's patient page, which answers them 'You
    cannot do that' (403). They see the patient without the link; care staff keep theirs."""
    in_directory(world.org, world.patient_a, "Alice Nowak")  # the nurse's grant registered her unnamed
    admin = people.admin()
    world.grant(world.patient_a, admin, "care_coordination")
    client = signed_in(admin)
    patient_page = f"/staff/patients/{world.patient_a}/"
    assert client.get(patient_page).status_code == 403
    for page in ("/staff/", "/staff/?q=Alice"):
        html = client.get(page).content.decode()
        assert "Alice Nowak" in html and f'href="{patient_page}"' not in html, page
    html = nurse["client"].get("/staff/?q=Alice").content.decode()
    assert html.count(f'href="{patient_page}"') == 2  # her list and the search result


def test_a_search_too_short_to_run_says_so_next_to_its_box(world, nurse, people, signed_in):
    """One character in a patient search box ran no search and showed nothing at all, as if the button did
    nothing; the box now says why, as its error (described by, and marked invalid)."""
    page = nurse["client"].get("/staff/?q=a").content.decode()
    assert "Type at least 2 characters to search." in page and 'id="patient-search-error"' in page
    assert 'aria-describedby="patient-search-help patient-search-error" aria-invalid="true"' in page
    assert "Type at least 2 characters" not in nurse["client"].get("/staff/?q=al").content.decode()
    admin = signed_in(people.admin())
    page = admin.get("/staff/access/?patient_q=a").content.decode()
    assert "Type at least 2 characters to search." in page and 'aria-invalid="true"' in page
    assert "Type at least 2 characters" not in admin.get("/staff/access/").content.decode()


@pytest.mark.parametrize("sub, ok", [("jane.doe@hospital.example", True), ("http://idp.b.example#nurse-9", True),
                                     ("nurse\tdemo", False), ("\u202eecila", False)])
def test_the_grant_form_takes_any_subject_a_token_may_carry(sub, ok):
    """Staff of a second provider are named '<issuer>#<sub>': the administrator's form grants them too."""
    from portal.views.consent import GrantForm

    form = GrantForm(data={"actor_sub": sub, "patient_id": str(uuid.uuid4()), "purpose": "appointment_scheduling",
                           "reason": "covers the clinic this month"})
    assert form.is_valid() is ok, form.errors


def test_the_activity_page_puts_others_first_with_their_purpose_and_groups_the_patients_own_repeats(alice, world):
    """Who used my information, for what purpose: a nurse's read with the purpose it named, and one that named
    none ("Not stated"), come first; the patient's own five looks at their preferences are one line.
    """
    world.grant(world.patient_a, "nurse-7", "appointment_scheduling")
    nurse = world.staff("nurse-7")
    assert nurse.get(f"/v1/patients/{world.patient_a}/memories", {"purpose": "appointment_scheduling"}
                     ).status_code == 200
    assert nurse.get(f"/v1/patients/{world.patient_a}/memories").status_code == 200
    for _ in range(5):
        assert alice["client"].get("/me/").status_code == 200
    page = alice["client"].get("/me/activity/").content.decode()
    others, own = page.split("What you did", 1)
    assert "Read or changed by others" in others
    assert ("<td>Staff member or assistant “nurse-7”</td><td>looked at your preferences</td>"
            "<td>Appointment scheduling</td>") in others
    assert "<td>looked at your preferences</td><td>Not stated</td>" in others
    assert "You looked at your preferences (5 times)" in own
    assert "nurse-7" not in own


def test_a_person_whose_subject_reads_like_a_service_is_shown_as_the_person_they_are(alice, world):
    """The activity page names automated services by the audit row's kind, never by how a subject is spelled: a
    staff member whose provider subject begins ``service:`` is a staff member in the patient's history, not an
    "Automated service" hiding a person's read of their record."""
    world.grant(world.patient_a, "service:reminders", "appointment_scheduling")
    assert world.staff("service:reminders").get(f"/v1/patients/{world.patient_a}/memories",
                                                {"purpose": "appointment_scheduling"}).status_code == 200
    page = alice["client"].get("/me/activity/").content.decode()
    assert "<td>Staff member or assistant “service:reminders”</td><td>looked at your preferences</td>" in page
    assert "Automated service (reminders)" not in page


def test_withdrawing_a_consent_is_asked_twice_as_deleting_is(alice):
    """One click on the consents page used to withdraw a consent (everything kept under it stops being used): the
    card now links to a page naming the purpose and what withdrawing does, whose own button withdraws it. A post
    without the confirmation (an old page's one-click form) gets that page, and nothing is withdrawn."""
    client = alice["client"]
    url = f"/me/consents/{alice['consent']}/revoke/"
    page = client.get("/me/consents/").content.decode()
    assert f'href="{url}"' in page and f'action="{url}"' not in page
    for asked in (client.get(url), client.post(url)):
        text = asked.content.decode()
        assert asked.status_code == 200 and "<h1>Withdraw your consent for Appointment scheduling?</h1>" in text
        assert '<title>Withdraw a consent' in text and 'name="confirm" value="yes"' in text
        assert 'href="/me/consents/"' in text  # Cancel
    assert "Withdraw consent" in client.get("/me/consents/").content.decode()
    assert client.get("/me/").content.decode().count("not before 10:00") >= 1  # still used
    done = client.post(url, {"confirm": "yes"}, follow=True).content.decode()
    assert "Consent withdrawn for: Appointment scheduling." in done
    # once withdrawn, its confirmation page says so instead of asking again
    again = client.get(url, follow=True).content.decode()
    assert "had already been withdrawn" in again and "Withdraw your consent" not in again


def test_withdrawing_a_consent_again_says_it_had_already_been_withdrawn(alice, world):
    """A stale page, the back button or a double submit posts the withdrawal again: the answer says it had
    already been withdrawn and nothing changed, never a second "Consent withdrawn"; a newer consent for the same
    purpose stays given."""
    client = alice["client"]
    url = f"/me/consents/{alice['consent']}/revoke/"
    # a double submit: the browser follows only the last answer, so both messages wait for the next page
    confirm = {"confirm": "yes"}
    assert client.post(url, confirm).status_code == 302 and client.post(url, confirm).status_code == 302
    page = client.get("/me/consents/").content.decode()
    assert page.count("Consent withdrawn for") == 1
    assert page.count("This consent for Appointment scheduling had already been withdrawn on") == 1
    assert "Nothing was changed." in page

    newer = world.consent(world.patient_a)  # given again later, from another device
    again = client.post(url, confirm, follow=True).content.decode()
    assert "Consent withdrawn for" not in again and "had already been withdrawn" in again
    card = again[again.index(f'data-consent-id="{newer}"'):]
    assert "Given" in card[:card.index("</li>")] and 'href="/me/consents/' in card[:card.index("</li>")]


def test_a_patient_gives_a_consent_again_after_withdrawing_it(alice, world):
    """The consents page offers each purpose without a consent in force; agreeing records one as the patient's
    own, with the portal as its evidence; agreeing again (a double submit) changes nothing; an unknown purpose is
    refused and writes nothing."""
    client = alice["client"]
    page = client.get("/me/consents/").content.decode()
    assert 'name="purpose" value="appointment_scheduling"' not in page, "in force: nothing to give"
    assert 'name="purpose" value="communication"' in page
    assert client.post(f"/me/consents/{alice['consent']}/revoke/", {"confirm": "yes"}).status_code == 302
    page = client.get("/me/consents/").content.decode()
    assert 'name="purpose" value="appointment_scheduling"' in page

    assert client.post("/me/consents/give/", {"purpose": "appointment_scheduling"}).status_code == 302
    assert client.post("/me/consents/give/", {"purpose": "appointment_scheduling"}).status_code == 302
    page = client.get("/me/consents/").content.decode()
    assert page.count("Consent given for: Appointment scheduling.") == 1
    assert "Your consent for Appointment scheduling is already in force. Nothing was changed." in page
    herself = Identity(org_id=world.org, actor_sub="x", patient_self_id=world.patient_a)
    with identity_context(herself):
        given = list(ConsentRecord.objects.filter(patient_id=world.patient_a, purpose="appointment_scheduling",
                                                  status="granted"))
    assert len(given) == 1 and given[0].evidence_ref == "given by the patient in the portal"
    assert not given[0].recorded_by.startswith("agent:")
    assert "(recorded by you)" in page[page.index(f'data-consent-id="{given[0].consent_record_id}"'):]

    assert client.post("/me/consents/give/", {"purpose": "marketing"}).status_code == 400
    assert client.post("/me/consents/give/").status_code == 400
    with identity_context(herself):
        assert not ConsentRecord.objects.filter(patient_id=world.patient_a).exclude(
            purpose="appointment_scheduling").exists()



# --- wording ----------------------------------------------------------------------------------------------------
def test_with_everything_set_aside_the_page_does_not_say_nothing_is_kept(alice, world):
    """Preferences the care team set aside are still kept: "We keep no preferences" would be false above them."""
    world.grant(world.patient_a, "nurse-q", "appointment_scheduling")
    for memory_id in (alice["first"], alice["second"]):
        r = world.staff("nurse-q").post(f"/v1/patients/{world.patient_a}/memories/{memory_id}/quarantine",
                                        {"reason_code": "disputed_by_patient"})
        assert r.status_code == 200, r.content
    page = alice["client"].get("/me/").content.decode()
    assert "We keep no preferences" not in page
    assert "None of your preferences is in use at the moment." in page and "Set aside for review" in page
    assert 'href="/me/preferences/delete-all/"' in page  # deleting everything still covers them


def test_the_activity_page_counts_one_preference_given_in_words(world, people, signed_in):
    from tests.test_governance_agents import agent_for

    _memory(world, world.patient_b, world.consent(world.patient_b))
    r = agent_for(world, world.patient_b).post(f"/v1/patients/{world.patient_b}/context",
                                               {"question": "what is the earliest I can come in?",
                                                "purpose": "appointment_scheduling"})
    assert r.status_code == 200, r.content
    [release] = world.patient(world.patient_b).get(f"/v1/patients/{world.patient_b}/releases").json()["items"]
    assert len(release["members"]) == 1
    page = signed_in(people.patient(world.patient_b)).get("/me/activity/").content.decode()
    assert "was given one of your preferences for" in page and "of your preference for" not in page


def test_the_staff_correct_page_speaks_to_staff(world, nurse):
    consent = world.consent(world.patient_a)
    memory_id = _memory(world, world.patient_a, consent)
    page = nurse["client"].get(f"/staff/patients/{world.patient_a}/memories/{memory_id}/correct/").content.decode()
    assert "Stated by the patient" in page and "You told us" not in page
    refused = nurse["client"].post(f"/staff/patients/{world.patient_a}/memories/{memory_id}/correct/",
                                   {"time": "9am"}).content.decode()
    assert "Stated by the patient" in refused and "You told us" not in refused


def test_the_erasure_receipt_words_one_retained_clinical_record_in_the_singular(alice, world):
    from tests.test_memory_lifecycle import care_body, nurse_with

    nurse = nurse_with(world, "care_coordination")
    assert nurse.post(f"/v1/patients/{world.patient_a}/memories", care_body()).status_code == 201
    receipt = alice["client"].post("/me/preferences/delete-all/", {"confirm": "yes"}, follow=True).content.decode()
    assert "1 clinical record stays with your care team, who must keep it." in receipt, receipt


def test_pages_show_times_in_the_organisations_time_zone_and_name_it(alice, world, settings):
    """Every time on the pages was UTC, unnamed: a patient in Tokyo read a change made at 09:30 their time as
    00:30. Pages show times in the portal's zone (PORTAL_TIME_ZONE) or the organisation's own
    (PORTAL_ORGANIZATION_TIME_ZONES), each time with its zone named; a date typed in a form is a day there;
    what is stored and what the API answers stay UTC."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    client, api = alice["client"], world.patient(world.patient_a)
    memory = api.get(f"/v1/patients/{world.patient_a}/memories/{alice['first']}").json()
    recorded = datetime.fromisoformat(memory["created_at"].replace("Z", "+00:00"))
    assert recorded.utcoffset().total_seconds() == 0  # the API stays UTC

    def shown(zone: str) -> str:
        return f"{recorded.astimezone(ZoneInfo(zone)):%-d %b %Y, %H:%M} "

    settings.PORTAL_TIME_ZONE = "Asia/Tokyo"
    page = client.get("/me/").content.decode()
    assert shown("Asia/Tokyo") + "JST" in page and "Times are shown in the Asia/Tokyo time zone." in page
    settings.PORTAL_ORGANIZATION_TIME_ZONES = {str(world.org): "America/Sao_Paulo"}
    page = client.get("/me/").content.decode()
    assert shown("America/Sao_Paulo") + "-03" in page and shown("Asia/Tokyo") not in page
    # "keep until" a day is the end of that day where the patient is, stored as UTC
    until = datetime.now(ZoneInfo("America/Sao_Paulo")).date() + timedelta(days=30)
    assert client.post(f"/me/preferences/{alice['first']}/correct/",
                       {"time": "11:30", "valid_until": until.isoformat()}).status_code == 302
    newest = [m for m in api.get(f"/v1/patients/{world.patient_a}/memories").json()["items"]
              if m["fact"].get("time") == "11:30"][0]
    assert newest["valid_until"].startswith(f"{until + timedelta(days=1)}T02:59")
    consents = client.get("/me/consents/").content.decode()
    assert "Times are shown in the America/Sao_Paulo time zone." in consents
    # a page of another organisation's pages (the error page too) names the portal's zone
    settings.PORTAL_ORGANIZATION_TIME_ZONES = {}
    missing = client.get(f"/me/deletions/{uuid.uuid4()}/").content.decode()
    assert "Times are shown in the Asia/Tokyo time zone." in missing


def test_the_staff_page_shows_every_care_team_flag_a_page_at_a_time(world, nurse):
    """The patient page showed the first 100 flagged conversations and nothing of the rest, with no way to them:
    a 'More flags' link reads the next page (the API's cursor) until the last, which offers none; a link the page
    never gave is 400 and shows nothing."""
    from conversations.models import ConversationSession

    world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    sid = api.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"})
    sid = sid.json()["session"]["session_id"]
    r = api.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "I'm taking blood thinners."})
    assert r.status_code == 201 and r.json()["new_care_team_flags"], r.content
    with identity_context(Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}",
                                   patient_self_id=world.patient_a)):
        template = ConversationSession.objects.get(session_id=sid)
        ConversationSession.objects.bulk_create([ConversationSession(**{
            f.attname: getattr(template, f.attname) for f in ConversationSession._meta.concrete_fields
            if f.attname != "session_id"}) for _ in range(104)])
    client, url = nurse["client"], f"/staff/patients/{world.patient_a}/"
    first = client.get(url).content.decode()
    assert first.count("Conversation for Appointment scheduling") == 100
    more = re.search(r'<a href="\?([^"#]+)#flags-h">More flags</a>', first)
    assert more and "First flags" not in first
    second = client.get(f"{url}?{more.group(1).replace('&amp;', '&')}").content.decode()
    assert second.count("Conversation for Appointment scheduling") == 5
    assert "More flags for the care team" in second and "First flags" in second and ">More flags<" not in second
    forged = client.get(url, {"purpose": "appointment_scheduling", "flags": "not-a-cursor"})
    assert forged.status_code == 400 and "Conversation for" not in forged.content.decode()
