"""Event subscriptions (webhooks), end to end with real commits and a real HTTPS receiver in this process: an
organisation's administrator registers an endpoint; the changes that matter are written to the event outbox in the
change's own transaction; the delivery worker posts them signed in the Standard Webhooks format (checked by the
receiver with the ``standardwebhooks`` package), retries after a 500 and after a timeout with the same id, and gives
up after its attempt limit. Payloads carry ids, types and purposes, never values; one organisation never sees or
receives another's events; a change that rolls back sends nothing."""

from __future__ import annotations

import io
import json
import threading
import time
import uuid

import pytest
from django.core.management import call_command
from django.db import ProgrammingError, connection, connections

from consent import services as consent_services
from core.identity import Identity, identity_context
from events import signing
from events.delivery import DeliveryWorker
from events.services import event_emit
from memory.deletion import memory_erase_patient
from tests.conftest import admin_connect, memory_body
from tests.fakes.outside import FakeOutsideSystem
from tests.fakes.processes import wait_until
from tests.fakes.webhook_receiver import WebhookReceiver
from tests.support import PATIENT_SCOPES, Api, mint
from workflows.adapters import SPECS, OutsideSystem
from workflows.definitions import INSURER
from workflows.worker import Worker

ADMIN_SCOPES = "webhook:admin grant:write"
ALL_TYPES = ["memory.proposed", "memory.confirmed", "memory.deleted", "patient.erased", "consent.revoked",
             "grant.revoked", "workflow.needs_reconciliation"]
SUBS = "/v1/event-subscriptions"


@pytest.fixture
def receiver(settings):
    fake = WebhookReceiver()
    settings.EVENT_DELIVERY_CA_BUNDLE = str(fake.ca_bundle)
    settings.EVENT_DELIVERY_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    settings.EVENT_DELIVERY_TIMEOUT_SECONDS = 0.5
    settings.EVENT_DELIVERY_RETRY_BASE_SECONDS = 0.05
    settings.EVENT_DELIVERY_RETRY_MAX_SECONDS = 0.2
    settings.EVENT_DELIVERY_MAX_ATTEMPTS = 5
    yield fake
    fake.stop()


def admin(world, org=None) -> Api:
    return Api(mint(world.keyring, sub="webhook-admin", org_id=org or world.org, scope=ADMIN_SCOPES))


def subscribe(world, receiver: WebhookReceiver, *, org=None, types=None) -> dict:
    r = admin(world, org).post(SUBS, {"url": receiver.url, "event_types": types or ALL_TYPES})
    assert r.status_code == 201, r.content
    receiver.secret = r.json()["secret"]
    return r.json()


def deliver(until=None, timeout: float = 20.0) -> None:
    """Run the worker until nothing is due (and, given ``until``, until it holds: retries come due later)."""
    def done() -> bool:
        DeliveryWorker(name="test-events", lease_seconds=2.0, poll_seconds=0.02).run(until_idle=True)
        return until is None or until()
    wait_until(done, timeout=timeout, message="deliveries")


def deliveries(org) -> list[tuple]:
    with admin_connect() as conn:
        return conn.execute("SELECT e.event_type, d.status, d.attempts, d.last_status_code, d.last_error_code "
                            "FROM event_delivery d JOIN event_outbox e USING (event_id) "
                            "WHERE d.organization_id = %s ORDER BY d.created_at", [org]).fetchall()


def without_timestamp(message) -> str:
    """A message's body without the change's timestamp, which may hold a fact's value by chance ("06:41" at 06:41)."""
    return json.dumps({k: v for k, v in message.payload.items() if k != "timestamp"})


def outbox_count() -> int:
    with admin_connect() as conn:
        return conn.execute("SELECT (SELECT count(*) FROM event_outbox) + (SELECT count(*) FROM event_delivery)"
                            ).fetchone()[0]


# --- the API ------------------------------------------------------------------------------------------------------
def test_an_administrator_registers_lists_reads_pauses_and_deletes_a_subscription(world, committed_db, receiver):
    created = subscribe(world, receiver, types=["consent.revoked"])
    assert created["secret"].startswith("whsec_") and len(signing.secret_bytes(created["secret"])) == 32
    sid = created["subscription_id"]
    api = admin(world)
    listed = api.get(SUBS).json()["items"]
    assert [s["subscription_id"] for s in listed] == [sid]
    assert "secret" not in listed[0], "the secret is shown once, at creation"
    read = api.get(f"{SUBS}/{sid}").json()
    assert read["subscription"]["event_types"] == ["consent.revoked"] and read["deliveries"] == []
    assert "secret" not in json.dumps(read)
    r = api.request("PATCH", f"{SUBS}/{sid}", {"enabled": False, "event_types": ["grant.revoked", "memory.deleted"]})
    assert r.status_code == 200 and r.json()["enabled"] is False
    assert r.json()["event_types"] == ["memory.deleted", "grant.revoked"]
    assert api.request("DELETE", f"{SUBS}/{sid}").status_code == 204
    assert api.get(f"{SUBS}/{sid}").status_code == 404
    with admin_connect() as conn:
        actions = [tuple(row) for row in conn.execute(
            "SELECT action, outcome FROM audit_event WHERE organization_id = %s "
            "AND resource_type = 'event_subscription' ORDER BY occurred_at", [world.org]).fetchall()]
        stored = conn.execute("SELECT count(*) FROM event_subscription").fetchone()[0]
    assert actions == [("event_subscription.create", "success"), ("event_subscription.list", "success"),
                       ("event_subscription.read", "success"), ("event_subscription.update", "success"),
                       ("event_subscription.delete", "success"), ("event_subscription.read", "denied")]
    assert stored == 0


def test_the_secret_is_stored_encrypted_and_a_supplied_one_is_used(world, committed_db, receiver):
    secret = signing.new_secret()
    r = admin(world).post(SUBS, {"url": receiver.url, "event_types": ["consent.revoked"], "secret": secret})
    assert r.status_code == 201 and r.json()["secret"] == secret
    with admin_connect() as conn:
        (ciphertext,) = conn.execute("SELECT secret_ciphertext FROM event_subscription").fetchone()
    assert secret.encode() not in bytes(ciphertext) and signing.secret_bytes(secret) not in bytes(ciphertext)


