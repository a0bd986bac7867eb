"""The Python client library (clients/python) against the live service: typed models, one exception per problem
code, automatic Idempotency-Key on creating calls, safe retries with backoff on 429/503 honouring Retry-After,
static and OAuth client-credentials token providers, sync and async."""

from __future__ import annotations

import base64
import datetime
import email.utils
import json
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import anyio
import httpx
import pytest
from anamnesis_client import AnamnesisClient, AsyncAnamnesisClient, ClientCredentials, RetryPolicy, errors, models
from anamnesis_client.client import Call
from anamnesis_client.transport import parse_retry_after

from conversations.models import ConversationSession
from core.identity import ACTOR_PATIENT, Identity, identity_context
from tests.conftest import in_directory
from tests.fakes.scheduling import FakeScheduling
from tests.live import free_port
from tests.support import PATIENT_SCOPES, mint, propose_many, remember_many

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def scheduling(settings):
    fake = FakeScheduling()
    settings.SCHEDULING_BASE_URL = fake.url
    yield fake
    fake.down()


def patient_token(world, patient_id=None, scope: str = PATIENT_SCOPES) -> str:
    patient_id = patient_id or world.patient_a
    return world.token(sub=f"patient-{patient_id}", patient_id=patient_id, scope=scope)


class Sleeps(list):
    """Records the delays the client would have slept, without waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def test_sync_client_speaks_the_whole_booking_surface_with_typed_models(world, live, scheduling):
    with AnamnesisClient(live.url, patient_token(world)) as api:
        consent = api.give_consent(world.patient_a, "appointment_scheduling")
        assert isinstance(consent, models.Consent) and consent.status == "granted"
        proposal = api.propose_memory(world.patient_a, models.ProposalIn(
            memory_type="scheduling_preference", fact={"kind": "earliest_time", "time": "10:00"},
            consent_purpose="appointment_scheduling", consent_record_id=consent.consent_record_id,
            source_ref="turn:1"))
        assert isinstance(proposal, models.Memory) and proposal.state == "proposed"
        assert api.list_memories(world.patient_a) == []
        confirmed = api.confirm_memory(world.patient_a, proposal.memory_id)
        assert confirmed.state == "active"
        [current] = api.list_memories(world.patient_a)
        assert current.fact == {"kind": "earliest_time", "time": "10:00"}
        hits = api.search_memories(world.patient_a, "what time can I be booked?")
        assert [h.memory.memory_id for h in hits.items] == [proposal.memory_id]
        hits = api.search_memories(world.patient_a, "what time can I be booked?",
                                   memory_type=["communication_preference", "scheduling_preference"])
        assert [h.memory.memory_id for h in hits.items] == [proposal.memory_id]
        assert api.search_memories(world.patient_a, "what time can I be booked?",
                                   memory_type="communication_preference").items == []
        pack = api.context_pack(world.patient_a, "when can I come in?", "appointment_scheduling")
        assert pack.facts[0].memory_id == proposal.memory_id

        state = api.start_session(world.patient_a, "appointment_scheduling")
        sid = state.session.session_id
        api.add_turn(sid, "I need to reschedule my cardiology follow-up. I can't do mornings.")
        turn = api.add_turn(sid, "What about Thursday?")
        assert isinstance(turn, models.TurnAppended) and turn.turn.seq == 2
        offers = api.search_offers(sid)
        assert [o.slot_id for o in offers.offers] == ["A1"]
        ctx = api.session_context(sid, max_tokens=1000)
        assert ctx.context["standing_preferences"] == [{"kind": "earliest_time", "time": "10:00"}]

        wf = api.create_workflow("appointment_booking", world.patient_a)
        wf = api.checkpoint(wf.workflow_id, models.CheckpointIn(expected_version=wf.version,
                                                                next_step="propose_slots"))
        wf = api.checkpoint(wf.workflow_id, models.CheckpointIn(expected_version=wf.version,
                                                                next_step="confirm_booking",
                                                                state_patch={"slot_id": "A1"}))
        payload = {"slot_id": "A1", "appointment_type": "cardiology_followup"}
        op = api.request_operation(wf.workflow_id, expected_version=wf.version, kind="book_appointment",
                                   payload=payload, idempotency_key="booking-1")
        again = api.request_operation(wf.workflow_id, expected_version=wf.version, kind="book_appointment",
                                      payload=payload, idempotency_key="booking-1")
        assert isinstance(op, models.Operation) and again.operation_id == op.operation_id
        read = api.get_workflow(wf.workflow_id)
        assert [p.operation_id for p in read.pending_operations] == [op.operation_id]
        assert api.end_session(sid).session.status == "completed"


def test_each_problem_code_raises_its_own_exception(world, live):
    with AnamnesisClient(live.url, patient_token(world)) as api:
        with pytest.raises(errors.NotFound) as nf:
            api.get_workflow(uuid.uuid4())
        assert nf.value.status == 404 and nf.value.code == "not_found" and nf.value.request_id
        wf = api.create_workflow("appointment_booking", world.patient_a)
        with pytest.raises(errors.VersionConflict) as vc:
            api.checkpoint(wf.workflow_id, models.CheckpointIn(expected_version=wf.version + 5,
                                                               next_step="propose_slots"))
        assert isinstance(vc.value, errors.ConflictError)
        with pytest.raises(errors.IllegalTransition):
            api.checkpoint(wf.workflow_id, models.CheckpointIn(expected_version=wf.version, next_step="booked"))
        with pytest.raises(errors.ValidationError) as ve:
            api.start_session(world.patient_a, "astrology")
        assert ve.value.errors and ve.value.errors[0]["field"] == "purpose"
        with pytest.raises(errors.NoActiveConsentOrAccess):
            api.start_session(world.patient_b, "appointment_scheduling")
    with AnamnesisClient(live.url, patient_token(world, scope="memory:read")) as reader:
        with pytest.raises(errors.InsufficientScope):
            reader.create_workflow("appointment_booking", world.patient_a)
    with AnamnesisClient(live.url, "not-a-token") as anonymous:
        with pytest.raises(errors.InvalidToken):
            anonymous.list_memories(world.patient_a)
    unknown = errors.error_from_problem(409, {"code": "brand_new_conflict", "message": "later versions"})
    assert type(unknown) is errors.ConflictError and unknown.code == "brand_new_conflict"


def test_staff_give_a_consent_with_its_evidence_and_expiry(world, live):
    """Staff and agents name the evidence; the client sends it (it could only send the purpose)."""
    from datetime import UTC, datetime, timedelta

    world.grant(world.patient_a, "nurse-client", "communication")
    until = datetime.now(UTC) + timedelta(days=90)
    with AnamnesisClient(live.url, world.token(sub="nurse-client", scope="consent:read consent:write")) as nurse:
        with pytest.raises(errors.ValidationError) as missing:
            nurse.give_consent(world.patient_a, "communication")
        assert missing.value.errors[0]["field"] == "evidence_ref"
        consent = nurse.give_consent(world.patient_a, "communication", evidence_ref="signed-form-12",
                                     expires_at=until)
    assert consent.evidence_ref == "signed-form-12" and consent.recorded_by == "nurse-client"
    assert abs((consent.expires_at - until).total_seconds()) < 1


def test_503_from_the_service_is_retried_with_backoff_then_raised(world, live, scheduling):
    sleeps = Sleeps()
    world.consent(world.patient_a)
    with AnamnesisClient(live.url, patient_token(world), sleep=sleeps,
                         retry=RetryPolicy(max_retries=2, backoff_base=0.1)) as api:
        sid = api.start_session(world.patient_a, "appointment_scheduling").session.session_id
        api.add_turn(sid, "I need to reschedule my cardiology follow-up.")
        scheduling.mode = "error"
        before = len(scheduling.requests)
        with pytest.raises(errors.SchedulingUnavailable) as exc:
            api.search_offers(sid)
    assert isinstance(exc.value, errors.RetryableError) and exc.value.status == 503
    assert len(scheduling.requests) - before == 3, "one attempt and two retries"
    # the service's 503 names when to come back (Retry-After: API_UNAVAILABLE_RETRY_AFTER_SECONDS); the client waits
    # that long rather than its own backoff
    assert sleeps == [5.0, 5.0]


class Gateway:
    """A rate-limiting API gateway in front of the service (an outside system): answers 429 with Retry-After to
    the first ``limit`` requests, forwards the rest, and records every request's Idempotency-Key."""

    def __init__(self, upstream: str, *, limit: int, retry_after: str = "2", lose: int = 0) -> None:
        self.keys: list[str | None] = []
        self.remaining = limit
        self.lose = lose  # answers to lose: the request reaches the service, its answer never the client
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                outer.keys.append(self.headers.get("Idempotency-Key"))
                if outer.remaining > 0:
                    outer.remaining -= 1
                    data = json.dumps({"code": "rate_limited", "status": 429}).encode()
                    self.send_response(429)
                    self.send_header("Retry-After", retry_after)
                    self.send_header("Content-Type", "application/problem+json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() in (
                    "authorization", "content-type", "idempotency-key", "accept")}
                r = httpx.request(self.command, upstream + self.path, content=body, headers=headers, timeout=60)
                if outer.lose > 0:
                    outer.lose -= 1
                    self.close_connection = True
                    return
                self.send_response(r.status_code)
                for k, v in r.headers.items():
                    if k.lower() in ("content-type", "retry-after"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(r.content)))
                self.end_headers()
                self.wfile.write(r.content)

            do_GET = do_POST = _any  # noqa: N815

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_429_honours_retry_after_and_a_retried_create_keeps_its_idempotency_key(world, live):
    gateway = Gateway(live.url, limit=2, retry_after="3")
    sleeps = Sleeps()
    try:
        with AnamnesisClient(gateway.url, patient_token(world), sleep=sleeps) as api:
            wf = api.create_workflow("appointment_booking", world.patient_a)
    finally:
        gateway.stop()
    assert sleeps == [3.0, 3.0]
    assert len(gateway.keys) == 3 and gateway.keys[0] and len(set(gateway.keys)) == 1, gateway.keys
    with AnamnesisClient(live.url, patient_token(world)) as api:
        assert api.get_workflow(wf.workflow_id).workflow_type == "appointment_booking"


