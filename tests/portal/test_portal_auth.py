"""Portal login through the real development provider: who is let in, how they are recognised, how sessions end,
and the web-safety headers every page carries."""

from __future__ import annotations

import json
import re
import time
import uuid
from urllib.parse import parse_qs, urlparse

import jwt
import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import SuspiciousOperation
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from core.models import PortalIdentity
from portal.context import PORTAL_ATTR
from portal.oidc import PortalOIDCBackend
from tests.conftest import register_organization
from tests.fakes.dribbling import DribblingServer
from tests.portal.conftest import PORTAL_CLIENT_ID, login
from tests.support import ISSUER

pytestmark = pytest.mark.django_db


def test_the_login_is_an_authorisation_code_flow_with_pkce_s256_and_a_nonce(people, dev_idp):
    response = Client().get("/oidc/authenticate/")
    query = parse_qs(urlparse(response["Location"]).query)
    assert query["response_type"] == ["code"]
    assert query["client_id"] == [PORTAL_CLIENT_ID]
    assert query["code_challenge_method"] == ["S256"] and len(query["code_challenge"][0]) >= 43
    assert query["nonce"] and query["state"]


def test_users_are_matched_on_issuer_and_subject_never_email(people, dev_idp, world, signed_in):
    sub = people.patient(world.patient_a)
    signed_in(sub)
    signed_in(sub)  # the same person twice: one user
    link = PortalIdentity.objects.get(subject=sub)
    assert link.issuer == dev_idp
    assert get_user_model().objects.filter(portal_identity__subject=sub).count() == 1
    assert link.user.email == "" and sub not in link.user.username
    # Another subject claiming the same e-mail address is another person.
    other = people.raw("impostor", {"role": "patient", "org_id": str(world.org),
                                    "patient_id": str(world.patient_b), "email": "same@example.org"})
    signed_in(other)
    assert PortalIdentity.objects.get(subject=other).user_id != link.user_id


@pytest.mark.parametrize("claims", [
    {"role": "patient"},  # no patient_id
    {"role": "wizard"},
    {"role": "staff", "patient_id": "00000000-0000-4000-8000-000000000001"},
    {"role": "staff", "org_id": "not-a-uuid"},
])
def test_logins_with_inconsistent_claims_are_refused(people, dev_idp, world, claims):
    claims = {"org_id": str(world.org), **claims}
    sub = people.raw("odd", claims)
    client = Client()
    response = login(client, dev_idp, sub)
    assert response.status_code == 403
    assert b"Sign-in did not complete" in response.content
    assert client.get("/me/").status_code == 302


def _backend_with_test_key(settings, jwks_server):
    settings.OIDC_OP_JWKS_ENDPOINT = jwks_server.url
    settings.OIDC_OP_ISSUER = "http://idp.test"
    settings.OIDC_RP_CLIENT_ID = "anamnesis-portal"
    return PortalOIDCBackend()


def _id_token(keyring, **overrides):
    now = int(time.time())
    claims = {"iss": "http://idp.test", "aud": "anamnesis-portal", "sub": "s1", "iat": now, "exp": now + 60,
              "nonce": "n1", **overrides}
    claims = {k: v for k, v in claims.items() if v is not None}
    return jwt.encode(claims, keyring.rsa, algorithm="RS256", headers={"kid": keyring.rsa_kid})


@pytest.mark.parametrize("overrides", [
    {"iss": "http://evil.test"},
    {"aud": "some-other-client"},
    {"aud": ["anamnesis-portal", "other"], "azp": "other"},
    {"exp": int(time.time()) - 3600},
    {"iat": int(time.time()) + 3600},
    {"nonce": "replayed"},
])
def test_id_tokens_with_wrong_issuer_audience_time_or_nonce_are_refused(settings, jwks_server, keyring, overrides):
    backend = _backend_with_test_key(settings, jwks_server)
    with pytest.raises(SuspiciousOperation):
        backend.verify_token(_id_token(keyring, **overrides), nonce="n1")