@pytest.mark.parametrize(("body", "field", "code"), [
    ({"url": "http://hooks.example.org/x"}, "url", "https_required"),
    ({"url": "https://user:pw@hooks.example.org/x"}, "url", "credentials_in_url"),
    ({"url": "https://10.1.2.3/x"}, "url", "destination_not_allowed"),
    ({"url": "https://[::1]:8443/x"}, "url", "destination_not_allowed"),
    ({"url": "https://169.254.169.254/latest"}, "url", "destination_not_allowed"),
    # IPv6 addresses that carry a private IPv4 one a gateway reaches: NAT64, 6to4, IPv4-compatible
    ({"url": "https://[64:ff9b::a00:1]/x"}, "url", "destination_not_allowed"),
    ({"url": "https://[64:ff9b:1::7f00:1]/x"}, "url", "destination_not_allowed"),
    ({"url": "https://[2002:a9fe:a9fe::1]/x"}, "url", "destination_not_allowed"),
    ({"url": "https://[::127.0.0.1]/x"}, "url", "destination_not_allowed"),
    # IPv4 written in the other forms the worker's look-up reads (inet_aton): 127.0.0.1 and 10.0.0.1; localhost
    ({"url": "https://127.1/x"}, "url", "destination_not_allowed"),
    ({"url": "https://2130706433/x"}, "url", "destination_not_allowed"),
    ({"url": "https://0x7f000001/x"}, "url", "destination_not_allowed"),
    ({"url": "https://10.1/x"}, "url", "destination_not_allowed"),
    ({"url": "https://localhost/x"}, "url", "destination_not_allowed"),
    ({"url": "https://hooks.LOCALHOST./x"}, "url", "destination_not_allowed"),
    ({"url": "https:///nohost"}, "url", "invalid"),
    ({"url": "https://hooks.example.org/x#frag"}, "url", "invalid"),
    ({"url": "https://hooks..example.org/x"}, "url", "invalid"),
    ({"url": f"https://{'a' * 64}.example.org/x"}, "url", "invalid"),
    ({"url": "https://010.8.8.8/x"}, "url", "invalid"),
    ({"url": "https://ex\u00adample.org/x"}, "url", "invalid"),
    # a description an administrator reads: no control characters, no direction controls ('see \u202efiler')
    ({"description": "see \u202efiler"}, "description", "unstorable_character"),
    ({"description": "bell\x07"}, "description", "unstorable_character"),
    ({"event_types": ["memory.read"]}, "event_types.0", "invalid_choice"),
    ({"event_types": []}, "event_types", "min_length"),
    ({"secret": "not-a-secret"}, "secret", "invalid"),
    ({"secret": "whsec_" + "QUJD"}, "secret", "invalid"),
    ({"colour": "red"}, "colour", None),
])
def test_a_bad_subscription_is_refused_with_its_field_and_code_and_nothing_is_written(world, committed_db, body,
                                                                                       field, code):
    full = {"url": "https://hooks.example.org/anamnesis", "event_types": ["consent.revoked"], **body}
    r = admin(world).post(SUBS, full)
    assert r.status_code == 422, r.content
    errors = r.json()["errors"]
    assert any(e["field"] == field and (code is None or e["code"] == code) for e in errors), errors
    with admin_connect() as conn:
        assert conn.execute("SELECT count(*) FROM event_subscription").fetchone()[0] == 0


def test_a_description_with_a_direction_control_is_refused_on_change_too(world, committed_db):
    """What an administrator reads back shows what it holds: a change of the description to text with a direction
    override or a control character is 422 unstorable_character, and the description stays."""
    r = admin(world).post(SUBS, {"url": "https://hooks.example.org/in", "event_types": ["consent.revoked"],
                                 "description": "billing"})
    assert r.status_code == 201, r.content
    sid = r.json()["subscription_id"]
    for text in ("see \u202efiler", "tab\tok\x1b[31m"):
        r = admin(world).request("PATCH", f"{SUBS}/{sid}", {"description": text})
        assert r.status_code == 422 and r.json()["errors"][0]["code"] == "unstorable_character", r.content
    assert admin(world).get(f"{SUBS}/{sid}").json()["subscription"]["description"] == "billing"
    r = admin(world).request("PATCH", f"{SUBS}/{sid}", {"description": "rapports \u05e2\u05d1\u05e8\u05d9\u05ea\tok"})
    assert r.status_code == 200, r.content


def test_a_url_whose_scheme_is_not_in_lower_case_is_stored_in_lower_case(world, committed_db):
    """A URL scheme is case-insensitive: ``HTTPS://`` is accepted, on creation and on change, and stored as
    ``https://`` (it used to pass the check and then break the table's constraint: a 500 with nothing written)."""
    r = admin(world).post(SUBS, {"url": "HTTPS://Hooks.Example.org/In", "event_types": ["consent.revoked"]})
    assert r.status_code == 201, r.content
    assert r.json()["url"] == "https://Hooks.Example.org/In"
    sid = r.json()["subscription_id"]
    r = admin(world).request("PATCH", f"{SUBS}/{sid}", {"url": "hTtPs://hooks.example.org/other"})
    assert r.status_code == 200, r.content
    assert admin(world).get(f"{SUBS}/{sid}").json()["subscription"]["url"] == "https://hooks.example.org/other"