def test_network_failures_are_retried_only_when_safe():
    dead = f"http://127.0.0.1:{free_port()}"
    sleeps = Sleeps()
    with AnamnesisClient(dead, "t", sleep=sleeps, retry=RetryPolicy(max_retries=2)) as api:
        with pytest.raises(errors.TransportError):
            api.get_workflow(uuid.uuid4())
        assert len(sleeps) == 2, "a read is retried"
        sleeps.clear()
        with pytest.raises(errors.TransportError):
            api.end_session(uuid.uuid4())
        assert sleeps == [], "an unkeyed write may have landed: not retried"
        with pytest.raises(errors.TransportError):
            api.create_workflow("appointment_booking", uuid.uuid4())
        assert len(sleeps) == 2, "a keyed create is retried under the same key"


def send_slowly(handler: BaseHTTPRequestHandler, data: dict) -> None:
    """Answers 200 with ``data`` four bytes every half second, until the client gives up."""
    body = json.dumps(data).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    try:
        for i in range(0, len(body), 4):
            handler.wfile.write(body[i:i + 4])
            handler.wfile.flush()
            time.sleep(0.5)
    except OSError:  # the client gave up
        pass


def test_an_answer_that_trickles_in_is_given_up_after_the_timeout_and_retried_when_safe():
    """httpx's timeout bounds each read, not the answer: a service (or a proxy before it) sending its answer a few
    bytes at a time held a call made with timeout=1 for as long as it went on (here 15 s an attempt). Each attempt
    now gives up once ``timeout`` seconds pass without the whole answer: a read is retried, then TransportError;
    an unkeyed write is not sent again. Sync and async; the service is a real HTTP server."""
    attempts: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _trickle(self):
            attempts.append(self.command)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            send_slowly(self, {"workflow_id": str(uuid.uuid4()), "padding": " " * 40})

        do_GET = do_POST = _trickle  # noqa: N815

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True  # closing does not wait for the trickles the client gave up on
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    try:
        started = time.monotonic()
        with AnamnesisClient(url, "t", timeout=1, sleep=Sleeps(), retry=RetryPolicy(max_retries=1)) as api:
            with pytest.raises(errors.TransportError, match="ReadTimeout"):
                api.get_workflow(uuid.uuid4())
            assert attempts == ["GET", "GET"], "a read is tried again"
            with pytest.raises(errors.TransportError):
                api.end_session(uuid.uuid4())
            assert attempts == ["GET", "GET", "POST"], "an unkeyed write is not"
        assert time.monotonic() - started < 8

        async def read_async():
            async with AsyncAnamnesisClient(url, "t", timeout=1, sleep=lambda s: anyio.sleep(0),
                                            retry=RetryPolicy(max_retries=1)) as api:
                await api.get_workflow(uuid.uuid4())

        attempts.clear()
        started = time.monotonic()
        with pytest.raises(errors.TransportError):
            anyio.run(read_async)
        assert attempts == ["GET", "GET"] and time.monotonic() - started < 5
    finally:
        server.shutdown()
        server.server_close()


