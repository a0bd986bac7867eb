"""Browser tests: headless Debian chromium driven by Playwright against a real server (committed data) and the
real development identity provider. Each test saves screenshots under test-artifacts/ (desktop and phone width).
No chromium means failure, not a skip: `.ci/run` installs it."""

from __future__ import annotations

import re
import threading
import uuid
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from tests.portal.conftest import point_at_idp
from tests.support import Api

MRN = "urn:oid:2.16.840.1.113883.19.5"

pytestmark = pytest.mark.slow

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(django_settings.BASE_DIR) / "test-artifacts"
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def live_portal(committed_db, settings, dev_idp, monkeypatch):
    """A real threaded HTTP server in front of Django (static files included), on committed data."""
    import werkzeug.serving
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.handlers.wsgi import WSGIHandler

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop here
    point_at_idp(settings, dev_idp)
    settings.SESSION_COOKIE_SECURE = False
    server = werkzeug.serving.make_server("127.0.0.1", 0, StaticFilesHandler(WSGIHandler()), threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()
    from tests.conftest import admin_connect

    with admin_connect() as conn:  # logins leave users and sessions behind; they are not app tables
        conn.execute("DELETE FROM django_session")
        conn.execute("DELETE FROM portal_identity")
        conn.execute("DELETE FROM auth_user WHERE username LIKE 'oidc-%%'")


@pytest.fixture
def browser():
    assert Path(CHROMIUM).exists(), "Debian's chromium is required for the browser tests (.ci/run installs it)"
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()


def _page(browser, viewport=None):
    context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    return page


def _shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _sign_in(page, base: str, sub: str) -> None:
    page.goto(f"{base}/login/")
    page.get_by_role("link", name="Sign in with your organisation account").click()
    page.locator("input[name=sub]").fill(sub)
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(re.compile(re.escape(base) + r"/(me|staff)/"))


def test_a_patient_signs_in_corrects_deletes_and_revokes(browser, live_portal, people, world):
    consent = world.consent(world.patient_a)
    for kind, time in (("earliest_time", "10:00"), ("latest_time", "16:00")):
        r = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories", {
            "memory_type": "scheduling_preference", "fact": {"kind": kind, "time": time},
            "consent_purpose": "appointment_scheduling", "consent_record_id": consent})
        assert r.status_code == 201, r.content
    sub = people.patient(world.patient_a, name="Alice")

    page = _page(browser)
    _sign_in(page, live_portal, sub)
    assert page.get_by_role("heading", name="My preferences").is_visible()
    assert page.locator("p.fact", has_text="appointments not before 10:00").is_visible()
    _shot(page, "patient-preferences")
    phone = _page(browser, PHONE)
    phone.context.add_cookies(page.context.cookies())
    phone.goto(f"{live_portal}/me/")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    _shot(phone, "phone-patient-preferences")

    page.get_by_role("link", name=re.compile("Correct.*not before 10:00")).click()
    page.locator("input[name=time]").fill("11:30")
    page.locator("input[name=valid_until]").fill("2001-01-01")
    page.get_by_role("button", name="Save correction").click()
    assert page.get_by_text("There is a problem").is_visible()
    assert page.locator(".field-invalid .error").first.inner_text().endswith("must be in the future")
    _shot(page, "patient-correct-error")
    page.locator("input[name=valid_until]").fill("")
    page.get_by_role("button", name="Save correction").click()
    page.wait_for_url(f"{live_portal}/me/")
    assert page.locator("p.fact", has_text="appointments not before 11:30").is_visible()
    assert page.get_by_text("not before 10:00").count() == 0
    _shot(page, "patient-corrected")

    page.get_by_role("link", name=re.compile("Delete.*no later than 16:00")).click()
    assert page.get_by_role("heading", name="Delete this preference?").is_visible()
    assert page.locator("p.fact", has_text="no later than 16:00").is_visible()
    _shot(page, "patient-delete-confirm")
    page.get_by_role("button", name="Delete this preference").click()
    page.wait_for_url(re.compile(r".*/me/deletions/[0-9a-f-]{36}/"))
    assert page.get_by_role("heading", name="Deletion receipt").is_visible()
    assert page.get_by_text("Deleted: 1 record").is_visible()
    _shot(page, "patient-deletion-receipt")

    page.get_by_role("link", name="My consents").click()
    page.get_by_role("link", name=re.compile("Withdraw consent")).click()
    assert page.get_by_role("heading", name="Withdraw your consent for Appointment scheduling?").is_visible()
    page.get_by_role("button", name=re.compile("Withdraw consent")).click()
    assert page.get_by_text("Consent withdrawn").is_visible()
    _shot(page, "patient-consent-withdrawn")

    page.get_by_role("link", name="Who used my information").click()
    assert page.get_by_text("withdrew a consent").first.is_visible()
    _shot(page, "patient-activity")

    for path, name in (("/me/deletions/", "phone-patient-receipts"), ("/me/activity/", "phone-patient-activity")):
        phone.goto(live_portal + path)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{path} scrolls sideways on a phone ({width}px)"
        _shot(phone, name)

    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(re.compile(r".*/oauth2/end_session.*"))
    page.goto(f"{live_portal}/me/")
    assert "/login/" in page.url