def test_only_administrators_reach_subscriptions_and_another_organisations_is_not_found(world, committed_db,
                                                                                         receiver):
    sid = subscribe(world, receiver)["subscription_id"]
    nurse = world.staff("nurse-1", scope="consent:read grant:write audit:read")
    assert nurse.get(SUBS).status_code == 403
    assert nurse.post(SUBS, {"url": receiver.url, "event_types": ALL_TYPES}).status_code == 403
    patient = Api(mint(world.keyring, sub="p", org_id=world.org, patient_id=world.patient_a,
                       scope=PATIENT_SCOPES + " webhook:admin"))
    agent = Api(mint(world.keyring, sub="webhook-admin", org_id=world.org, scope=ADMIN_SCOPES, act="some-agent"))
    for caller in (patient, agent):
        assert caller.get(SUBS).status_code == 403
        r = caller.post(SUBS, {"url": receiver.url, "event_types": ALL_TYPES})
        assert r.status_code == 403 and r.json()["code"] in ("forbidden", "agent_cannot_grant")
        assert caller.request("DELETE", f"{SUBS}/{sid}").status_code == 403
    other = admin(world, world.other_org)
    assert other.get(SUBS).json()["items"] == []
    missing = other.get(f"{SUBS}/{uuid.uuid4()}")
    for r in (other.get(f"{SUBS}/{sid}"), other.request("PATCH", f"{SUBS}/{sid}", {"enabled": False}),
              other.request("DELETE", f"{SUBS}/{sid}")):
        assert r.status_code == 404 and r.json()["code"] == missing.json()["code"] == "not_found"
    assert admin(world).get(f"{SUBS}/{sid}").json()["subscription"]["enabled"] is True


# --- delivery -----------------------------------------------------------------------------------------------------
def test_events_arrive_signed_with_ids_types_and_purposes_and_never_values(world, committed_db, receiver):
    subscribe(world, receiver)
    subscribe_other = WebhookReceiver()
    try:
        # The other organisation subscribes to everything too (its own receiver, trusted by the same bundle? no:
        # its own CA; it must receive nothing, so trust does not matter).
        r = admin(world, world.other_org).post(SUBS, {"url": subscribe_other.url, "event_types": ALL_TYPES})
        assert r.status_code == 201
        subscribe_other.secret = r.json()["secret"]
        pid = world.patient_a
        patient = world.patient(pid)
        cid = world.consent(pid)
        r = patient.post(f"/v1/patients/{pid}/memories", memory_body(cid, "earliest_time", "07:45"))
        assert r.status_code == 201, r.content
        memory_id = r.json()["memory_id"] if "memory_id" in r.json() else r.json()["memory"]["memory_id"]
        agent = Api(mint(world.keyring, sub=f"patient-{pid}", org_id=world.org, patient_id=pid,
                         scope=PATIENT_SCOPES, act="scheduling-agent"))
        r = agent.post(f"/v1/patients/{pid}/memories", memory_body(cid, "latest_time", "16:35"))
        assert r.status_code == 201 and r.json()["memory"]["state"] == "proposed", r.content
        proposal = r.json()["memory"]["memory_id"]
        assert patient.post(f"/v1/patients/{pid}/memories/{proposal}/confirm").status_code == 200
        assert patient.request("DELETE", f"/v1/patients/{pid}/memories/{memory_id}").status_code == 200
        grant = world.grant(pid, "nurse-7", "appointment_scheduling")
        r = admin(world).post(f"/v1/grants/{grant['grant_id']}/revoke", {})
        assert r.status_code == 200, r.content
        assert patient.post(f"/v1/patients/{pid}/consents/{cid}/revoke").status_code == 200
        deliver(until=lambda: len(receiver.received) >= 5)
    finally:
        subscribe_other.stop()
    got = [(m.payload["type"], m.payload["data"]) for m in receiver.received]
    assert all(m.verified for m in receiver.received), "every message verifies under the subscription's secret"
    # delivered concurrently: in any order
    assert sorted(t for t, _ in got) == ["consent.revoked", "grant.revoked", "memory.confirmed", "memory.deleted",
                                         "memory.proposed"]
    by_type = dict(got)
    common = {"organization_id": str(world.org), "patient_id": str(pid)}
    assert by_type["memory.proposed"] == {**common, "memory_id": proposal, "memory_type": "scheduling_preference",
                                          "purpose": "appointment_scheduling"}
    assert by_type["memory.confirmed"] == by_type["memory.proposed"]
    assert by_type["memory.deleted"] == {**common, "memory_id": memory_id, "memory_type": "scheduling_preference",
                                         "purpose": "appointment_scheduling",
                                         "deletion_id": by_type["memory.deleted"]["deletion_id"]}
    assert by_type["grant.revoked"] == {**common, "grant_id": grant["grant_id"], "purpose": "appointment_scheduling",
                                        "actor_sub": "nurse-7"}
    assert by_type["consent.revoked"] == {**common, "consent_id": cid, "purpose": "appointment_scheduling"}
    everything = " ".join(without_timestamp(m) for m in receiver.received)
    assert "07:45" not in everything and "16:35" not in everything, "values never leave in an event"
    ids = [m.headers["webhook-id"] for m in receiver.received]
    assert len(set(ids)) == len(ids) and all(uuid.UUID(i) for i in ids)
    assert subscribe_other.received == [], "another organisation's endpoint receives nothing of this one's"
    assert [row[:2] for row in deliveries(world.org)] == [(t, "delivered") for t in [
        "memory.proposed", "memory.confirmed", "memory.deleted", "grant.revoked", "consent.revoked"]]
    assert deliveries(world.other_org) == [], "nothing was queued for the other organisation"


def test_a_tampered_or_replayed_message_does_not_verify(world, committed_db, receiver):
    subscribe(world, receiver, types=["consent.revoked"])
    cid = world.consent(world.patient_a)
    assert world.patient(world.patient_a).post(
        f"/v1/patients/{world.patient_a}/consents/{cid}/revoke").status_code == 200
    deliver(until=lambda: len(receiver.received) == 1)
    message = receiver.received[0]
    assert message.verified
    assert not receiver.verify(message.body.replace(b"consent.revoked", b"consent.granted"), message.headers)
    old = str(int(time.time()) - 600)
    assert not receiver.verify(message.body, {**message.headers, "webhook-timestamp": old}), \
        "the timestamp is signed: a replay cannot be made to look recent"
    resigned = signing.headers(receiver.secret, msg_id=message.headers["webhook-id"], timestamp=int(old),
                               body=message.body)
    assert not receiver.verify(message.body, resigned), "a message older than the tolerance is refused"