def test_a_commit_whose_outcome_is_unknown_is_sent_again_only_when_that_is_safe():
    """503 ``commit_outcome_unknown``: the write may have been saved. An unkeyed write raises at once (sent again,
    a delete that went through answers 404); a read and a keyed create are sent again, as after a lost answer. A
    service that answers every request so (a real HTTP server) counts what the client sent."""
    sent: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self):
            sent.append(self.command)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            data = json.dumps({"code": "commit_outcome_unknown", "status": 503, "title": "may have been saved"})
            self.send_response(503)
            self.send_header("Content-Type", "application/problem+json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data.encode())

        do_GET = do_POST = do_DELETE = _answer  # noqa: N815

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with AnamnesisClient(f"http://127.0.0.1:{server.server_port}", "t", sleep=Sleeps(),
                             retry=RetryPolicy(max_retries=2)) as api:
            with pytest.raises(errors.CommitOutcomeUnknown) as raised:
                api.end_session(uuid.uuid4())
            assert sent == ["POST"] and raised.value.status == 503
            assert not isinstance(raised.value, errors.RetryableError)
            sent.clear()
            with pytest.raises(errors.CommitOutcomeUnknown):
                api.create_workflow("appointment_booking", uuid.uuid4())
            assert sent == ["POST"] * 3, "a keyed create is sent again under its key"
            sent.clear()
            with pytest.raises(errors.CommitOutcomeUnknown):
                api.get_workflow(uuid.uuid4())
            assert sent == ["GET"] * 3
    finally:
        server.shutdown()
        server.server_close()


def test_each_answer_of_the_service_is_parsed_once(monkeypatch):
    """A 503's problem document was parsed twice: once to ask whether it is commit_outcome_unknown, again to raise
    its error (and, retried, twice per answer). A service answering 503 service_unavailable (a real HTTP server)
    twice, then the client's own retries spent: one parse per answer, whatever the answer decides."""
    answers = iter([(503, {"code": "service_unavailable", "status": 503, "title": "try again"}),
                    (503, {"code": "commit_outcome_unknown", "status": 503, "title": "may have been saved"}),
                    (503, {"code": "service_unavailable", "status": 503, "title": "try again"})])

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            status, problem = next(answers)
            data = json.dumps(problem).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/problem+json")
            self.send_header("Retry-After", "1")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    parses: list[int] = []
    parse = httpx.Response.json

    def counted(response, **kwargs):
        parses.append(response.status_code)
        return parse(response, **kwargs)

    monkeypatch.setattr(httpx.Response, "json", counted)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sleeps = Sleeps()
        with AnamnesisClient(f"http://127.0.0.1:{server.server_port}", "t", sleep=sleeps,
                             retry=RetryPolicy(max_retries=2)) as api:
            with pytest.raises(errors.ServiceUnavailable) as raised:
                api.get_workflow(uuid.uuid4())
    finally:
        server.shutdown()
        server.server_close()
    assert raised.value.message == "try again" and raised.value.retry_after == 1.0 and sleeps == [1.0, 1.0]
    assert parses == [503, 503, 503], "one parse per answer"


def test_a_checkpoint_or_context_pack_whose_answer_was_lost_is_retried_under_its_key_and_answered(world, live):
    """The checkpoint landed but its answer was lost: retried under the same Idempotency-Key it is the first answer
    again (version 2), not a TransportError (nor, retried by hand, 409 version_conflict for the agent's own step);
    a context pack likewise, one release."""
    world.consent(world.patient_a)
    with AnamnesisClient(live.url, patient_token(world)) as api:
        wf = api.create_workflow("appointment_booking", world.patient_a)
    gateway = Gateway(live.url, limit=0, lose=1)
    sleeps = Sleeps()
    try:
        with AnamnesisClient(gateway.url, patient_token(world), sleep=sleeps) as api:
            moved = api.checkpoint(wf.workflow_id, models.CheckpointIn(expected_version=1, next_step="propose_slots"))
            keys, gateway.keys[:] = list(gateway.keys), []
            gateway.lose = 1
            pack = api.context_pack(world.patient_a, "when can I come in?", "appointment_scheduling")
    finally:
        gateway.stop()
    assert moved.version == 2 and moved.current_step == "propose_slots"
    assert len(keys) == 2 and keys[0] and len(set(keys)) == 1, keys
    assert len(gateway.keys) == 2 and gateway.keys[0] and len(set(gateway.keys)) == 1, gateway.keys
    with AnamnesisClient(live.url, patient_token(world)) as api:
        assert api.get_workflow(wf.workflow_id).version == 2
        releases = api._run(Call("GET", f"/v1/patients/{world.patient_a}/releases"))["items"]
    assert [r["release_id"] for r in releases] == [str(pack.release_id)]


def test_any_operation_the_client_names_no_call_for_is_reached_with_its_retries_keys_and_errors(world, live):
    """The TypeScript client reaches every operation of the document through ``raw``; the Python client only
    through its private ``_run(Call(...))``, so an administrator's grants or an auditor's events went around its
    retries, keys and typed errors. ``request()``: a grant whose answer was lost is retried under its key (one
    grant), the list reads it, the revoke and a refusal are typed, and the async client has it too."""
    admin = world.token(sub="org-admin", scope="grant:write consent:read audit:read")
    in_directory(world.org, world.patient_a)  # grants are given for the directory's patients
    gateway = Gateway(live.url, limit=1, lose=1)
    body = {"patient_id": str(world.patient_a), "actor_sub": "nurse-raw", "purpose": "appointment_scheduling"}
    try:
        with AnamnesisClient(gateway.url, admin, sleep=Sleeps()) as api:
            grant = api.request("POST", "/v1/grants", json=body, keyed=True)
    finally:
        gateway.stop()
    assert len(gateway.keys) == 3 and gateway.keys[0] and len(set(gateway.keys)) == 1, gateway.keys
    with AnamnesisClient(live.url, admin) as api:
        listed = api.request("GET", "/v1/grants", params={"patient_id": world.patient_a, "limit": 5})
        assert [g["grant_id"] for g in listed["items"]] == [grant["grant_id"]]
        with pytest.raises(errors.ValidationError) as refused:
            api.request("GET", "/v1/grants", params={"limit": 0})
        assert refused.value.errors[0]["field"] == "limit"
        revoked = api.request("post", f"/v1/grants/{grant['grant_id']}/revoke")
        assert revoked["grant_id"] == grant["grant_id"] and revoked["revoked_at"]
        with pytest.raises(ValueError, match="not an identifier"):
            api.request("GET", "/v1/grants/../patients")

    async def read_async():
        async with AsyncAnamnesisClient(live.url, admin) as api:
            return await api.request("GET", "/v1/audit-events", params={"limit": 1})

    assert anyio.run(read_async)["view"] == "organization"


class TokenEndpoint:
    """An OAuth authorization server's token endpoint (client credentials), minting tokens with the test keys. It
    reads the client's HTTP Basic credentials as RFC 6749 §2.3.1 has them sent: each form-urlencoded, then joined
    by a colon."""

    def __init__(self, world, patient_id, client: tuple[str, str] = ("booking-agent", "s3cret"),
                 unavailable: int = 0, bodies: list[bytes] | None = None) -> None:
        self.calls: list[dict] = []
        self.unavailable = unavailable  # the first requests answered 503 (down, or restarting)
        self.bodies = bodies or []  # then these, each as a 200, before tokens it mints
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
                if outer.unavailable > 0:
                    outer.unavailable -= 1
                    outer.calls.append({"form": form, "client": None})
                    self.send_response(503)
                    self.send_header("Retry-After", "2")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                user, _, secret = base64.b64decode(self.headers["Authorization"].split()[1]).decode().partition(":")
                user, secret = urllib.parse.unquote_plus(user), urllib.parse.unquote_plus(secret)
                outer.calls.append({"form": form, "client": user})
                if (user, secret) != client or form["grant_type"] != ["client_credentials"]:
                    self.send_response(401)
                    self.end_headers()
                    return
                token = mint(world.keyring, sub="booking-agent", org_id=world.org, patient_id=patient_id,
                             scope=form.get("scope", [PATIENT_SCOPES])[0])
                data = outer.bodies.pop(0) if outer.bodies else json.dumps(
                    {"access_token": token, "token_type": "Bearer", "expires_in": 300}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/token"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_client_credentials_tokens_are_fetched_once_and_renewed_after_a_401(world, live):
    endpoint = TokenEndpoint(world, world.patient_a)
    try:
        provider = ClientCredentials(endpoint.url, "booking-agent", "s3cret", scope="memory:read workflow:read")
        with AnamnesisClient(live.url, provider) as api:
            assert api.list_memories(world.patient_a) == []
            assert api.list_memories(world.patient_a) == []
            assert provider.fetches == 1
            assert endpoint.calls[0]["form"]["scope"] == ["memory:read workflow:read"]
            provider._token = "expired-or-revoked"  # the service refuses it: the client fetches a new one once
            assert api.list_memories(world.patient_a) == []
            assert provider.fetches == 2
        wrong = ClientCredentials(endpoint.url, "booking-agent", "wrong")
        with pytest.raises(errors.InvalidToken):
            wrong.get_token()
    finally:
        endpoint.stop()


def test_a_token_endpoint_answer_that_holds_no_token_is_an_invalid_token_never_a_parse_error(world, live):
    """A token endpoint answering 200 with something other than a JSON object (a proxy's sign-in page, a list)
    raised json's JSONDecodeError or an AttributeError out of the client, and an ``expires_in`` of null a
    TypeError, where the TypeScript client reads no token (InvalidToken) and the default lifetime. A real token
    endpoint answers each in turn."""
    token = mint(world.keyring, sub="booking-agent", org_id=world.org, patient_id=world.patient_a,
                 scope="memory:read")
    endpoint = TokenEndpoint(world, world.patient_a, bodies=[
        b"<html>sign in</html>", b"[]", b'{"access_token": "", "token_type": "Bearer"}',
        b'{"access_token": "t", "token_type": 7}',
        json.dumps({"access_token": token, "token_type": "Bearer", "expires_in": None}).encode()])
    try:
        provider = ClientCredentials(endpoint.url, "booking-agent", "s3cret")
        for _ in range(4):
            with pytest.raises(errors.InvalidToken):
                provider.get_token()
        with AnamnesisClient(live.url, provider) as api:
            assert api.list_memories(world.patient_a) == []
            assert api.list_memories(world.patient_a) == []
        assert provider.fetches == 1, "kept for the default lifetime"
    finally:
        endpoint.stop()


def test_client_credentials_with_a_colon_or_a_percent_sign_are_sent_as_rfc_6749_says(world, live):
    """A client id holding a colon (urn:...) or a secret holding a percent sign was sent raw in HTTP Basic, so the
    authorization server split the id at its first colon, or decoded the secret into another: the token was
    refused. RFC 6749 §2.3.1 has each form-urlencoded first, as the TypeScript client already does."""
    client = ("urn:anamnesis:booking-agent", "p%2Bq+r/s=t:u v")
    endpoint = TokenEndpoint(world, world.patient_a, client=client)
    try:
        provider = ClientCredentials(endpoint.url, *client, scope="memory:read")
        with AnamnesisClient(live.url, provider) as api:
            assert api.list_memories(world.patient_a) == []
        assert provider.fetches == 1 and endpoint.calls[0]["client"] == client[0]
    finally:
        endpoint.stop()


def test_an_authorization_server_outage_is_retried_and_raised_as_retryable_never_as_an_invalid_token(world, live):
    """A token endpoint answering 503 said nothing of the credentials, but the client raised InvalidToken at once
    (the credentials are wrong: do not retry); it is IdentityProviderUnavailable, a RetryableError, and the call
    asks again after its Retry-After, as it does for the service's own 503."""
    endpoint = TokenEndpoint(world, world.patient_a, unavailable=2)
    try:
        sleeps = Sleeps()
        provider = ClientCredentials(endpoint.url, "booking-agent", "s3cret", scope="memory:read")
        with AnamnesisClient(live.url, provider, sleep=sleeps) as api:
            assert api.list_memories(world.patient_a) == []
        assert sleeps == [2.0, 2.0] and provider.fetches == 1 and len(endpoint.calls) == 3

        endpoint.unavailable = 10
        provider = ClientCredentials(endpoint.url, "booking-agent", "s3cret", scope="memory:read")
        with AnamnesisClient(live.url, provider, sleep=Sleeps(), retry=RetryPolicy(max_retries=1)) as api:
            with pytest.raises(errors.IdentityProviderUnavailable) as down:
                api.list_memories(world.patient_a)
        assert isinstance(down.value, errors.RetryableError) and down.value.status == 503
        assert down.value.retry_after == 2.0

        endpoint.unavailable = 1
        waits: list[float] = []

        async def wait(seconds: float) -> None:
            waits.append(seconds)

        async def go():
            provider = ClientCredentials(endpoint.url, "booking-agent", "s3cret", scope="memory:read")
            async with AsyncAnamnesisClient(live.url, provider, sleep=wait) as api:
                return await api.list_memories(world.patient_a)
        assert anyio.run(go) == [] and waits == [2.0]
    finally:
        endpoint.stop()


def test_async_client(world, live, scheduling):
    async def go():
        async with AsyncAnamnesisClient(live.url, patient_token(world)) as api:
            await api.give_consent(world.patient_a, "appointment_scheduling")
            state = await api.start_session(world.patient_a, "appointment_scheduling")
            sid = state.session.session_id
            await api.add_turn(sid, "I need to reschedule my cardiology follow-up. I can't do mornings.")
            await api.add_turn(sid, "What about Thursday?")
            offers = await api.search_offers(sid)
            with pytest.raises(errors.NotFound):
                await api.get_workflow(uuid.uuid4())
            both = await anyio_gather(api.list_memories(world.patient_a), api.session_context(sid))
            return offers, both

    async def anyio_gather(*coros):
        results = [None] * len(coros)

        async def run(i, c):
            results[i] = await c
        async with anyio.create_task_group() as tg:
            for i, c in enumerate(coros):
                tg.start_soon(run, i, c)
        return results

    started = time.monotonic()
    offers, (memories, ctx) = anyio.run(go)
    assert [o.slot_id for o in offers.offers] == ["A1"] and memories == []
    assert isinstance(ctx, models.SessionContext) and time.monotonic() - started < 60


def test_an_agents_export_and_what_the_server_refuses_before_the_application_have_their_own_class(world, live):
    """Documented problem codes the client knew no class for were raised as a bare ForbiddenError (an agent's
    export: 403 agent_cannot_export) or AnamnesisError (414 query_too_long, 431 headers_too_large)."""
    agent = world.token(sub=f"patient-{world.patient_a}", patient_id=world.patient_a, act="scheduling-agent",
                        scope="export:read memory:read")
    with AnamnesisClient(live.url, agent) as api:
        with pytest.raises(errors.AgentCannotExport) as export:
            api._run(Call("GET", f"/v1/patients/{world.patient_a}/export"))
        assert isinstance(export.value, errors.ForbiddenError) and export.value.status == 403
        with pytest.raises(errors.QueryTooLong) as query:
            api.search_memories(world.patient_a, "a" * 5000)  # past 4096 characters (600 CJK ones: 422 on q)
        assert query.value.status == 414 and query.value.request_id
        with pytest.raises(errors.HeadersTooLarge) as headers:
            api._run(Call("GET", f"/v1/patients/{world.patient_a}/memories", headers={"X-Note": "a" * 20_000}))
        assert headers.value.status == 431


@pytest.mark.parametrize("status, code, cls, family", [
    (409, "consent_exists", "ConsentExists", errors.ConflictError),
    (409, "grant_exists", "GrantExists", errors.ConflictError),
    (409, "revision_breaks_memories", "RevisionBreaksMemories", errors.ConflictError),
    (403, "unknown_organization", "UnknownOrganization", errors.ForbiddenError),
    (403, "agent_cannot_grant", "AgentCannotGrant", errors.ForbiddenError),
    (403, "purpose_not_permitted", "PurposeNotPermitted", errors.ForbiddenError),
    (403, "agent_cannot_export", "AgentCannotExport", errors.ForbiddenError),
    (403, "consent_revoked", "ConsentRevoked", errors.ForbiddenError),
    (403, "consent_expired", "ConsentExpired", errors.ForbiddenError),
    (408, "request_timeout", "RequestTimeout", errors.AnamnesisError),
    (411, "length_required", "LengthRequired", errors.AnamnesisError),
    (409, "not_quarantined", "NotQuarantined", errors.ConflictError),
])
def test_documented_problem_codes_have_their_own_class_in_their_family(status, code, cls, family):
    """A caller catches the precise refusal (a consent that already exists) or its family (any conflict)."""
    error = errors.error_from_problem(status, {"code": code, "message": "m", "request_id": "r-1"})
    assert type(error).__name__ == cls and isinstance(error, family) and error.code == code
    assert error.request_id == "r-1" and cls in errors.__all__



def test_every_problem_code_the_service_answers_has_its_own_class_of_the_same_status():
    """What gunicorn refuses before the application (400 bad_request, 417 expectation_failed, 501 not_implemented)
    and the middleware's 400 bad_content_length had no class: raised as a bare AnamnesisError (400 had no family
    either). Every code the API answers (each ApiError class, each code given to one where it is raised, the
    middleware's and gunicorn's problems; the portal's pages and the MCP transport are not the API) has its own
    class here, of the status the service answers it with, and 400 is the BadRequest family."""
    import ast
    import re

    import config.urls  # noqa: F401  every view, so every problem class of the service, loaded
    from core.errors import ApiError
    from core.gunicorn_worker import _SERVER_PROBLEMS
    from tests.fakes.processes import BASE_DIR

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    problem_classes = {cls.__name__: cls for cls in [ApiError, *subclasses(ApiError)]}
    answered = {cls.code: cls.status_code for cls in problem_classes.values()}
    answered.update({code: status for status, (code, _title) in _SERVER_PROBLEMS.items()})
    for app in ("core", "config", "consent", "directory", "memory", "conversations", "workflows", "rights", "events"):
        for path in (BASE_DIR / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            source = path.read_text()
            answered.update({code: int(status) for status, code in re.findall(r'json_problem\((\d+), "(\w+)"', source)})
            for node in ast.walk(ast.parse(source)):
                name = getattr(node, "func", None) and getattr(node.func, "id", getattr(node.func, "attr", None))
                if isinstance(node, ast.Call) and name in problem_classes:
                    for keyword in node.keywords:
                        if keyword.arg == "code" and isinstance(keyword.value, ast.Constant):
                            answered[keyword.value.value] = problem_classes[name].status_code
    assert len(answered) > 60, sorted(answered)
    mismatched = {code: (status, getattr(errors.PROBLEM_CLASSES.get(code), "status", None))
                  for code, status in answered.items()
                  if getattr(errors.PROBLEM_CLASSES.get(code), "status", None) != status}
    assert mismatched == {}, "code: (the service's status, the client's)"
    for code in ("bad_request", "bad_content_length", "malformed_json"):
        assert isinstance(errors.error_from_problem(400, {"code": code}), errors.BadRequest), code
    assert type(errors.error_from_problem(400, {"code": "brand_new"})) is errors.BadRequest


def test_the_client_reads_what_conversations_flagged_for_the_care_team(world, live):
    pid = world.patient_a
    patient = world.patient(pid)
    sid = patient.post("/v1/sessions", {"patient_id": str(pid), "purpose": "appointment_scheduling"}).json()[
        "session"]["session_id"]
    patient.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "I have crushing chest pain right now"})
    world.grant(pid, "nurse-8", "appointment_scheduling")
    older = patient.post("/v1/sessions", {"patient_id": str(pid), "purpose": "appointment_scheduling"}).json()[
        "session"]["session_id"]
    patient.post(f"/v1/sessions/{older}/turns", {"role": "user", "content": "I take warfarin, a blood thinner"})
    # more flagged sessions than one page holds (100): the client reads every page
    with identity_context(Identity(org_id=world.org, actor_sub=f"patient-{pid}", patient_self_id=pid,
                                   actor_kind=ACTOR_PATIENT)):
        template = ConversationSession.objects.get(session_id=older)
        ConversationSession.objects.bulk_create([ConversationSession(**{
            f.attname: getattr(template, f.attname) for f in ConversationSession._meta.concrete_fields
            if f.attname != "session_id"}) for _ in range(100)])
    with AnamnesisClient(live.url, world.token(sub="nurse-8")) as api:
        flags = api.care_team_flags(pid)
    assert flags and flags[0].urgent is True and str(flags[0].session_id) == sid
    assert len({str(f.session_id) for f in flags}) == 102 and str(older) in {str(f.session_id) for f in flags}


def test_every_read_names_its_purpose_and_one_the_agent_holds_no_consent_for_is_refused(world, live):
    """A client made with ``purpose=`` names it on every read (the patient's activity page shows it); a call's own
    purpose wins; a purpose without the patient's consent raises PurposeNotPermitted."""
    world.consent(world.patient_a, "appointment_scheduling")
    agent = world.token(sub=f"patient-{world.patient_a}", patient_id=world.patient_a, scope=PATIENT_SCOPES,
                        act="scheduling-agent")
    with AnamnesisClient(live.url, agent, purpose="appointment_scheduling") as api:
        assert api.list_memories(world.patient_a) == []
        assert api.search_memories(world.patient_a, "when can I come in?").items == []
        assert api.context_pack(world.patient_a, "when can I come in?").purpose == "appointment_scheduling"
        assert api.list_proposals(world.patient_a) == []
        with pytest.raises(errors.PurposeNotPermitted) as refused:
            api.list_memories(world.patient_a, purpose="communication")
        assert refused.value.status == 403
    with AnamnesisClient(live.url, patient_token(world, scope=PATIENT_SCOPES + " audit:read")) as me:
        history = me._run(Call("GET", "/v1/audit-events", params={"limit": "50"}))
    by_agent = {(e["action"], e["outcome"], e["purpose"]) for e in history["items"] if e["agent_client_id"]}
    sched = "appointment_scheduling"
    assert {("memory.list", "success", sched), ("memory.search", "success", sched),
            ("memory.proposals", "success", sched), ("memory.list", "denied", "communication")} <= by_agent


def prior_authorization_submitted(world, live) -> tuple[models.Workflow, models.Operation]:
    """The patient's prior authorisation at its submission step, with the insurer submission asked for."""
    payload = {"referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-1"}
    with AnamnesisClient(live.url, patient_token(world)) as api:
        wf = api.create_workflow("prior_authorization", world.patient_a)
        wf = api.checkpoint(wf.workflow_id, models.CheckpointIn(
            expected_version=wf.version, next_step="submit_prior_authorization",
            state_patch={"referral_verified": True}))
        op = api.request_operation(wf.workflow_id, expected_version=wf.version, kind="submit_prior_authorization",
                                   payload=payload)
    return wf, op


def test_list_operations_gives_every_operation_past_the_services_first_page(world, live):
    """list_operations returned the first page the service answers (its newest 100 operations) and dropped the
    rest without a word: an agent resuming a long workflow never saw the older ones. The sync and the async client
    follow next_cursor to the oldest."""
    from core.identity import ACTOR_PATIENT, Identity, identity_context
    from workflows.models import Operation

    wf, _ = prior_authorization_submitted(world, live)
    me = Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a,
                  actor_kind=ACTOR_PATIENT)
    with identity_context(me):
        first = Operation.objects.get(workflow_id=wf.workflow_id)
        Operation.objects.bulk_create([Operation(
            organization_id=first.organization_id, patient_id=first.patient_id, purpose=first.purpose,
            workflow_id=first.workflow_id, kind=first.kind, system=first.system, idempotency_key=f"older-{i}",
            payload=first.payload, payload_hash=first.payload_hash, status="cancelled",
            attempt_limit=first.attempt_limit, requested_by=first.requested_by,
            requested_at_version=first.requested_at_version, completed_at=first.created_at) for i in range(104)])

    with AnamnesisClient(live.url, patient_token(world)) as api:
        ops = api.list_operations(wf.workflow_id)
    assert len(ops) == 105 and len({op.operation_id for op in ops}) == 105
    assert first.operation_id in {op.operation_id for op in ops}

    async def read_async():
        async with AsyncAnamnesisClient(live.url, patient_token(world)) as api:
            return await api.list_operations(wf.workflow_id)

    assert [op.operation_id for op in anyio.run(read_async)] == [op.operation_id for op in ops]