def test_a_good_id_token_passes_and_hs256_is_never_accepted(settings, jwks_server, keyring):
    backend = _backend_with_test_key(settings, jwks_server)
    assert backend.verify_token(_id_token(keyring), nonce="n1")["sub"] == "s1"
    forged = jwt.encode({"iss": "http://idp.test", "aud": "anamnesis-portal", "sub": "s1",
                         "iat": int(time.time()), "exp": int(time.time()) + 60, "nonce": "n1"},
                        "client-secret-used-as-an-hmac-key-0123456789", algorithm="HS256",
                        headers={"kid": keyring.rsa_kid})
    with pytest.raises(SuspiciousOperation):
        backend.verify_token(forged, nonce="n1")


@pytest.mark.parametrize("answer", [b"[1]", b'"x"', b"<html>", b'{"id_token": 5}', b'{"id_token": null}'])
def test_a_token_endpoint_answering_nonsense_is_the_providers_failure_never_a_500(people, settings, answer):
    """The provider's token endpoint answers 200 with something that is no token response: a JSON list or string
    was a 500 (mozilla-django-oidc reads the answer with ``.get()``); it is the sign-in service's failure (503 page)
    or a refused sign-in (403), and nobody is signed in."""
    with DribblingServer(answer, interval=0) as provider:
        settings.OIDC_OP_TOKEN_ENDPOINT = f"{provider.url}/token"
        client = Client(raise_request_exception=False)
        start = client.get("/oidc/authenticate/")
        state = parse_qs(urlparse(start["Location"]).query)["state"][0]
        response = client.get(f"/oidc/callback/?code=abc&state={state}", HTTP_ACCEPT="text/html")
        page = response.content.decode()
        assert (response.status_code, "Sign-in did not complete" in page or "not available at the moment" in page) in (
            (403, True), (503, True))
        assert client.get("/me/").status_code == 302


def test_a_token_endpoint_dribbling_its_answer_fails_the_sign_in_within_its_timeouts(people, settings):
    """requests' timeout (mozilla-django-oidc's client) bounds each read, not the exchange: a token endpoint sending
    its answer a byte every 0.05 s, each well within OIDC_TIMEOUT, held the sign-in's worker thread for the whole
    answer. The exchange now ends within twice the timeout (as the key set's fetch does), the 503 page."""
    answer = json.dumps({"access_token": "x" * 40, "token_type": "Bearer", "id_token": "a.b.c"}).encode()
    with DribblingServer(answer) as provider:
        settings.OIDC_OP_TOKEN_ENDPOINT = f"{provider.url}/token"
        settings.OIDC_TIMEOUT = 0.5
        client = Client()
        start = client.get("/oidc/authenticate/")
        state = parse_qs(urlparse(start["Location"]).query)["state"][0]
        started = time.monotonic()
        response = client.get(f"/oidc/callback/?code=abc&state={state}", HTTP_ACCEPT="text/html")
        assert time.monotonic() - started < 2.5
        assert response.status_code == 503 and b"not available at the moment" in response.content
        assert response["Retry-After"] == str(settings.API_UNAVAILABLE_RETRY_AFTER_SECONDS)


def test_a_sign_in_while_the_providers_key_set_cannot_be_reached_is_the_services_failure(people, world, settings,
                                                                                         dev_idp):
    """The provider's key set out of reach while an ID token is checked is the sign-in service's outage (the 503
    page saying to try again shortly), as its token endpoint out of reach is; it was the 403 'Sign-in did not
    complete', as if the sign-in had been refused."""
    from portal.oidc import _op_key_sets

    _op_key_sets.clear()
    settings.OIDC_OP_JWKS_ENDPOINT = "http://127.0.0.1:9/jwks"  # nothing listens there
    client = Client()
    response = login(client, dev_idp, people.patient(world.patient_a))
    assert response.status_code == 503 and b"not available at the moment" in response.content
    assert response["Retry-After"] == str(settings.API_UNAVAILABLE_RETRY_AFTER_SECONDS)  # the page had none
    assert client.get("/me/").status_code == 302