def test_a_500_and_a_timeout_are_retried_with_the_same_id_until_delivered(world, committed_db, receiver):
    sid = subscribe(world, receiver, types=["consent.revoked"])["subscription_id"]
    receiver.fail(1)
    receiver.hang(1, 1.5)
    cid = world.consent(world.patient_a)
    world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
    deliver(until=lambda: deliveries(world.org)[0][1] == "delivered")
    assert [m.answered for m in receiver.received] == [500, None, 200]
    assert len({m.headers["webhook-id"] for m in receiver.received}) == 1, "receivers deduplicate on the id"
    assert len({m.body for m in receiver.received}) == 1
    assert all(m.verified for m in receiver.received)
    (row,) = deliveries(world.org)
    assert row == ("consent.revoked", "delivered", 3, 200, None)
    shown = admin(world).get(f"{SUBS}/{sid}").json()["deliveries"]
    assert [(d["event_type"], d["status"], d["attempts"], d["last_status_code"]) for d in shown] == [
        ("consent.revoked", "delivered", 3, 200)]


def test_an_endpoint_dribbling_its_answer_is_a_timeout_within_the_timeout_and_is_retried(world, committed_db,
                                                                                          receiver):
    """httpx's timeout bounds each read, not the exchange: an endpoint sending its answer a byte every 0.1 s (each
    well within the 0.5 s timeout) held a delivery thread for as long as it liked, here 13 s, and counted as
    delivered. The whole POST now ends within the timeout, as a timeout, and is retried with the same id."""
    subscribe(world, receiver, types=["consent.revoked"])
    receiver.dribble(1)
    cid = world.consent(world.patient_a)
    world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
    started = time.monotonic()
    deliver(until=lambda: deliveries(world.org)[0][1] == "delivered", timeout=30)
    assert time.monotonic() - started < 5
    assert [m.answered for m in receiver.received] == [None, 200]
    assert len({m.headers["webhook-id"] for m in receiver.received}) == 1
    assert deliveries(world.org) == [("consent.revoked", "delivered", 2, 200, None)]


def test_a_dead_endpoint_fails_after_the_attempt_limit_without_holding_up_another(world, committed_db, receiver,
                                                                                  settings):
    settings.EVENT_DELIVERY_MAX_ATTEMPTS = 2
    dead = subscribe(world, receiver, types=["consent.revoked"])
    dead_secret = receiver.secret
    live = WebhookReceiver()
    try:
        r = admin(world).post(SUBS, {"url": live.url, "event_types": ["consent.revoked"]})
        live.secret = r.json()["secret"]
        receiver.fail(100)
        # the live receiver's certificate comes from its own CA: trust both
        bundle = receiver.ca_bundle.parent / "both.pem"
        bundle.write_bytes(receiver.ca_bundle.read_bytes() + live.ca_bundle.read_bytes())
        settings.EVENT_DELIVERY_CA_BUNDLE = str(bundle)
        cid = world.consent(world.patient_a)
        world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
        deliver(until=lambda: {row[1] for row in deliveries(world.org)} == {"delivered", "failed"})
        assert len(live.received) == 1 and live.received[0].verified
    finally:
        live.stop()
    assert len(receiver.received) == 2 and receiver.secret == dead_secret
    shown = admin(world).get(f"{SUBS}/{dead['subscription_id']}").json()["deliveries"]
    assert [(d["status"], d["attempts"], d["last_status_code"], d["last_error_code"]) for d in shown] == [
        ("failed", 2, 500, "http_status")]


def test_one_organisations_hung_endpoint_with_a_backlog_does_not_hold_up_anothers_events(world, committed_db, receiver,
                                                                                          settings):
    """An endpoint that accepts and never answers, with a backlog of deliveries, took every delivery thread: the
    worker claimed the oldest due deliveries whatever their endpoint, so another organisation's event waited until
    each of the backlog's had timed out once (40 of them, 4 threads, 0.5 s: 5 s; a busy organisation with a dead
    endpoint starved every other for good). At most a quarter of the threads (at least one) go to one subscription
    at a time: the other organisation's event is delivered at once, while the backlog is still being tried."""
    subscribe(world, receiver, types=["consent.revoked"])
    receiver.hang(1000, 3)
    live = WebhookReceiver()
    stop = threading.Event()
    worker = threading.Thread(target=DeliveryWorker(name="test-events", concurrency=4, lease_seconds=2.0,
                                                    poll_seconds=0.02, stop=stop).run)
    try:
        r = admin(world, world.other_org).post(SUBS, {"url": live.url, "event_types": ["consent.revoked"]})
        live.secret = r.json()["secret"]
        bundle = receiver.ca_bundle.parent / "both.pem"
        bundle.write_bytes(receiver.ca_bundle.read_bytes() + live.ca_bundle.read_bytes())
        settings.EVENT_DELIVERY_CA_BUNDLE = str(bundle)
        hung = Identity(org_id=world.org, actor_sub="nurse-1", scopes=frozenset(), actor_kind="staff")
        with identity_context(hung):
            for _ in range(40):
                event_emit("consent.revoked", consent_id=uuid.uuid4(), patient_id=uuid.uuid4(),
                           purpose="appointment_scheduling")
        cid = world.consent(world.patient_b, org=world.other_org)
        world.patient(world.patient_b, org=world.other_org).post(
            f"/v1/patients/{world.patient_b}/consents/{cid}/revoke")
        started = time.monotonic()
        worker.start()
        wait_until(lambda: live.received, timeout=10, message="the other organisation's delivery")
        waited = time.monotonic() - started
        assert waited < 1.5, waited
        assert live.received[0].verified
    finally:
        stop.set()
        worker.join(timeout=10)
        live.stop()