def test_list_proposals_gives_every_waiting_proposal_past_the_services_first_page(world, live):
    """list_proposals returned the first page the service answers (its oldest 100 proposals) and dropped the rest
    without a word: a patient reviewing her agents' proposals never saw the newer ones. The sync and the async
    client follow next_cursor to the newest, and keep the purpose on every page."""
    consent_id = world.consent(world.patient_a)
    made = propose_many(world.keyring, org_id=world.org, patient_id=world.patient_a, consent_id=consent_id,
                        count=103)
    with AnamnesisClient(live.url, patient_token(world), purpose="appointment_scheduling") as api:
        proposals = api.list_proposals(world.patient_a)
    assert [str(p.memory_id) for p in proposals] == made

    async def read_async():
        async with AsyncAnamnesisClient(live.url, patient_token(world)) as api:
            return await api.list_proposals(world.patient_a, purpose="appointment_scheduling")

    assert [str(p.memory_id) for p in anyio.run(read_async)] == made


def test_list_memories_gives_every_memory_past_the_services_first_page(world, live):
    """The memory list is answered a page at a time (100 by default): list_memories gives every page, the sync and
    the async client alike, keeping the purpose and the filters on every page."""
    made = remember_many(org_id=world.org, patient_id=world.patient_a, consent_id=world.consent(world.patient_a),
                         count=130)
    with AnamnesisClient(live.url, patient_token(world), purpose="appointment_scheduling") as api:
        memories = api.list_memories(world.patient_a, memory_type="scheduling_preference")
    assert [str(m.memory_id) for m in memories] == made

    async def read_async():
        async with AsyncAnamnesisClient(live.url, patient_token(world)) as api:
            return await api.list_memories(world.patient_a, purpose="appointment_scheduling")

    assert [str(m.memory_id) for m in anyio.run(read_async)] == made