def test_logout_is_a_post_that_ends_the_session_and_the_providers(people, world, signed_in, dev_idp):
    client = signed_in(people.patient(world.patient_a))
    assert client.get("/logout/").status_code == 405
    # a browser following a link there gets the portal's page, not a blank one
    page = client.get("/logout/", HTTP_ACCEPT="text/html")
    assert page.status_code == 405 and page["Allow"] == "POST" and "does not open this way" in page.content.decode()
    assert "Content-Security-Policy" in page
    response = client.post("/logout/")
    assert response.status_code == 302
    assert response["Location"].startswith(dev_idp + "/oauth2/end_session?")
    assert "id_token_hint" in response["Location"]
    assert client.get("/me/").status_code == 302


def test_the_signed_out_page_never_says_so_to_someone_still_signed_in(people, world, signed_in, dev_idp):
    """/signed-out/ (where the provider returns after sign-out) said 'You are signed out' to anyone, so a link
    there, or the browser's history, told a person still signed in (their name and Sign out in the header) that
    they were not: on a shared computer they would walk away from an open session. It sends them to their start
    page; after signing out it is the page it was."""
    client = signed_in(people.patient(world.patient_a))
    response = client.get("/signed-out/", HTTP_ACCEPT="text/html")
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.post("/logout/").status_code == 302
    page = client.get("/signed-out/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and "You are signed out" in page.content.decode()


@pytest.mark.parametrize("path, status", [("/", 302), ("/login/", 200), ("/signed-out/", 200)])
def test_the_pages_before_sign_in_answer_head_as_get(people, world, path, status):
    """HEAD (a load balancer's or an uptime monitor's check of the sign-in page) was 405 on every page, though a
    server must take HEAD wherever it takes GET; the pages before sign-in answer it as GET, without a body."""
    client = Client()
    get, head = client.get(path, HTTP_ACCEPT="text/html"), client.head(path, HTTP_ACCEPT="text/html")
    assert get.status_code == head.status_code == status and head.content == b""
    assert head.get("Location") == get.get("Location") and "Content-Security-Policy" in head


def test_the_libraries_sign_out_address_signs_out_as_the_portals_does(people, world, dev_idp):
    """``/oidc/logout/`` (mozilla-django-oidc's address, which the portal serves too) is the portal's sign-out:
    a POST with the CSRF token ends the session and the provider's and rotates the token. It answered 500 and left
    the session signed in."""
    client = Client(enforce_csrf_checks=True)
    login(client, dev_idp, people.patient(world.patient_a))
    page = client.get("/me/consents/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    assert client.get("/oidc/logout/").status_code == 405
    assert client.post("/oidc/logout/").status_code == 403  # no CSRF token
    before = client.cookies["csrftoken"].value
    response = client.post("/oidc/logout/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302 and response["Location"].startswith(dev_idp + "/oauth2/end_session?")
    assert client.cookies["csrftoken"].value != before
    assert client.get("/me/").status_code == 302


def test_logout_needs_the_csrf_token(people, world, dev_idp):
    client = Client(enforce_csrf_checks=True)
    login(client, dev_idp, people.patient(world.patient_a))
    assert client.post("/logout/").status_code == 403
    page = client.post("/logout/", HTTP_ACCEPT="text/html")
    assert page.status_code == 403 and "This form has expired" in page.content.decode()
    assert "Content-Security-Policy" in page and "<style" not in page.content.decode()  # our page, not Django's
    assert client.get("/me/").status_code == 200


def test_signing_out_rotates_the_csrf_token_so_the_signed_in_pages_forms_are_spent(people, world, dev_idp):
    """Signing in rotates the CSRF token (Django's login); signing out does too: a form (or a token read from one)
    of a page shown while signed in no longer posts in the browser after sign-out."""
    client = Client(enforce_csrf_checks=True)
    login(client, dev_idp, people.patient(world.patient_a))
    page = client.get("/me/consents/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    before = client.cookies["csrftoken"].value
    assert client.post("/logout/", {"csrfmiddlewaretoken": token}).status_code == 302
    assert client.cookies["csrftoken"].value != before
    stale = client.post("/logout/", {"csrfmiddlewaretoken": token}, HTTP_ACCEPT="text/html")
    assert stale.status_code == 403 and "This form has expired" in stale.content.decode()


def test_the_absolute_session_lifetime_ends_even_an_active_session(people, world, signed_in, settings):
    client = signed_in(people.patient(world.patient_a))
    assert client.get("/me/").status_code == 200
    session = client.session
    session["portal_login_at"] = int(time.time()) - settings.PORTAL_SESSION_ABSOLUTE_SECONDS - 1
    session.save()
    response = client.get("/me/")
    assert response.status_code == 302 and "expired=1" in response["Location"]
    assert client.get("/me/").status_code == 302  # logged out, not just redirected once


def test_a_form_sent_after_the_session_ended_comes_back_to_its_page_after_signing_in(people, world, dev_idp):
    """The session ended while a form was open: sending it changes nothing, the sign-in page says so, and signing
    in again lands on the page the form was on, not on the button's address (which answers only a POST: 405)."""
    sub = people.patient(world.patient_a)
    client = Client()
    login(client, dev_idp, sub)
    assert client.get("/me/consents/").status_code == 200
    client.logout()  # the session ended (inactivity) while the page was open
    sent = client.post("/me/consents/give/", {"purpose": "communication"}, HTTP_ACCEPT="text/html",
                       HTTP_REFERER="http://testserver/me/consents/")
    assert sent.status_code == 302
    query = parse_qs(urlparse(sent["Location"]).query)
    assert query["next"] == ["/me/consents/"] and query["expired"] == ["form"]
    page = client.get(sent["Location"]).content.decode()
    assert "was not saved and nothing was changed" in page
    back = login(client, dev_idp, sub, next_url=query["next"][0])
    assert back.status_code == 302 and back["Location"] == "/me/consents/"
    consents = client.get(back["Location"])
    assert consents.status_code == 200 and "Withdraw consent" not in consents.content.decode()  # none was given
    # the page the form is on says so too, where it is filled in again; once
    assert "so it was not saved and nothing was changed. Fill it in again" in consents.content.decode()
    assert "Fill it in again" not in client.get("/me/consents/").content.decode()
    # a sign-in that follows no unsent form says nothing of one
    client.logout()
    landing = client.get(login(client, dev_idp, sub)["Location"], follow=True)
    assert landing.status_code == 200 and "Fill it in again" not in landing.content.decode()
    # a form from another site (or none named) returns to the start page, never elsewhere
    client.logout()
    elsewhere = client.post("/me/consents/give/", {"purpose": "communication"},
                            HTTP_REFERER="https://evil.example/me/consents/")
    assert parse_qs(urlparse(elsewhere["Location"]).query) == {"expired": ["form"]}


def test_the_inactivity_timeout_is_a_short_sliding_session(settings, people, world, signed_in):
    assert settings.SESSION_COOKIE_AGE <= 30 * 60 and settings.SESSION_SAVE_EVERY_REQUEST
    client = signed_in(people.patient(world.patient_a))
    from django.contrib.sessions.models import Session

    session = Session.objects.get(session_key=client.session.session_key)
    Session.objects.filter(pk=session.pk).update(expire_date=session.expire_date.replace(year=2000))
    assert client.get("/me/").status_code == 302


def test_the_footer_states_the_inactivity_timeout_the_session_has(settings, people, world, signed_in):
    """The footer said 15 minutes whatever PORTAL_SESSION_IDLE_SECONDS set."""
    client = signed_in(people.patient(world.patient_a))
    assert "Sessions end after 15 minutes without activity." in client.get("/me/").content.decode()
    settings.SESSION_COOKIE_AGE = 30 * 60
    assert "Sessions end after 30 minutes without activity." in client.get("/me/").content.decode()
    assert "Sessions end after 30 minutes" in Client().get("/login/").content.decode()


def test_login_callbacks_are_rate_limited_per_address(people, world, settings, dev_idp):
    settings.PORTAL_LOGIN_CALLBACK_RATE = 3
    client = Client(REMOTE_ADDR="10.9.8.7")
    statuses = [client.get("/oidc/callback/?code=x&state=y").status_code for _ in range(5)]
    assert statuses[-1] == 429 and statuses.count(429) == 2
    assert Client(REMOTE_ADDR="10.9.8.6").get("/oidc/callback/?code=x&state=y").status_code != 429


def test_the_login_callback_limit_holds_across_worker_processes(people, world, settings, dev_idp):
    """Each worker process had its own counter (Django's local-memory cache): with N workers an address had N
    times the allowance. The counts are in the database now: a process whose cache is empty (another worker's)
    still refuses, with Retry-After within the minute."""
    from django.core.cache import cache

    settings.PORTAL_LOGIN_CALLBACK_RATE = 3
    statuses = []
    for _ in range(5):
        cache.clear()  # as the next request landing on another worker
        statuses.append(Client(REMOTE_ADDR="10.9.8.5").get("/oidc/callback/?code=x&state=y"))
    assert [r.status_code for r in statuses].count(429) == 2
    assert 1 <= int(statuses[-1]["Retry-After"]) <= 60


def test_sign_in_callbacks_sweep_old_counter_windows_and_keep_the_current_one(people, world, settings, dev_idp):
    """A service whose only traffic is the portal made no API request to sweep the shared counters: sign-in
    callbacks sweep old windows too (a share of them), never the current minute's count."""
    from django.db import connection

    settings.PORTAL_LOGIN_CALLBACK_RATE = 3
    settings.API_RATE_LIMIT_SWEEP_SHARE = 1.0
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO api_rate_counter (bucket, window_number, backend, hits) VALUES ('old', 1, 1, 9)")
    statuses = [Client(REMOTE_ADDR="10.9.8.4").get("/oidc/callback/?code=x&state=y").status_code for _ in range(4)]
    assert statuses[-1] == 429  # each sweep kept the minute's count
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM api_rate_counter WHERE bucket = 'old'")
        assert cursor.fetchone()[0] == 0


def test_a_flood_of_forged_callbacks_from_a_nat_address_locks_out_nobody_signing_in_there(people, world, settings,
                                                                                         dev_idp):
    """A hospital's staff sign in from one NAT address. More sign-ins than the per-browser limit succeed there,
    and forged callbacks from the same address (over their limit, 429) do not spend the sign-ins' allowance."""
    settings.PORTAL_LOGIN_CALLBACK_RATE = 2
    address = "10.20.30.40"
    forged = [Client(REMOTE_ADDR=address).get("/oidc/callback/?code=x&state=y").status_code for _ in range(4)]
    assert forged[-1] == 429
    for n in range(4):
        client = Client(REMOTE_ADDR=address)
        back = login(client, dev_idp, people.staff(f"nurse{n}"))
        assert back.status_code == 302 and client.get("/staff/").status_code == 200
    # the address's allowance for sign-ins begun here is a ceiling too
    settings.PORTAL_LOGIN_CALLBACK_RATE_PER_ADDRESS = 4
    assert login(Client(REMOTE_ADDR=address), dev_idp, people.staff("nurse9")).status_code == 429
    assert login(Client(REMOTE_ADDR="10.20.30.41"), dev_idp, people.staff("nurse9")).status_code == 302


def test_a_browser_looping_through_sign_ins_is_limited_on_its_own(people, world, settings, dev_idp):
    settings.PORTAL_LOGIN_CALLBACK_RATE = 2
    client = Client(REMOTE_ADDR="10.20.30.50")
    answers = []
    for _ in range(3):
        state = parse_qs(urlparse(client.get("/oidc/authenticate/")["Location"]).query)["state"][0]
        answers.append(client.get(f"/oidc/callback/?error=access_denied&state={state}").status_code)
    assert answers == [403, 403, 429]
    assert login(Client(REMOTE_ADDR="10.20.30.50"), dev_idp, people.staff()).status_code == 302


def test_pages_carry_csp_frame_and_cookie_protections(people, world, signed_in):
    client = signed_in(people.patient(world.patient_a))
    response = client.get("/me/")
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert response["X-Frame-Options"] == "DENY"
    assert "no-store" in response["Cache-Control"]
    cookie = client.cookies["sessionid"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    assert b"<script" not in response.content


def test_a_pages_notice_is_kept_in_the_session_never_in_a_readable_cookie(people, world, signed_in):
    """"Consent given for: Communication with the patient" says what the patient did: Django's default keeps it
    in a cookie anyone with the browser (or a proxy's log) reads as base64 JSON, and sign-out does not end."""
    client = signed_in(people.patient(world.patient_a))
    given = client.post("/me/consents/give/", {"purpose": "communication"})
    assert given.status_code == 302
    assert "messages" not in given.cookies and "messages" not in client.cookies
    page = client.get(given["Location"]).content.decode()
    assert "Consent given for: Communication with the patient." in page
    assert "Consent given for" not in client.get("/me/consents/").content.decode()  # shown once


def test_unauthenticated_visitors_are_sent_to_sign_in():
    for path in ["/me/", "/me/consents/", "/me/activity/", "/staff/", "/staff/access/", "/staff/workflows/"]:
        response = Client().get(path)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), path


def test_there_is_no_second_login_page_django_admin_is_not_served():
    """Every person signs in through the identity provider; Django's admin (a password login under no RLS
    identity) is not reachable."""
    for path in ["/admin/", "/admin/login/"]:
        assert Client().get(path).status_code == 404, path


def _portal_patterns(resolver=None, prefix=""):
    resolver = resolver or get_resolver()
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            yield from _portal_patterns(p, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            yield prefix + str(p.pattern), p


def test_every_portal_page_goes_through_the_identity_wrapper_and_urls_hold_only_ids():
    """No portal view can forget the identity context; no URL carries a value (only UUID path parameters)."""
    open_pages = {"", "login/", "logout/", "signed-out/", "oidc/callback/", "oidc/authenticate/", "oidc/logout/"}
    for route, pattern in _portal_patterns():
        if route.startswith(("v1/", "admin/", "health/")) or route in open_pages:
            continue
        if route == "metrics":  # the operators' endpoint: no patient data, its own bearer credential
            continue
        assert getattr(pattern.callback, PORTAL_ATTR, None) is not None, route
        for part in route.split("<")[1:]:
            assert part.startswith("uuid:"), route


def test_a_patient_cannot_open_staff_pages(people, world, signed_in):
    client = signed_in(people.patient(world.patient_a))
    assert client.get("/staff/access/").status_code == 403
    assert client.get(f"/staff/patients/{uuid.uuid4()}/").status_code == 403


def test_a_login_for_an_organisation_not_registered_for_the_provider_is_refused(people, dev_idp):
    """As the API answers such tokens 403 unknown_organization: no session, no account."""
    sub = people.raw("stranger", {"name": "Stranger", "role": "org_admin", "org_id": str(uuid.uuid4()),
                                  "scope": "grant:write"})
    client = Client()
    response = login(client, dev_idp, sub)
    assert response.status_code == 403 and b"Sign-in did not complete" in response.content
    assert client.get("/staff/").status_code == 302  # still signed out
    assert not PortalIdentity.objects.filter(subject=sub).exists()


def test_a_session_of_an_organisation_removed_from_the_registry_sees_nothing_more(people, world, signed_in):
    client = signed_in(people.patient(world.patient_a))
    assert client.get("/me/").status_code == 200
    register_organization(world.org, ISSUER)  # the organisation no longer trusts the portal's provider
    response = client.get("/me/")
    assert response.status_code == 403 and str(world.patient_a).encode() not in response.content


def test_a_user_made_inactive_is_signed_out_of_the_sessions_they_have(people, world, signed_in, dev_idp):
    """Making a portal user inactive (``is_active = False``, Django's one switch for it) refuses their next sign-in,
    and ends the sessions they already have at their next page: mozilla-django-oidc's backend handed the session
    its user back whether active or not, so an open session kept every page for up to eight hours."""
    sub = people.patient(world.patient_a)
    client = signed_in(sub)
    assert client.get("/me/").status_code == 200
    get_user_model().objects.filter(portal_identity__subject=sub).update(is_active=False)
    response = client.get("/me/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert login(Client(), dev_idp, sub).status_code == 403


def test_the_api_never_takes_the_portal_session_and_the_browser_layers_stand_aside_there(people, world, dev_idp):
    """A signed-in browser's cookies on the bearer-token paths: no session is read, renewed or set there (no
    ``Set-Cookie``, no ``Vary: Cookie``), no CSRF check stands in for the missing token (401, not 403), and the
    headers every response carries are still there. The pages keep the whole browser chain."""
    from django.contrib.sessions.models import Session

    client = Client(enforce_csrf_checks=True)
    login(client, dev_idp, people.patient(world.patient_a))
    key = client.cookies["sessionid"].value
    expiry = Session.objects.get(session_key=key).expire_date
    path = f"/v1/patients/{world.patient_a}/memories"
    for response, status in ((client.get(path), 401), (client.post(path, data="{}", content_type="application/json"),
                                                       401), (client.get("/health/live"), 200)):
        assert response.status_code == status, (response.status_code, response.content[:200])
        assert "Set-Cookie" not in response.headers and "Cookie" not in response.get("Vary", "")
        assert response["X-Frame-Options"] == "DENY" and response["X-Request-ID"]
    assert client.post(path, data="{}", content_type="application/json").json()["code"] != "csrf_failed"
    assert Session.objects.get(session_key=key).expire_date == expiry  # API calls are not portal activity
    page = client.get("/me/")  # a page renews the sliding session
    assert page.status_code == 200 and page.cookies["sessionid"].value == key
    assert Session.objects.get(session_key=key).expire_date >= expiry
    assert client.get("/v1/docs").status_code in (200, 301, 302)


@pytest.mark.parametrize("query", ["code=x&state=y", "error=access_denied", "error=access_denied&state=y",
                                   "code=x"])
def test_a_forged_or_failed_callback_leaves_a_signed_in_session_alone(people, world, signed_in, query):
    """Any site can link to /oidc/callback/ (a top-level GET carries the session cookie): the failure is shown,
    and the user stays signed in (it was a way to sign anyone out)."""
    client = signed_in(people.patient(world.patient_a))
    key = client.session.session_key
    response = client.get(f"/oidc/callback/?{query}")
    assert response.status_code == 403 and "Sign-in did not complete" in response.content.decode()
    assert "still signed in" in response.content.decode()
    assert client.get("/me/").status_code == 200 and client.session.session_key == key


def test_a_callback_with_an_unknown_state_during_a_sign_in_leaves_the_session_alone(people, world, signed_in,
                                                                                     dev_idp):
    """The user began signing in again (the session holds a state) and a forged callback arrives with another
    state: refused, and the earlier session goes on."""
    client = signed_in(people.patient(world.patient_a))
    assert client.get("/oidc/authenticate/").status_code == 302
    assert client.session.get("oidc_states")
    response = client.get("/oidc/callback/?code=x&state=forged")
    assert response.status_code == 403
    assert client.get("/me/").status_code == 200


def test_a_provider_error_spends_the_state_it_answers(people, world, dev_idp):
    """The error answer to a sign-in the user started: that state can no longer be used."""
    client = Client()
    start = client.get("/oidc/authenticate/")
    state = parse_qs(urlparse(start["Location"]).query)["state"][0]
    assert state in client.session["oidc_states"]
    response = client.get(f"/oidc/callback/?error=access_denied&state={state}")
    assert response.status_code == 403 and "Back to sign in" in response.content.decode()
    assert state not in client.session.get("oidc_states", {})
