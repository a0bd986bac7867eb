"""Starting a sign-in (``/oidc/authenticate/``) writes a session row for its state: bounded per client address, in
the shared counters; addresses grouped as a client holds them (an IPv6 /64, an IPv4-mapped address as IPv4); and
the rows of sign-ins never finished are swept."""

from __future__ import annotations

import datetime
import re

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from core.gate import address_group
from tests.portal.conftest import login

pytestmark = pytest.mark.django_db


def test_sign_in_starts_without_a_session_are_limited_per_address_and_write_nothing_beyond(people, world, settings):
    """A script calling /oidc/authenticate/ without cookies wrote a session row per call, without end."""
    settings.PORTAL_LOGIN_START_RATE_PER_ADDRESS = 3
    before = Session.objects.count()
    answers = [Client(REMOTE_ADDR="10.7.7.7").get("/oidc/authenticate/") for _ in range(5)]
    assert [a.status_code for a in answers] == [302, 302, 302, 429, 429]
    assert 1 <= int(answers[-1]["Retry-After"]) <= 60
    assert Session.objects.count() == before + 3
    # another address is not held back
    assert Client(REMOTE_ADDR="10.7.7.8").get("/oidc/authenticate/").status_code == 302


def test_a_browser_with_its_session_starts_again_without_spending_the_addresss_allowance(people, world, settings,
                                                                                        dev_idp):
    settings.PORTAL_LOGIN_START_RATE_PER_ADDRESS = 2
    client = Client(REMOTE_ADDR="10.7.7.9")
    assert [client.get("/oidc/authenticate/").status_code for _ in range(4)] == [302] * 4
    assert login(client, dev_idp, people.staff()).status_code == 302


@pytest.mark.parametrize(("address", "grouped"), [
    ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
    ("2001:DB8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
    ("::ffff:10.1.2.3", "10.1.2.3"),
    ("10.1.2.3", "10.1.2.3"),
    ("fe80::1%eth0", "fe80::/64"),
    ("unknown", "unknown"),
])
def test_addresses_are_grouped_as_a_client_holds_them(address, grouped):
    assert address_group(address) == grouped


def test_a_client_rotating_through_its_ipv6_64_spends_one_allowance(people, world, settings):
    """Per-address limits counted each full IPv6 address: a client holding a /64 had 2^64 allowances."""
    settings.PORTAL_LOGIN_CALLBACK_RATE = 2
    settings.PORTAL_LOGIN_START_RATE_PER_ADDRESS = 2
    callbacks = [Client(REMOTE_ADDR=f"2001:db8:5:6::{n:x}").get("/oidc/callback/?code=x&state=y").status_code
                 for n in range(1, 4)]
    assert callbacks[-1] == 429
    starts = [Client(REMOTE_ADDR=f"2001:db8:5:6:{n:x}::1").get("/oidc/authenticate/").status_code
              for n in range(1, 4)]
    assert starts == [302, 302, 429]
    # the next /64 is someone else
    assert Client(REMOTE_ADDR="2001:db8:5:7::1").get("/oidc/authenticate/").status_code == 302
    assert Client(REMOTE_ADDR="2001:db8:5:7::1").get("/oidc/callback/?code=x&state=y").status_code != 429


def test_an_ipv4_mapped_address_shares_the_ipv4_addresss_allowance(people, world, settings):
    settings.PORTAL_LOGIN_START_RATE_PER_ADDRESS = 2
    assert Client(REMOTE_ADDR="10.8.8.8").get("/oidc/authenticate/").status_code == 302
    assert Client(REMOTE_ADDR="::ffff:10.8.8.8").get("/oidc/authenticate/").status_code == 302
    assert Client(REMOTE_ADDR="::ffff:a08:808").get("/oidc/authenticate/").status_code == 429


def test_sign_ins_never_finished_are_swept_once_expired(people, world, settings):
    """Abandoned sign-in sessions stayed until someone ran clearsessions: starts sweep expired rows (a share of
    them), never one still alive."""
    settings.API_RATE_LIMIT_SWEEP_SHARE = 1.0
    Client(REMOTE_ADDR="10.7.6.1").get("/oidc/authenticate/")
    Client(REMOTE_ADDR="10.7.6.2").get("/oidc/authenticate/")
    stale, alive = list(Session.objects.order_by("expire_date"))[-2:]
    Session.objects.filter(pk=stale.pk).update(expire_date=timezone.now() - datetime.timedelta(seconds=1))
    assert Client(REMOTE_ADDR="10.7.6.3").get("/oidc/authenticate/").status_code == 302
    assert not Session.objects.filter(pk=stale.pk).exists()
    assert Session.objects.filter(pk=alive.pk).exists()


def test_forms_sent_without_a_session_write_no_session_rows_beyond_the_addresss_allowance(people, world, settings,
                                                                                          dev_idp):
    """A form sent once the session had ended wrote a session row for the sign-in page's notice: with a CSRF token
    read once (any signed-in page), a script posting without a session cookie wrote a row per post, without end."""
    signed = Client(enforce_csrf_checks=True, REMOTE_ADDR="10.7.5.2")
    login(signed, dev_idp, people.patient(world.patient_a))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"',
                      signed.get("/me/consents/").content.decode()).group(1)
    settings.PORTAL_LOGIN_START_RATE_PER_ADDRESS = 2
    before = Session.objects.count()
    answers = []
    for _ in range(4):
        script = Client(enforce_csrf_checks=True, REMOTE_ADDR="10.7.5.1")
        script.cookies["csrftoken"] = signed.cookies["csrftoken"].value
        answers.append(script.post("/me/consents/give/", {"csrfmiddlewaretoken": token, "purpose": "communication"},
                                   HTTP_ACCEPT="text/html", HTTP_REFERER="http://testserver/me/consents/"))
    # each still goes to the sign-in page, which says the form was not saved; only two rows were written
    assert all(a.status_code == 302 and "expired=form" in a["Location"] for a in answers)
    assert Session.objects.count() == before + 2


def test_sign_in_starts_through_a_trusted_proxy_spend_each_clients_own_allowance(people, world, settings):
    """Behind a reverse proxy every sign-in began from the proxy's address: a few scripted starts held back every
    patient's sign-in. Through a proxy ``TRUSTED_PROXIES`` names, each client is counted by the address the proxy
    saw (X-Forwarded-For), as the API counts failed authentications."""
    settings.PORTAL_LOGIN_START_RATE_PER_ADDRESS = 2
    settings.TRUSTED_PROXIES = ["10.6.0.1"]

    def start(client: str) -> int:
        return Client(REMOTE_ADDR="10.6.0.1", HTTP_X_FORWARDED_FOR=client).get("/oidc/authenticate/").status_code

    assert [start("203.0.113.20") for _ in range(3)] == [302, 302, 429]
    assert start("203.0.113.21") == 302