def test_list_proposals_says_which_are_stale_and_what_overtook_them(world, live):
    """The proposals list marks one made before its attribute's current value became current (confirming it is
    proposal_stale): the client's Proposal declares stale and overtaken_by (the current value's id)."""
    consent_id = world.consent(world.patient_a)
    with AnamnesisClient(live.url, patient_token(world), purpose="appointment_scheduling") as api:
        old = api.propose_memory(world.patient_a, models.ProposalIn(
            memory_type="scheduling_preference", fact={"kind": "latest_time", "time": "15:00"},
            consent_purpose="appointment_scheduling", consent_record_id=consent_id, source_ref="turn:1"))
        stated = api.record_memory(world.patient_a, models.MemoryIn(
            memory_type="scheduling_preference", fact={"kind": "latest_time", "time": "17:00"},
            consent_purpose="appointment_scheduling", consent_record_id=consent_id))
        proposals = api.list_proposals(world.patient_a)
    assert [(p.memory_id, p.stale, p.overtaken_by) for p in proposals] == [
        (old.memory_id, True, stated.memory_id)]


def test_staff_resolve_an_unknown_outcome_and_see_who_asked_for_each_operation(world, live):
    """The Python client had no call for the staff resolution of an unknown outcome (POST .../resolve) nor for the
    retry of one, and its Operation did not declare requested_by_kind, which the TypeScript client's type has:
    staff reconciling from Python went around the client. An insurer submission the patient asked for, its outcome
    unknown (parked by the worker, here set so in the database): staff see who asked, resolve it as sent with the
    insurer's id, the same resolution again answers the same operation, another is OperationNotResolvable, and a
    settled operation is not retried."""
    from tests.conftest import admin_connect

    wf, op = prior_authorization_submitted(world, live)
    with admin_connect() as conn:
        conn.execute("UPDATE workflow_operation SET status = 'outcome_unknown', outcome_uncertain = true, "
                     "attempts = attempt_limit, next_attempt_at = NULL WHERE operation_id = %s", [op.operation_id])
    with AnamnesisClient(live.url, patient_token(world, scope=f"{PATIENT_SCOPES} workflow:reconcile")) as api:
        with pytest.raises(errors.StaffOnly):
            api.resolve_operation(wf.workflow_id, op.operation_id, expected_version=wf.version, outcome="not_sent")
    world.grant(world.patient_a, "ops-py", "prior_authorization")
    staff = world.token(sub="ops-py", scope="workflow:read workflow:write workflow:reconcile")
    with AnamnesisClient(live.url, staff) as ops:
        [listed] = ops.list_operations(wf.workflow_id)
        assert "requested_by_kind" in models.Operation.model_fields
        assert (listed.status, listed.requested_by_kind) == ("outcome_unknown", "patient")
        version = ops.get_workflow(wf.workflow_id).version
        with pytest.raises(errors.VersionConflict):
            ops.resolve_operation(wf.workflow_id, op.operation_id, expected_version=version - 1, outcome="sent",
                                  external_id="AUTH-9")
        with pytest.raises(errors.ValidationError) as missing:
            ops.resolve_operation(wf.workflow_id, op.operation_id, expected_version=version, outcome="sent")
        assert missing.value.errors[0]["field"] == "external_id"
        resolved = ops.resolve_operation(wf.workflow_id, op.operation_id, expected_version=version,
                                         outcome="sent", external_id="AUTH-9")
        assert isinstance(resolved, models.Operation)
        assert (resolved.status, resolved.result, resolved.requested_by_kind) == (
            "succeeded", {"authorization_id": "AUTH-9"}, "patient")
        again = ops.resolve_operation(wf.workflow_id, op.operation_id, expected_version=version, outcome="sent",
                                      external_id="AUTH-9")
        assert again.operation_id == resolved.operation_id and again.status == "succeeded"
        with pytest.raises(errors.OperationNotResolvable):
            ops.resolve_operation(wf.workflow_id, op.operation_id, expected_version=version, outcome="not_sent")
        with pytest.raises(errors.OperationNotRetryable):
            ops.retry_operation(wf.workflow_id, op.operation_id)
        moved = ops.get_workflow(wf.workflow_id)
    assert moved.current_step == "await_insurer_decision" and moved.state["authorization_id"] == "AUTH-9"

    async def resolve_async():
        async with AsyncAnamnesisClient(live.url, staff) as ops:
            return await ops.resolve_operation(wf.workflow_id, op.operation_id, expected_version=version,
                                               outcome="sent", external_id="AUTH-9")

    assert anyio.run(resolve_async).status == "succeeded"