def test_an_endpoint_stored_before_the_url_checks_it_fails_is_failed_at_once(world, committed_db, receiver):
    """A URL stored before today's checks (a host with an empty label) can never be posted to: its delivery fails
    at the first attempt as invalid_url, not retried. It used to fail inside the worker's look-up (internal_error)
    and be retried, with backoff, up to the attempt limit."""
    sid = subscribe(world, receiver, types=["consent.revoked"])["subscription_id"]
    with admin_connect() as conn:
        conn.execute("UPDATE event_subscription SET url = 'https://hooks..example.org/x' WHERE subscription_id = %s",
                     [sid])
    cid = world.consent(world.patient_a)
    world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
    deliver(until=lambda: [row[1] for row in deliveries(world.org)] == ["failed"])
    assert [row[1:] for row in deliveries(world.org)] == [("failed", 1, None, "invalid_url")]


def test_the_worker_checks_the_very_name_it_connects_to(world, committed_db, receiver, monkeypatch):
    """A host written with an IDNA deviation character (``ß``) is two names: Python's codec resolves "strasse",
    httpx connects to "xn--strae-oqa". The check must resolve what the POST will reach: an endpoint whose
    connection name points inside is refused (destination_not_allowed), whatever the other spelling resolves to.
    The resolver's answers come from a table (the test machine has no DNS); the endpoint is the real receiver."""
    import socket

    port = int(receiver.url.rsplit(":", 1)[1].split("/", 1)[0])
    zone = {"strasse.hooks.example": "93.184.216.34", "xn--strae-oqa.hooks.example": "127.0.0.1"}
    real = socket.getaddrinfo

    def resolve(host, *args, **kwargs):
        name = host.encode("idna").decode("ascii") if isinstance(host, str) else host.decode("ascii")
        if name.endswith("hooks.example"):
            if name not in zone:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            return real(zone[name], *args, **kwargs)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    r = admin(world).post(SUBS, {"url": f"https://straße.hooks.example:{port}/hook",
                                 "event_types": ["consent.revoked"]})
    assert r.status_code == 201, r.content
    cid = world.consent(world.patient_a)
    world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
    deliver(until=lambda: [row[1] for row in deliveries(world.org)] == ["failed"])
    assert [row[1:] for row in deliveries(world.org)] == [("failed", 1, None, "destination_not_allowed")]
    assert receiver.received == []


def test_a_name_answering_another_address_when_the_worker_connects_is_not_posted_to(world, committed_db, receiver,
                                                                                    monkeypatch):
    """DNS rebinding: a name that resolves to a public address when the worker checks it and to 127.0.0.1 when the
    connection is made. The worker resolved it for its check and httpx resolved it again to connect, so the POST (the
    event, signed) reached the inner address. The connection goes to an address that was checked when it is made:
    this one is refused (destination_not_allowed, not retried) and nothing reaches the inner endpoint. The
    resolver's answers come from a table (the test machine has no DNS); the endpoint is the real receiver, whose
    certificate is valid for the name."""
    import socket

    port = int(receiver.url.rsplit(":", 1)[1].split("/", 1)[0])
    answers = iter(["93.184.216.34"])
    real = socket.getaddrinfo

    def resolve(host, *args, **kwargs):
        if host == "rebind.hooks.example":
            return real(next(answers, "127.0.0.1"), *args, **kwargs)  # public once, then inside
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    r = admin(world).post(SUBS, {"url": f"https://rebind.hooks.example:{port}/hook",
                                 "event_types": ["consent.revoked"]})
    assert r.status_code == 201, r.content
    cid = world.consent(world.patient_a)
    world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
    deliver(until=lambda: [row[1] for row in deliveries(world.org)] == ["failed"])
    assert [row[1:] for row in deliveries(world.org)] == [("failed", 1, None, "destination_not_allowed")]
    assert receiver.received == []


def test_a_checked_address_that_refuses_the_connection_gives_way_to_the_next_one(receiver):
    """The connection goes to the addresses the check resolved, in turn, as a connection by name tries each address
    the name has: an IPv6 address first that refuses (or has no route) does not fail the POST while an IPv4 one
    answers. TLS verifies the name, not the address."""
    import ssl

    import httpx

    from core.http_deadline import DeadlineTransport

    tried = []

    def addresses(host):
        tried.append(host)
        return ["::1", "127.0.0.1"]  # nothing listens on the receiver's port over IPv6

    port = int(receiver.url.rsplit(":", 1)[1].split("/", 1)[0])
    transport = DeadlineTransport(deadline=5, verify=ssl.create_default_context(cafile=str(receiver.ca_bundle)),
                                  address_for=addresses)
    with httpx.Client(transport=transport) as client:
        r = client.post(f"https://pinned.hooks.example:{port}/hook", content=b"{}")
    assert r.status_code == 400 and len(receiver.received) == 1  # unsigned: the receiver refuses it, but got it
    assert tried == ["pinned.hooks.example"]


def test_a_disabled_subscription_queues_nothing_and_an_unwanted_type_is_not_stored(world, committed_db, receiver):
    sid = subscribe(world, receiver, types=["grant.revoked"])["subscription_id"]
    cid = world.consent(world.patient_a)
    world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
    assert outbox_count() == 0, "nobody wants consent.revoked: nothing is stored"
    admin(world).request("PATCH", f"{SUBS}/{sid}", {"enabled": False})
    grant = world.grant(world.patient_a, "nurse-7", "appointment_scheduling")
    admin(world).post(f"/v1/grants/{grant['grant_id']}/revoke", {})
    assert outbox_count() == 0


def test_a_type_taken_off_a_subscription_is_not_sent_from_what_was_queued_before(world, committed_db, receiver):
    """An administrator narrows a subscription's types while a delivery of the removed type waits: it is not sent
    (failed / event_type_unsubscribed), as a disabled subscription's are not; the types it keeps still arrive. The
    worker used to send it anyway."""
    sid = subscribe(world, receiver, types=["consent.revoked", "grant.revoked"])["subscription_id"]
    cid = world.consent(world.patient_a)
    world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
    r = admin(world).request("PATCH", f"{SUBS}/{sid}", {"event_types": ["grant.revoked"]})
    assert r.status_code == 200, r.content
    grant = world.grant(world.patient_a, "nurse-7", "appointment_scheduling")
    admin(world).post(f"/v1/grants/{grant['grant_id']}/revoke", {})
    deliver()
    assert [m.payload["type"] for m in receiver.received] == ["grant.revoked"]
    assert deliveries(world.org) == [("consent.revoked", "failed", 1, None, "event_type_unsubscribed"),
                                     ("grant.revoked", "delivered", 1, 200, None)]