def _directory(world, patients: dict, staff: dict | None = None) -> None:
    """Names, dates of birth and MRNs in the directory, and staff by name (as an administrator would)."""
    admin = Api(world.token(sub="org-admin", scope="patient:write patient:read grant:write"))
    for patient_id, (name, born, mrn) in patients.items():
        r = admin.post("/v1/patients", {"patient_id": str(patient_id), "display_name": name, "birth_date": born,
                                        "identifiers": [{"system": MRN, "value": mrn}]})
        assert r.status_code == 201, r.content
    for sub, name in (staff or {}).items():
        assert admin.post("/v1/staff", {"actor_sub": sub, "display_name": name}).status_code == 201


def test_a_nurse_sees_only_her_patients_and_not_others_by_url(browser, live_portal, people, world):
    _directory(world, {world.patient_a: ("Alice Nowak", "1957-03-14", "MRN-0001"),
                       world.patient_b: ("Bob Kowalski", "1962-11-02", "MRN-0002")})
    nurse = people.staff("nurse")
    world.grant(world.patient_a, nurse, "appointment_scheduling")
    consent_b = world.consent(world.patient_b)
    world.patient(world.patient_b).post(f"/v1/patients/{world.patient_b}/memories", {
        "memory_type": "scheduling_preference", "fact": {"kind": "earliest_time", "time": "07:15"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": consent_b})

    for _ in range(3):
        world.patient(world.patient_a).post("/v1/workflows", {"workflow_type": "appointment_booking",
                                                              "patient_id": str(world.patient_a)})
    page = _page(browser)
    _sign_in(page, live_portal, nurse)
    assert page.get_by_role("heading", name="My patients").is_visible()
    assert page.get_by_role("link", name="Alice Nowak").is_visible()
    assert page.get_by_text("Bob Kowalski").count() == 0 and page.get_by_text(str(world.patient_a)).count() == 0
    _shot(page, "nurse-patients")
    page.get_by_role("link", name="Alice Nowak").click()
    assert page.get_by_role("heading", name="Alice Nowak").is_visible()
    assert page.get_by_text("MRN-0001").is_visible()
    _shot(page, "nurse-patient-page")

    response = page.goto(f"{live_portal}/staff/patients/{world.patient_b}/")
    assert response.status == 404
    assert page.get_by_role("heading", name="Page not found").is_visible()
    assert page.get_by_text("07:15").count() == 0
    _shot(page, "nurse-other-patient-404")

    page.goto(f"{live_portal}/staff/workflows/")
    assert page.locator("svg rect.bar").count() >= 1
    _shot(page, "nurse-workflows")
    phone = _page(browser, PHONE)
    phone.context.add_cookies(page.context.cookies())
    phone.goto(f"{live_portal}/staff/patients/{world.patient_a}/")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    _shot(phone, "phone-nurse-patient-page")


def test_an_administrator_grants_access_and_the_nurse_then_sees_the_patient(browser, live_portal, people, world):
    admin = people.admin()
    nurse = people.staff("nurse")
    _directory(world, {world.patient_b: ("Bob Kowalski", "1962-11-02", "MRN-0002")}, {nurse: "Nurse Joy Adams"})
    world.consent(world.patient_b)

    nurse_page = _page(browser)
    _sign_in(nurse_page, live_portal, nurse)
    assert nurse_page.get_by_text("Bob Kowalski").count() == 0

    page = _page(browser)
    _sign_in(page, live_portal, admin)
    page.get_by_role("link", name="Access", exact=True).click()
    page.get_by_label("Find a patient").fill("MRN-0002")
    page.get_by_label("Find a staff member").fill("Joy")
    page.get_by_role("button", name="Search").click()
    page.get_by_label(re.compile("Bob Kowalski, born 1962-11-02")).check()
    page.get_by_label(re.compile("Nurse Joy Adams")).check()
    page.get_by_label("Purpose").select_option("appointment_scheduling")
    page.get_by_role("button", name="Grant access").click()
    # next to the field (the id its input names in aria-describedby), and linked from the summary at the top
    assert page.locator("#id_reason_error").inner_text().endswith("This field is required.")
    assert page.get_by_label("Reason", exact=True).get_attribute("aria-describedby") == \
        "id_reason_helptext id_reason_error"
    assert page.get_by_role("link", name="Reason: This field is required.").get_attribute("href") == "#id_reason"
    _shot(page, "admin-grant-error")
    page.get_by_label("Reason", exact=True).fill("covering the Tuesday clinic " + uuid.uuid4().hex[:4])
    page.get_by_role("button", name="Grant access").click()
    assert page.get_by_text("Access granted.").is_visible()
    assert page.get_by_text(re.compile("Nurse Joy Adams → Bob Kowalski")).is_visible()
    _shot(page, "admin-access")

    nurse_page.reload()
    assert nurse_page.get_by_role("link", name="Bob Kowalski").is_visible()
    nurse_page.get_by_role("link", name="Bob Kowalski").click()
    assert nurse_page.get_by_role("heading", name="Bob Kowalski").is_visible()
    _shot(nurse_page, "nurse-sees-granted-patient")

    phone = _page(browser, PHONE)
    phone.context.add_cookies(page.context.cookies())
    phone.goto(f"{live_portal}/staff/access/")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    _shot(phone, "phone-admin-access")


def test_a_nurse_finds_her_patient_by_name_and_by_mrn(browser, live_portal, people, world):
    _directory(world, {world.patient_a: ("Alice Nowak", "1957-03-14", "MRN-0001"),
                       world.patient_b: ("Bob Kowalski", "1962-11-02", "MRN-0002")})
    nurse = people.staff("nurse")
    world.grant(world.patient_a, nurse, "appointment_scheduling")
    page = _page(browser)
    _sign_in(page, live_portal, nurse)
    for query in ("nowak", "MRN-0001"):
        page.get_by_label("Find a patient").fill(query)
        page.get_by_role("button", name="Search").click()
        results = page.get_by_role("region", name=re.compile("Patients matching"))
        assert results.get_by_role("link", name="Alice Nowak").is_visible(), query
        assert results.get_by_text("1957-03-14").is_visible()
    _shot(page, "nurse-finds-patient-by-mrn")
    page.get_by_label("Find a patient").fill("MRN-0002")  # someone else's patient: not found
    page.get_by_role("button", name="Search").click()
    assert page.get_by_text("No patient you have access to matches.").is_visible()
    assert page.get_by_text("Bob Kowalski").count() == 0
    page.get_by_label("Find a patient").fill("Alice")
    page.get_by_role("button", name="Search").click()
    page.get_by_role("region", name=re.compile("Patients matching")).get_by_role("link", name="Alice Nowak").click()
    assert page.get_by_role("heading", name="Alice Nowak").is_visible()


def test_a_patient_is_greeted_by_name_and_corrects_a_new_type_with_its_generated_form(browser, live_portal, people,
                                                                                      world):
    _directory(world, {world.patient_a: ("Alice Nowak", "1957-03-14", "MRN-0001")})
    consent = world.consent(world.patient_a, "communication")
    r = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories", {
        "memory_type": "language_support", "fact": {"language": "pl", "interpreter_needed": True},
        "consent_purpose": "communication", "consent_record_id": consent})
    assert r.status_code == 201, r.content
    page = _page(browser)
    _sign_in(page, live_portal, people.patient(world.patient_a, name="Alice"))
    assert page.get_by_text("Hello, Alice Nowak").is_visible()
    assert page.locator("p.fact", has_text="needs a Polish interpreter").is_visible()
    page.get_by_role("link", name=re.compile("Correct.*Polish")).click()
    page.get_by_label("How").select_option("sign_language")
    page.locator("input[name=language]").fill("pso")
    page.get_by_role("button", name="Save correction").click()
    page.wait_for_url(f"{live_portal}/me/")
    assert page.locator("p.fact", has_text="Polish Sign Language (sign language); needs a Polish Sign Language "
                                           "interpreter").is_visible()
    _shot(page, "patient-corrected-language-support")