def test_an_id_that_is_no_identifier_is_refused_before_anything_is_sent(world, live):
    """Ids went into the request path as given, and httpx resolves dot segments and drops a fragment: a memory id
    '../consents/<id>/revoke#' given to confirm_memory revoked the patient's consent (then failed as a pydantic
    error), a workflow id '../patients/<id>/consents' read her consents, 'x?purpose=...' added a query. A path
    segment that is no identifier now raises ValueError, and nothing reaches the service."""
    cid = world.consent(world.patient_a)
    with AnamnesisClient(live.url, patient_token(world)) as api:
        for call in (lambda: api.confirm_memory(world.patient_a, f"../consents/{cid}/revoke#"),
                     lambda: api.get_workflow(f"../patients/{world.patient_a}/consents"),
                     lambda: api.get_memory(world.patient_a, "x?purpose=care_coordination"),
                     lambda: api.end_session("")):
            with pytest.raises(ValueError, match="not an identifier"):
                call()
        [consent] = api._run(Call("GET", f"/v1/patients/{world.patient_a}/consents"))["items"]
        assert consent["status"] == "granted"
        workflow = api.create_workflow("appointment_booking", world.patient_a)
        assert api.get_workflow(str(workflow.workflow_id).upper()).workflow_id == workflow.workflow_id

    async def read_async():
        async with AsyncAnamnesisClient(live.url, patient_token(world)) as api:
            with pytest.raises(ValueError, match="not an identifier"):
                await api.confirm_memory(world.patient_a, f"../consents/{cid}/revoke#")

    anyio.run(read_async)


def test_proposing_from_a_turn_that_is_not_the_patients_is_a_validation_error_as_the_api_answers_it(world, live):
    """The API answers 422 not_a_patient_statement (and 422 purpose_not_supported), but the client's classes said
    403 and put the first among the ForbiddenErrors, the second in no family: a caller catching ValidationError
    for the 422s it can correct missed both, and one catching ForbiddenError took a 422 for a refusal."""
    world.consent(world.patient_a)
    with AnamnesisClient(live.url, patient_token(world)) as api:
        state = api.start_session(world.patient_a, "appointment_scheduling")
        sid = state.session.session_id
        api.add_turn(sid, "I can't do mornings.")
        api.add_turn(sid, "Noted: afternoons only.", role="assistant")
        with pytest.raises(errors.NotAPatientStatement) as refused:
            api.propose_from_turn(sid, 2)
    assert refused.value.status == 422 and isinstance(refused.value, errors.ValidationError)
    assert not isinstance(refused.value, errors.ForbiddenError)
    for code in ("not_a_patient_statement", "purpose_not_supported"):
        error = errors.error_from_problem(422, {"code": code})
        assert isinstance(error, errors.ValidationError) and type(error).status == 422, code