def test_a_change_that_rolls_back_emits_nothing_and_one_that_commits_always_does(world, committed_db, receiver):
    subscribe(world, receiver, types=["consent.revoked"])
    cid = uuid.UUID(world.consent(world.patient_a))
    patient = Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a,
                       scopes=frozenset(PATIENT_SCOPES.split()), actor_kind="patient")

    class Boom(Exception):
        pass

    with pytest.raises(Boom), identity_context(patient):
        consent_services.consent_revoke(identity=patient, patient_id=world.patient_a, consent_id=cid)
        raise Boom
    assert outbox_count() == 0
    with identity_context(patient):
        consent_services.consent_revoke(identity=patient, patient_id=world.patient_a, consent_id=cid)
    assert [row[:2] for row in deliveries(world.org)] == [("consent.revoked", "pending")]


def test_deleting_a_subscription_while_a_change_emits_to_it_fails_neither(world, committed_db, receiver):
    """A change that queued a delivery to a subscription and has not committed yet, while an administrator deletes
    the subscription: the deletion waits for the change and then removes the delivery too; both succeed. The
    change's commit used to fail instead (the delivery's foreign key is checked at commit, and the subscription
    was gone by then): a patient's consent revocation failed because an administrator removed a webhook."""
    sid = subscribe(world, receiver, types=["consent.revoked"])["subscription_id"]
    staff = Identity(org_id=world.org, actor_sub="nurse-1", scopes=frozenset(), actor_kind="staff")
    emitted, finish = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    def change() -> None:
        try:
            with identity_context(staff):
                outcome["queued"] = event_emit("consent.revoked", consent_id=uuid.uuid4(),
                                               patient_id=world.patient_a, purpose="appointment_scheduling")
                emitted.set()
                finish.wait(10)
            outcome["change"] = "committed"
        except Exception as exc:  # noqa: BLE001 (reported by the assertion below)
            outcome["change"] = type(exc).__name__
        finally:
            emitted.set()
            connections.close_all()

    def delete() -> None:
        try:
            outcome["delete"] = admin(world).request("DELETE", f"{SUBS}/{sid}").status_code
        finally:
            connections.close_all()

    threads = [threading.Thread(target=change), threading.Thread(target=delete)]
    threads[0].start()
    assert emitted.wait(10) and outcome.get("queued") == 1
    threads[1].start()
    threads[1].join(1.0)  # the deletion waits for the change (it used to be done by now)
    finish.set()
    for thread in threads:
        thread.join(20)
    assert outcome["change"] == "committed" and outcome["delete"] == 204
    assert deliveries(world.org) == []


def test_the_runtime_role_cannot_write_the_outbox_directly_or_emit_for_another_organisation(world, committed_db,
                                                                                           receiver):
    subscribe(world, receiver, types=["consent.revoked"], org=world.other_org)
    nurse = Identity(org_id=world.org, actor_sub="nurse-1")
    with identity_context(nurse):
        with pytest.raises(ProgrammingError, match="permission denied"), connection.cursor() as cursor:
            cursor.execute("INSERT INTO event_outbox (event_id, organization_id, event_type, data, occurred_at) "
                           "VALUES (gen_random_uuid(), %s, 'consent.revoked', '{}', now())", [world.other_org])
    with identity_context(nurse):
        assert event_emit("consent.revoked", consent_id=uuid.uuid4(), patient_id=uuid.uuid4(),
                          purpose="appointment_scheduling") == 0, "only the caller's organisation's subscriptions"
    assert outbox_count() == 0


def test_erasing_a_patient_sends_each_memory_deleted_and_patient_erased(world, committed_db, receiver):
    subscribe(world, receiver, types=["memory.deleted", "patient.erased"])
    pid = world.patient_a
    cid = world.consent(pid)
    patient = world.patient(pid)
    made = [patient.post(f"/v1/patients/{pid}/memories", memory_body(cid, kind, t)).json()["memory"]["memory_id"]
            for kind, t in (("earliest_time", "06:41"), ("latest_time", "18:23"))]
    me = Identity(org_id=world.org, actor_sub=f"patient-{pid}", patient_self_id=pid,
                  scopes=frozenset(PATIENT_SCOPES.split()), actor_kind="patient")
    with identity_context(me):
        receipt = memory_erase_patient(identity=me, patient_id=pid)
    deliver(until=lambda: len(receiver.received) == 3)
    got = sorted((m.payload["type"], m.payload["data"].get("memory_id")) for m in receiver.received)
    assert got == sorted([("memory.deleted", made[0]), ("memory.deleted", made[1]), ("patient.erased", None)])
    erased = next(m.payload["data"] for m in receiver.received if m.payload["type"] == "patient.erased")
    assert erased == {"organization_id": str(world.org), "patient_id": str(pid),
                      "deletion_id": receipt["deletion_id"]}
    assert not any("06:41" in without_timestamp(m) or "18:23" in without_timestamp(m) for m in receiver.received)


def test_a_workflow_that_needs_reconciliation_is_announced_once(world, committed_db, receiver, settings):
    settings.WORKFLOW_RETRY_BASE_SECONDS = 0.05
    settings.WORKFLOW_HTTP_CONNECT_TIMEOUT_SECONDS = 0.3
    settings.WORKFLOW_HTTP_READ_TIMEOUT_SECONDS = 0.3
    with admin_connect() as conn:
        conn.execute("UPDATE workflow_circuit SET state = 'closed', consecutive_failures = 0, opened_at = NULL, "
                     "open_until = NULL")
    subscribe(world, receiver, types=["workflow.needs_reconciliation"])
    insurer = FakeOutsideSystem("insurer")
    try:
        api = world.patient(world.patient_a)
        wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization",
                                        "patient_id": str(world.patient_a)}).json()
        r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
            "expected_version": 1, "next_step": "submit_prior_authorization",
            "state_patch": {"referral_verified": True},
            "request_operation": {"kind": "submit_prior_authorization", "payload": {
                "referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975",
                "member_ref": "M-1"}}})
        assert r.status_code == 200, r.content
        operation_id = r.json()["pending_operations"][0]["operation_id"]
        insurer.fail(times=1)
        adapters = {INSURER: OutsideSystem(SPECS[INSURER], base_url=insurer.url, connect_timeout=0.3,
                                           read_timeout=0.3)}
        Worker(name="test-worker", adapters=adapters, lease_seconds=2.5, poll_seconds=0.02).run(once=True)
    finally:
        insurer.stop()
    assert api.get(f"/v1/workflows/{wf['workflow_id']}").json()["current_step"] == "needs_reconciliation"
    deliver(until=lambda: len(receiver.received) == 1)
    (message,) = receiver.received
    assert message.verified and message.payload["type"] == "workflow.needs_reconciliation"
    assert message.payload["data"] == {"organization_id": str(world.org), "patient_id": str(world.patient_a),
                                       "workflow_id": wf["workflow_id"], "workflow_type": "prior_authorization",
                                       "purpose": wf["purpose"], "operation_id": operation_id}
    assert b"REF-1" not in message.body and b"E11.9" not in message.body


def test_a_checkpoint_into_needs_reconciliation_commits_the_step_and_its_event_together(world, committed_db,
                                                                                        receiver):
    """A client that checkpoints a workflow without operations into needs_reconciliation (it met the unknown
    outcome itself) gets the new version, and the event is queued with it. The checkpoint's last statement carries
    the COMMIT (core.identity.commit_with_next_statement): the event's statement used to carry it instead, so the
    event was committed, the step was not, and the client got a 500."""
    subscribe(world, receiver, types=["workflow.needs_reconciliation"])
    api = world.patient(world.patient_a)
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization",
                                    "patient_id": str(world.patient_a)}).json()
    checkpoint = f"/v1/workflows/{wf['workflow_id']}/checkpoint"
    assert api.post(checkpoint, {"expected_version": 1, "next_step": "submit_prior_authorization"}).status_code == 200
    r = api.post(checkpoint, {"expected_version": 2, "next_step": "needs_reconciliation"})
    assert r.status_code == 200, r.content
    assert (r.json()["current_step"], r.json()["version"]) == ("needs_reconciliation", 3)
    assert api.get(f"/v1/workflows/{wf['workflow_id']}").json()["version"] == 3
    deliver(until=lambda: len(receiver.received) == 1)
    (message,) = receiver.received
    assert message.payload["data"]["workflow_id"] == wf["workflow_id"]
    assert message.payload["data"]["operation_id"] is None


def test_run_worker_with_events_delivers_them_beside_the_operations(world, committed_db, receiver):
    subscribe(world, receiver, types=["consent.revoked"])
    cid = world.consent(world.patient_a)
    world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
    call_command("run_worker", "--until-idle", "--events", "--poll-seconds", "0.02")
    assert [m.payload["type"] for m in receiver.received] == ["consent.revoked"]
    assert receiver.received[0].verified
    assert [row[:3] for row in deliveries(world.org)] == [("consent.revoked", "delivered", 1)]


def test_a_delivery_is_a_trace_of_its_own_whose_post_carries_its_context_and_no_ids(world, committed_db, receiver):
    from core import tracing
    from tests.test_tracing import Collector, _context

    collector = Collector()
    assert tracing.configure(endpoint=f"{collector.url}/v1/traces", service_name="anamnesis-test")
    try:
        sid = subscribe(world, receiver, types=["consent.revoked"])["subscription_id"]
        cid = world.consent(world.patient_a)
        assert world.patient(world.patient_a).post(
            f"/v1/patients/{world.patient_a}/consents/{cid}/revoke").status_code == 200
        deliver(until=lambda: len(receiver.received) == 1)
        assert tracing.flush()
    finally:
        tracing.shutdown()
        collector.stop()
    [message] = receiver.received
    assert message.verified, "the trace context travels beside the signed headers, never inside the signed body"
    [span] = [s for s in collector.spans if s["name"] == "webhook deliver consent.revoked"]
    assert span["parent"] is None and span["kind"] == "SPAN_KIND_PRODUCER"
    assert span["attributes"] == {"anamnesis.event.type": "consent.revoked", "anamnesis.delivery.attempt": 1,
                                  "http.response.status_code": 200}
    assert _context(message.headers["traceparent"]) == (span["trace_id"], span["span_id"])
    exported = b"".join(collector.bodies)
    for needle in [str(world.patient_a), str(world.org), cid, sid, message.headers["webhook-id"], receiver.url]:
        assert needle.encode() not in exported, needle