class Canned:
    """An outside system in front of the service (a proxy, a cache): a real HTTP server answering each request
    with ``answer(method, path)`` -> (status, headers, body bytes), recording what was asked."""

    def __init__(self, answer) -> None:
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.requests.append((self.command, self.path, dict(self.headers)))
                status, headers, body = answer(self.command, self.path)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_DELETE = _any  # noqa: N815

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_success_whose_body_is_not_the_operations_answer_is_an_unexpected_response_holding_none_of_it():
    """A 200 from a proxy's HTML page, a JSON array where an object is due, a body cut short: the caller got a raw
    KeyError, TypeError or a model error quoting the body (a patient's data). Each is UnexpectedResponse with the
    status and nothing of the body, sync and async, from the named methods and from request()."""
    secret = "Jane Doe penicillin allergy"
    bodies = {
        "html": (200, {"Content-Type": "text/html"}, f"<html>{secret}</html>".encode()),
        "array": (200, {"Content-Type": "application/json"}, json.dumps([{"note": secret}]).encode()),
        "cut": (200, {"Content-Type": "application/json"}, b'{"workflow_id": "' + secret.encode()),
        "list-object": (200, {"Content-Type": "application/json"}, json.dumps({"items": {"x": secret}}).encode()),
        "wrong": (200, {"Content-Type": "application/json"}, json.dumps({"name": secret}).encode()),
        "empty": (200, {"Content-Type": "application/json"}, b""),
    }
    current = {"kind": "html"}
    server = Canned(lambda method, path: bodies[current["kind"]])
    try:
        with AnamnesisClient(server.url, "t", sleep=Sleeps()) as api:
            for kind in bodies:
                current["kind"] = kind
                for call in (lambda: api.get_workflow(uuid.uuid4()), lambda: api.list_memories(uuid.uuid4()),
                             lambda: api.list_operations(uuid.uuid4())):
                    with pytest.raises(errors.UnexpectedResponse) as raised:
                        call()
                    assert raised.value.status == 200 and raised.value.code == "unexpected_response", kind
                    assert secret not in str(raised.value) and secret not in repr(raised.value.__dict__), kind
                    assert raised.value.__cause__ is None, "no model error quoting the body is chained"
            for kind in ("html", "cut"):
                current["kind"] = kind
                with pytest.raises(errors.UnexpectedResponse):
                    api.request("GET", "/v1/grants")

        async def read_async():
            async with AsyncAnamnesisClient(server.url, "t") as api:
                await api.get_workflow(uuid.uuid4())

        current["kind"] = "array"
        with pytest.raises(errors.UnexpectedResponse):
            anyio.run(read_async)
    finally:
        server.stop()


def test_a_list_whose_cursor_repeats_or_whose_page_adds_nothing_stops_with_paging_loop():
    """A cache in front of the service answering every page with the first (the same next_cursor) made
    list_operations loop for ever; so did a page with no items naming another cursor. Both are PagingLoop (an
    UnexpectedResponse), after a bounded number of requests."""
    operation = {"operation_id": str(uuid.uuid4()), "workflow_id": str(uuid.uuid4()), "kind": "book_appointment",
                 "system": "scheduling", "status": "pending", "idempotency_key": "k", "attempts": 0}
    pages = {"mode": "repeat"}

    def answer(method, path):
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
        if pages["mode"] == "repeat":
            body = {"items": [operation], "next_cursor": "c1"}
        elif pages["mode"] == "empty":
            body = {"items": [], "next_cursor": f"c{len(query.get('cursor', []))}x{time.monotonic_ns()}"}
        else:  # two pages, then the end
            body = {"items": [operation], "next_cursor": None if query.get("cursor") else "c1"}
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    server = Canned(answer)
    try:
        with AnamnesisClient(server.url, "t") as api:
            for mode in ("repeat", "empty"):
                pages["mode"] = mode
                server.requests.clear()
                with pytest.raises(errors.PagingLoop) as raised:
                    api.list_operations(uuid.uuid4())
                assert isinstance(raised.value, errors.UnexpectedResponse) and len(server.requests) <= 2, mode
            pages["mode"] = "end"
            assert len(api.list_operations(uuid.uuid4())) == 2
    finally:
        server.stop()


def test_a_proxys_502_503_and_504_are_retried_only_when_safe_and_fractional_retry_after_is_honoured():
    """A proxy before the service answering 502 or 504 (its page, no problem document) raised at once even for a
    read, and ``Retry-After: 1.5`` was ignored (the client's own backoff instead). Now 502, 504 and a 503 that is
    not the service's are sent again for reads and keyed calls, never for an unkeyed write (it may have reached the
    service); Retry-After is honoured as fractional seconds or an HTTP date."""
    status = {"code": 502, "retry_after": "1.5"}

    def answer(method, path):
        return status["code"], {"Content-Type": "text/html", "Retry-After": status["retry_after"]}, b"<h1>Bad</h1>"

    proxy = Canned(answer)
    try:
        for code in (502, 503, 504):
            status["code"] = code
            sleeps = Sleeps()
            with AnamnesisClient(proxy.url, "t", sleep=sleeps, retry=RetryPolicy(max_retries=2)) as api:
                proxy.requests.clear()
                with pytest.raises(errors.AnamnesisError) as raised:
                    api.get_workflow(uuid.uuid4())
                assert raised.value.status == code and len(proxy.requests) == 3, code
                assert sleeps == [1.5, 1.5], "Retry-After in fractional seconds"
                proxy.requests.clear()
                with pytest.raises(errors.AnamnesisError):
                    api.create_workflow("appointment_booking", uuid.uuid4())
                keys = {headers.get("Idempotency-Key") for _, _, headers in proxy.requests}
                assert len(proxy.requests) == 3 and len(keys) == 1, "a keyed create, under its key"
                proxy.requests.clear()
                with pytest.raises(errors.AnamnesisError):
                    api.end_session(uuid.uuid4())
                assert len(proxy.requests) == 1, "an unkeyed write may have reached the service: not sent again"
    finally:
        proxy.stop()
    assert parse_retry_after("0.25") == 0.25 and parse_retry_after("1.5.") is None
    soon = email.utils.format_datetime(datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=30),
                                       usegmt=True)
    assert 25 < parse_retry_after(soon) <= 30


def test_an_idempotency_key_the_service_would_refuse_is_refused_before_anything_is_sent(world, live):
    """A non-ASCII key raised httpx's UnicodeEncodeError deep in the call (the key quoted), and one over 100
    characters or holding a space was sent and refused by the service. The client applies the service's rule
    (1-100 of A-Z a-z 0-9 . _ : -) first: ValueError, nothing sent, the key not echoed; a key of 100 is sent."""
    server = Canned(lambda method, path: (500, {}, b""))
    try:
        with AnamnesisClient(server.url, "t", sleep=Sleeps()) as api:
            for key in ("clé-1", "Ωmega", "k" * 101, "two words", "", "line\n"):
                with pytest.raises(ValueError, match="idempotency_key") as raised:
                    api.create_workflow("appointment_booking", uuid.uuid4(), idempotency_key=key)
                assert key not in str(raised.value) or not key, key
                with pytest.raises(ValueError):
                    api.request("POST", "/v1/workflows", json={}, keyed=True, idempotency_key=key)
        assert server.requests == []
    finally:
        server.stop()
    with AnamnesisClient(live.url, patient_token(world)) as api:
        key = "k" * 100
        first = api.create_workflow("appointment_booking", world.patient_a, idempotency_key=key)
        assert api.create_workflow("appointment_booking", world.patient_a,
                                   idempotency_key=key).workflow_id == first.workflow_id