# --- retention ----------------------------------------------------------------------------------------------------
def test_the_sweep_removes_settled_events_past_their_retention_and_keeps_the_rest(world, committed_db, receiver,
                                                                                   settings):
    settings.EVENT_RETENTION_DAYS = 30
    subscribe(world, receiver, types=["consent.revoked"])
    for pid in (world.patient_a, world.patient_a, world.patient_b, world.patient_b):
        cid = world.consent(pid)
        world.patient(pid).post(f"/v1/patients/{pid}/consents/{cid}/revoke")
    receiver.fail(100)
    deliver(until=lambda: "pending" not in {row[1] for row in deliveries(world.org)})
    with admin_connect() as conn:
        events = [row[0] for row in conn.execute("SELECT event_id FROM event_outbox ORDER BY occurred_at")]
        assert len(events) == 4
        delivered_old, failed_old, waiting_old, recent = events
        conn.execute("UPDATE event_outbox SET occurred_at = now() - interval '40 days' WHERE event_id = ANY(%s)",
                     [[delivered_old, failed_old, waiting_old]])
        conn.execute("UPDATE event_outbox SET occurred_at = now() - interval '12 hours' WHERE event_id = %s",
                     [recent])
        conn.execute("UPDATE event_delivery SET status = 'delivered' WHERE event_id = ANY(%s)",
                     [[delivered_old, recent]])
        conn.execute("UPDATE event_delivery SET status = 'failed' WHERE event_id = %s", [failed_old])
        conn.execute("UPDATE event_delivery SET status = 'pending', next_attempt_at = now() + interval '1 hour' "
                     "WHERE event_id = %s", [waiting_old])

    nurse = Identity(org_id=world.org, actor_sub="nurse-1")
    with identity_context(nurse), connection.cursor() as cursor:  # nobody else may delete them
        cursor.execute("DELETE FROM event_outbox")
        assert cursor.rowcount == 0
        cursor.execute("DELETE FROM event_delivery")
        assert cursor.rowcount == 0

    call_command("sweep_events", "--older-than-days", "0", "--batch", "1", stdout=(out := io.StringIO()))
    assert out.getvalue().strip() == "events=2 deliveries=2", "never under a day, whatever the caller asks"
    call_command("sweep_events", stdout=(again := io.StringIO()))
    assert again.getvalue().strip() == "events=0 deliveries=0"

    with admin_connect() as conn:
        kept = {row[0] for row in conn.execute("SELECT event_id FROM event_outbox")}
        kept_deliveries = {row[0] for row in conn.execute("SELECT event_id FROM event_delivery")}
        runs = conn.execute("SELECT counts FROM core_sweep_run WHERE sweep = 'events' ORDER BY finished_at").fetchall()
    assert kept == kept_deliveries == {waiting_old, recent}
    assert [row[0] for row in runs][-2:] == [{"events": 2, "deliveries": 2}, {"events": 0, "deliveries": 0}]


def test_every_delivery_of_a_subscription_is_read_a_page_at_a_time(world, committed_db, receiver):
    """A subscription's read shows its 100 newest deliveries, and nothing reached the older ones an administrator
    looks for when an endpoint failed for a while: GET .../deliveries gives every delivery, newest first, a page
    of limit (1-500, default 100) at a time through next_cursor; a cursor it never gave is 422 on cursor; another
    organisation's subscription (or none) is 404."""
    sid = subscribe(world, receiver)["subscription_id"]
    with admin_connect() as conn:
        conn.execute(
            "WITH e AS (INSERT INTO event_outbox (event_id, organization_id, event_type, data, occurred_at) "
            "SELECT gen_random_uuid(), %s, 'consent.revoked', '{}', now() - make_interval(secs => i) "
            "FROM generate_series(1, 130) i RETURNING event_id, occurred_at) "
            "INSERT INTO event_delivery (delivery_id, event_id, subscription_id, organization_id, status, attempts, "
            "next_attempt_at, created_at, updated_at) SELECT gen_random_uuid(), event_id, %s, %s, 'delivered', 1, "
            "occurred_at, occurred_at, occurred_at FROM e", [world.org, sid, world.org])
    api = admin(world)
    assert len(api.get(f"{SUBS}/{sid}").json()["deliveries"]) == 100
    path = f"{SUBS}/{sid}/deliveries"
    first = api.get(path).json()
    assert len(first["items"]) == 100 and first["next_cursor"]
    rest = api.get(path, {"cursor": first["next_cursor"]}).json()
    assert len(rest["items"]) == 30 and rest["next_cursor"] is None
    seen = first["items"] + rest["items"]
    assert len({d["delivery_id"] for d in seen}) == 130
    assert [d["created_at"] for d in seen] == sorted((d["created_at"] for d in seen), reverse=True)
    assert api.get(path, {"limit": 7}).json()["items"] == first["items"][:7]
    for params, field in (({"cursor": "not-a-cursor"}, "cursor"), ({"limit": 0}, "limit")):
        r = api.get(path, params)
        assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == [field], r.content
    assert admin(world, world.other_org).get(path).status_code == 404
    assert api.get(f"{SUBS}/{uuid.uuid4()}/deliveries").status_code == 404


def test_multicast_site_local_and_translated_addresses_are_not_endpoints(world, committed_db):
    """Addresses Python 3.11 calls global though no public endpoint has them: IPv4 and IPv6 multicast, IPv6
    site-local (``fec0::/10``, private like ``fc00::/7`` where it is still routed), an IPv4-translated address
    (``::ffff:0:a00:1`` is 10.0.0.1 through an SIIT translator), the IETF's ``192.0.0.0/24`` and IPv6's
    documentation prefix ``3fff::/20``. Each was accepted as an endpoint (and would have been posted to when a name
    resolved to it); each is now ``destination_not_allowed``, and nothing is written."""
    for host in ("224.0.0.251", "239.255.255.250", "[ff02::1]", "[ff05::1:3]", "[fec0::1]", "[::ffff:0:a00:1]",
                 "[::ffff:0:7f00:1]", "192.0.0.8", "[3fff::1]"):
        r = admin(world).post(SUBS, {"url": f"https://{host}/hook", "event_types": ["consent.revoked"]})
        assert r.status_code == 422, (host, r.content)
        assert r.json()["errors"][0]["code"] == "destination_not_allowed", (host, r.content)
    r = admin(world).post(SUBS, {"url": "https://[2606:4700::1111]/hook", "event_types": ["consent.revoked"]})
    assert r.status_code == 201, r.content  # a public IPv6 address still is one
    with admin_connect() as conn:
        assert conn.execute("SELECT count(*) FROM event_subscription").fetchone()[0] == 1


def test_a_percent_encoded_host_is_no_host_name(world, committed_db):
    """A host written with percent-escapes (``%6cocalhost``, ``127.0.0.%31``) passed the checks of loopback and
    literal addresses, which read it undecoded, and was stored (a resolver that decodes it, as browsers' URL
    parsers do, reaches localhost). No host name holds a ``%``: 422 ``invalid``, nothing written."""
    for host in ("%6cocalhost", "127.0.0.%31", "%31%30.0.0.1", "hooks%2eexample.org"):
        r = admin(world).post(SUBS, {"url": f"https://{host}/hook", "event_types": ["consent.revoked"]})
        assert r.status_code == 422 and r.json()["errors"][0]["code"] == "invalid", (host, r.content)
    with admin_connect() as conn:
        assert conn.execute("SELECT count(*) FROM event_subscription").fetchone()[0] == 0