def test_an_async_client_credentials_provider_serves_every_event_loop_it_is_used_from(world, live):
    """Agent frameworks run each request in its own event loop (``asyncio.run`` per call, anyio's portals, trio)
    with one long-lived token provider. ClientCredentials held an asyncio.Lock, bound to the first loop where two
    calls met: in the next loop, two calls asking for a token at once raised RuntimeError ("bound to a different
    event loop"), and it could not run under trio at all. It holds anyio's lock (the running library's), and the
    async client waits between attempts with anyio's sleep, so both work wherever httpx does."""
    endpoint = TokenEndpoint(world, world.patient_a)
    provider = ClientCredentials(endpoint.url, "booking-agent", "s3cret", scope="memory:read workflow:read")

    async def two_at_once():
        provider.invalidate()
        tokens = []

        async def one():
            tokens.append(await provider.aget_token())

        async with anyio.create_task_group() as group:
            group.start_soon(one)
            group.start_soon(one)
        return tokens

    async def retried_read():
        gateway = Gateway(live.url, limit=1, retry_after="0.01")
        try:
            async with AsyncAnamnesisClient(gateway.url, provider) as api:  # the default sleep, in this loop
                return await api.list_memories(world.patient_a)
        finally:
            gateway.stop()

    try:
        for _ in range(2):
            assert len(anyio.run(two_at_once)) == 2
            assert anyio.run(retried_read) == []
        assert provider.fetches == 2, "one fetch for the two callers of each loop"
    finally:
        endpoint.stop()


def test_the_sync_clients_timeout_bounds_the_whole_attempt_when_the_head_is_slow_and_the_body_stalls():
    """httpx gives each read the whole timeout: a service (or proxy) that sent its answer's head just before the
    timeout and then nothing held a sync call made with timeout=2 for nearly 4 s an attempt (the async and the
    TypeScript clients gave up at 2). Each socket operation now gets what is left of the attempt: given up at about
    2 s, as the other clients do; the read is then retried, as a lost answer."""
    attempts: list[float] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            attempts.append(time.monotonic())
            time.sleep(1.6)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.flush()
            time.sleep(6)  # the body never comes

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with AnamnesisClient(f"http://127.0.0.1:{server.server_port}", "t", timeout=2, sleep=Sleeps(),
                             retry=RetryPolicy(max_retries=1)) as api:
            started = time.monotonic()
            with pytest.raises(errors.TransportError, match="Timeout"):
                api.get_workflow(uuid.uuid4())
            took = time.monotonic() - started
        assert len(attempts) == 2 and attempts[1] - attempts[0] < 2.7, attempts
        assert took < 5.4, f"two attempts of 2 s took {took:.1f} s"
    finally:
        server.shutdown()
        server.server_close()


def test_a_token_endpoints_retry_after_in_fractional_seconds_or_as_a_date_is_honoured():
    """The token endpoint's Retry-After was read only as whole seconds: 1.5, or an HTTP date, was dropped and the
    client fell back to its own backoff. It is read as the service's is."""
    retry_after = {"value": "1.5"}
    endpoint = Canned(lambda method, path: (503, {"Retry-After": retry_after["value"]}, b""))
    try:
        provider = ClientCredentials(f"{endpoint.url}/token", "booking-agent", "s3cret")
        with pytest.raises(errors.IdentityProviderUnavailable) as down:
            provider.get_token()
        assert down.value.retry_after == 1.5
        retry_after["value"] = email.utils.format_datetime(
            datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=30), usegmt=True)
        with pytest.raises(errors.IdentityProviderUnavailable) as down:
            provider.get_token()
        assert 25 < down.value.retry_after <= 30
    finally:
        endpoint.stop()


def test_an_error_answer_whose_json_is_not_a_problem_document_gives_fields_of_the_problems_shape():
    """A proxy's 4xx or 5xx JSON is no problem document: ``{"errors": "Too many", "message": 5}`` gave a caller
    ``errors == "Too many"`` (iterating it met characters, ``e["field"]`` a TypeError) and a number as the message.
    Only fields of the problem's shape are taken, as the TypeScript client takes them."""
    odd = json.dumps({"errors": "Too many", "message": 5, "title": ["x"], "request_id": {"id": 1}}).encode()
    mixed = json.dumps({"code": "validation_error", "errors": [None, "x", {"field": "purpose", "code": "invalid"}]})
    bodies = iter([odd, mixed.encode()])
    server = Canned(lambda method, path: (422, {"Content-Type": "application/json"}, next(bodies)))
    try:
        with AnamnesisClient(server.url, "t") as api:
            with pytest.raises(errors.ValidationError) as raised:
                api.get_workflow(uuid.uuid4())
            assert raised.value.errors == [] and raised.value.message == "validation_error"
            assert raised.value.title is None and raised.value.request_id is None
            with pytest.raises(errors.ValidationError) as raised:
                api.get_workflow(uuid.uuid4())
            assert [e["field"] for e in raised.value.errors] == ["purpose"]
    finally:
        server.stop()


def test_one_async_client_serves_a_new_event_loop_per_call(world, live):
    """Agent frameworks keep one client and run each request in a loop of its own (``asyncio.run`` per call).
    httpx's pooled connections belong to the loop that opened them, so every other call raised a raw
    ``RuntimeError: Event loop is closed`` (not even a TransportError, and not retried for a read). Each later
    loop gets connections of its own."""
    import asyncio

    api = AsyncAnamnesisClient(live.url, patient_token(world))
    for _ in range(3):
        assert asyncio.run(api.list_memories(world.patient_a)) == []
    asyncio.run(api.aclose())


@pytest.mark.parametrize("status, cls", [(413, "PayloadTooLarge"), (414, "QueryTooLong"), (408, "RequestTimeout"),
                                         (431, "HeadersTooLarge"), (500, "InternalError"), (405, "MethodNotAllowed")])
def test_a_proxys_refusal_without_a_problem_document_is_the_one_class_of_its_status(status, cls):
    """A proxy before the service refusing a body too large (nginx's 413 page) raised a bare AnamnesisError with
    code "error": a caller catching PayloadTooLarge missed it. A status only one class answers is that class."""
    server = Canned(lambda method, path: (status, {"Content-Type": "text/html"}, b"<h1>Too large</h1>"))
    try:
        with AnamnesisClient(server.url, "t", sleep=Sleeps()) as api:
            with pytest.raises(errors.AnamnesisError) as raised:
                api.create_workflow("appointment_booking", uuid.uuid4())
        assert type(raised.value).__name__ == cls and raised.value.status == status
    finally:
        server.stop()


def test_a_token_endpoint_whose_answer_trickles_in_is_given_up_after_the_providers_timeout():
    """httpx's timeout bounds each read: a token endpoint sending its answer a few bytes at a time held every call
    waiting for a token (ClientCredentials made with timeout=1) for as long as it went on, 15 s here. The whole
    answer must come within the timeout, sync and async; then TransportError (asked again as a 503 is)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            send_slowly(self, {"access_token": "t" * 60, "token_type": "Bearer"})

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/token"
    try:
        started = time.monotonic()
        with pytest.raises(errors.TransportError):
            ClientCredentials(url, "booking-agent", "s3cret", timeout=1).get_token()
        assert time.monotonic() - started < 3
        started = time.monotonic()
        with pytest.raises(errors.TransportError):
            anyio.run(ClientCredentials(url, "booking-agent", "s3cret", timeout=1).aget_token)
        assert time.monotonic() - started < 3
    finally:
        server.shutdown()
        server.server_close()


def test_a_proxys_redirect_is_an_unexpected_response_even_through_request():
    """The API redirects nowhere and the client follows no redirect: a proxy's 302 (to a sign-in page) with an
    empty body was answered by request() as the JSON {}, as if the operation had answered. It is
    UnexpectedResponse with the status."""
    server = Canned(lambda method, path: (302, {"Location": "https://sso.example/login"}, b""))
    try:
        with AnamnesisClient(server.url, "t") as api:
            with pytest.raises(errors.UnexpectedResponse) as raised:
                api.request("GET", "/v1/grants")
            assert raised.value.status == 302
            with pytest.raises(errors.UnexpectedResponse):
                api.get_workflow(uuid.uuid4())
    finally:
        server.stop()
