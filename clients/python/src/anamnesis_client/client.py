"""Sync and async clients. Every operation is declared once (``_Operations``) as a :class:`Call`; the two clients
differ only in how they send it.

Retries are safe by construction:

* creating calls (POSTs that make something), and the other calls the API takes an ``Idempotency-Key`` for (a
  checkpoint, a context pack), always carry one (yours, or a fresh UUID), the same on every attempt, so a retry
  after a lost answer cannot create a second thing, and gets the first answer rather than a version conflict;
* ``429`` and the service's own ``503`` (a problem document with its ``code``) mean nothing was changed: retried
  for every call, after ``Retry-After`` when sent (seconds, fractions too, or an HTTP date), otherwise exponential
  backoff with full jitter; but a ``503 commit_outcome_unknown`` (the write may have been saved) is retried only
  for reads and keyed calls, and otherwise raises :class:`CommitOutcomeUnknown`;
* a proxy's ``502``, ``503`` (no problem document of the service) and ``504`` may come after the request reached
  the service: retried, as a lost answer, only for reads and keyed calls;
* a network failure (no answer) is retried only for reads and keyed calls; anything else raises
  :class:`TransportError` because the first attempt may have landed;
* a ``401`` asks the token provider for a fresh token once; a token provider whose authorization server is
  busy, down or out of reach (``IdentityProviderUnavailable``, ``TransportError``) is asked again as a ``503`` is.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
import uuid
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import anyio
import httpcore
import httpx
from pydantic import BaseModel
from pydantic import ValidationError as ModelError

from anamnesis_client import models as m
from anamnesis_client.auth import StaticToken, TokenProvider
from anamnesis_client.errors import (
    AnamnesisError,
    CommitOutcomeUnknown,
    PagingLoop,
    RetryableError,
    TransportError,
    UnexpectedResponse,
    error_from_problem,
)
from anamnesis_client.transport import ATTEMPT_DEADLINE, DeadlineBackend, parse_retry_after

# A proxy's failures: the request may have reached the service, so sent again only when that is safe.
PROXY_RETRY_STATUSES = frozenset({502, 503, 504})
# A body that is not JSON (a proxy's page, a body cut short): never given to a caller as if it were an answer.
_UNREADABLE = object()


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_max: float = 20.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        return random.uniform(0, min(self.backoff_max, self.backoff_base * 2 ** attempt))  # noqa: S311


@dataclass
class Call:
    method: str
    path: str
    model: type[BaseModel] | None = None
    params: dict[str, Any] | None = None
    json: Any = None
    creating: bool = False  # takes an Idempotency-Key: a fresh one unless the caller gives theirs
    idempotency_key: str | None = None
    unwrap: str | None = None  # a list under this key, each item a `model`
    paged: bool = False  # a list read a page at a time: its pages are followed through next_cursor to the end
    headers: dict[str, str] = field(default_factory=dict)


# What a segment of one of our paths is made of: the path's own words, ids (UUIDs), a turn's number, a type's name.
_PATH_SEGMENT = re.compile(r"[A-Za-z0-9_-]+")


def _check_path(path: str) -> None:
    """Refuses a path an id passed to a method has changed: "../grants/<id>/revoke" as a memory id was sent to
    another operation (httpx resolves dot segments), "x?y" added a query. Nothing is sent."""
    segments = path.split("/")
    if segments[0] != "" or not all(_PATH_SEGMENT.fullmatch(s) for s in segments[1:]):
        raise ValueError(f"not an identifier in the request path {path!r}: ids are UUIDs")


# The service's rule for an Idempotency-Key (core.idempotency): another is refused there after the call was built.
_IDEMPOTENCY_KEY = re.compile(r"[A-Za-z0-9._:-]{1,100}")


def _check_key(key: str | None) -> None:
    """Refuses a key the service would refuse (non-ASCII, too long, a space): nothing is sent. The key is not
    echoed: a caller may have built it from what it writes."""
    if key is not None and not (isinstance(key, str) and _IDEMPOTENCY_KEY.fullmatch(key)):
        raise ValueError("idempotency_key: 1-100 of A-Z a-z 0-9 . _ : - (the service refuses any other)")


def _params(**kwargs) -> dict[str, Any]:
    return {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in kwargs.items() if v is not None}


class _Operations:
    """The API, one method per operation. Sync clients return the model; async clients return an awaitable."""

    default_purpose: str | None = None

    def _run(self, call: Call):  # pragma: no cover - implemented by the clients
        raise NotImplementedError

    def _purpose(self, purpose: str | None, older: str | None = None) -> str | None:
        """The purpose a read names: the call's, else (unless the call names it by its older name) the client's."""
        if purpose is not None or older is not None:
            return purpose
        return self.default_purpose

    def request(self, method: str, path: str, *, params: dict[str, Any] | None = None, json: Any = None,
                keyed: bool = False, idempotency_key: str | None = None):
        """Any operation of the OpenAPI document by its path (ids filled in: ``f"/v1/grants/{grant_id}/revoke"``),
        with this client's token, retries and typed errors; returns the answer's JSON. ``keyed=True`` for an
        operation that takes an Idempotency-Key (the document's creating POSTs): a fresh one unless you give
        yours, the same on every attempt. A list answers one page: pass its ``next_cursor`` as ``cursor``."""
        return self._run(Call(method.upper(), path, params=_params(**(params or {})), json=json,
                              creating=keyed, idempotency_key=idempotency_key))

    # --- consents ------------------------------------------------------------------------------------------
    def give_consent(self, patient_id: uuid.UUID | str, purpose: str, *, evidence_ref: str | None = None,
                     expires_at: datetime | None = None, idempotency_key: str | None = None):
        """Record a consent. The patient's own token needs nothing more; staff and agents name the evidence
        (``evidence_ref``, e.g. the signed form)."""
        body: dict[str, Any] = {"purpose": purpose}
        if evidence_ref is not None:
            body["evidence_ref"] = evidence_ref
        if expires_at is not None:
            body["expires_at"] = expires_at.isoformat()
        return self._run(Call("POST", f"/v1/patients/{patient_id}/consents", m.Consent, json=body,
                              creating=True, idempotency_key=idempotency_key))

    # --- long-term memory ----------------------------------------------------------------------------------
    # Every read names its purpose of use (``purpose``): the patient's activity page shows it, and a purpose the
    # caller holds no consent or grant for is PurposeNotPermitted. Left out, the token's one ``purpose_of_use``
    # claim is used (``purpose=None``); a client made with ``purpose=`` passes that one on every read.
    def list_memories(self, patient_id: uuid.UUID | str, *, memory_type: str | None = None,
                      consent_purpose: str | None = None, purpose: str | None = None):
        """Every memory kept for ``purpose`` (``consent_purpose`` is its older name); the service answers a page at
        a time, and every page is read."""
        return self._run(Call("GET", f"/v1/patients/{patient_id}/memories", m.Memory, unwrap="items",
                              params=_params(memory_type=memory_type, consent_purpose=consent_purpose,
                                             purpose=self._purpose(purpose, consent_purpose)), paged=True))

    def get_memory(self, patient_id: uuid.UUID | str, memory_id: uuid.UUID | str, *, purpose: str | None = None):
        return self._run(Call("GET", f"/v1/patients/{patient_id}/memories/{memory_id}", m.Memory,
                              params=_params(purpose=self._purpose(purpose))))

    def record_memory(self, patient_id: uuid.UUID | str, memory: m.MemoryIn, *, idempotency_key: str | None = None):
        return self._run(Call("POST", f"/v1/patients/{patient_id}/memories", m.MemoryStored, json=memory.body(),
                              creating=True, idempotency_key=idempotency_key))

    def propose_memory(self, patient_id: uuid.UUID | str, proposal: m.ProposalIn, *,
                       idempotency_key: str | None = None):
        return self._run(Call("POST", f"/v1/patients/{patient_id}/memories/proposals", m.Memory,
                              json=proposal.body(), creating=True, idempotency_key=idempotency_key))

    def care_team_flags(self, patient_id: uuid.UUID | str, *, purpose: str | None = None):
        """What the patient's conversations flagged for the care team (staff who may see them), urgent first (the
        service answers a page at a time: every page is read)."""
        return self._run(Call("GET", f"/v1/patients/{patient_id}/care-team-flags", m.CareTeamFlag, unwrap="items",
                              params=_params(purpose=self._purpose(purpose)), paged=True))

    def list_proposals(self, patient_id: uuid.UUID | str, *, purpose: str | None = None):
        """Every proposal waiting for the patient or staff, oldest first (the service answers a page at a time);
        with a purpose, only those kept for it."""
        return self._run(Call("GET", f"/v1/patients/{patient_id}/memories/proposals", m.Proposal, unwrap="items",
                              params=_params(purpose=self._purpose(purpose)), paged=True))

    def confirm_memory(self, patient_id: uuid.UUID | str, memory_id: uuid.UUID | str):
        return self._run(Call("POST", f"/v1/patients/{patient_id}/memories/{memory_id}/confirm", m.Memory))

    def search_memories(self, patient_id: uuid.UUID | str, q: str, *, limit: int | None = None,
                        min_score: float | None = None, consent_purpose: str | None = None,
                        memory_class: str | None = None, purpose: str | None = None,
                        memory_type: str | Sequence[str] | None = None):
        """``memory_type``: search only memories of this type, or of these types (filtered before ranking)."""
        types = memory_type if memory_type is None or isinstance(memory_type, str) else ",".join(memory_type)
        return self._run(Call("GET", f"/v1/patients/{patient_id}/memories/search", m.SearchResult,
                              params=_params(q=q, limit=limit, min_score=min_score, consent_purpose=consent_purpose,
                                             memory_class=memory_class, memory_type=types,
                                             purpose=self._purpose(purpose, consent_purpose))))

    def context_pack(self, patient_id: uuid.UUID | str, question: str, purpose: str | None = None, *,
                     limit: int | None = None, session_id: uuid.UUID | str | None = None,
                     idempotency_key: str | None = None):
        body: dict[str, Any] = {"question": question}
        if self._purpose(purpose) is not None:
            body["purpose"] = self._purpose(purpose)
        if limit is not None:
            body["limit"] = limit
        if session_id is not None:
            body["session_id"] = str(session_id)
        return self._run(Call("POST", f"/v1/patients/{patient_id}/context", m.ContextPack, json=body, creating=True,
                              idempotency_key=idempotency_key))

    # --- short-term context --------------------------------------------------------------------------------
    def start_session(self, patient_id: uuid.UUID | str, purpose: str, *, idempotency_key: str | None = None):
        return self._run(Call("POST", "/v1/sessions", m.SessionState,
                              json={"patient_id": str(patient_id), "purpose": purpose}, creating=True,
                              idempotency_key=idempotency_key))

    def add_turn(self, session_id: uuid.UUID | str, content: str, *, role: str = "user",
                 tool_name: str | None = None, tool_result: dict | None = None, idempotency_key: str | None = None):
        body: dict[str, Any] = {"role": role, "content": content}
        if tool_name is not None:
            body["tool_name"] = tool_name
        if tool_result is not None:
            body["tool_result"] = tool_result
        return self._run(Call("POST", f"/v1/sessions/{session_id}/turns", m.TurnAppended, json=body, creating=True,
                              idempotency_key=idempotency_key))

    def session_context(self, session_id: uuid.UUID | str, *, max_tokens: int | None = None,
                        purpose: str | None = None):
        """A session is read for the purpose it is held for (another is PurposeNotPermitted)."""
        return self._run(Call("GET", f"/v1/sessions/{session_id}/context", m.SessionContext,
                              params=_params(max_tokens=max_tokens, purpose=self._purpose(purpose))))

    def search_offers(self, session_id: uuid.UUID | str, *, idempotency_key: str | None = None):
        return self._run(Call("POST", f"/v1/sessions/{session_id}/offers", m.Offers, creating=True,
                              idempotency_key=idempotency_key))

    def propose_from_turn(self, session_id: uuid.UUID | str, seq: int, *, idempotency_key: str | None = None):
        return self._run(Call("POST", f"/v1/sessions/{session_id}/turns/{seq}/propose", m.Proposals, creating=True,
                              idempotency_key=idempotency_key))

    def end_session(self, session_id: uuid.UUID | str, outcome: str = "completed"):
        return self._run(Call("POST", f"/v1/sessions/{session_id}/end", m.SessionState, json={"outcome": outcome}))

    # --- workflows -----------------------------------------------------------------------------------------
    def create_workflow(self, workflow_type: str, patient_id: uuid.UUID | str, *, state: dict | None = None,
                        idempotency_key: str | None = None):
        body = {"workflow_type": workflow_type, "patient_id": str(patient_id), "state": state or {}}
        return self._run(Call("POST", "/v1/workflows", m.Workflow, json=body, creating=True,
                              idempotency_key=idempotency_key))

    def get_workflow(self, workflow_id: uuid.UUID | str):
        return self._run(Call("GET", f"/v1/workflows/{workflow_id}", m.Workflow))

    def checkpoint(self, workflow_id: uuid.UUID | str, checkpoint: m.CheckpointIn, *,
                   idempotency_key: str | None = None):
        return self._run(Call("POST", f"/v1/workflows/{workflow_id}/checkpoint", m.Workflow,
                              json=checkpoint.body(), creating=True, idempotency_key=idempotency_key))

    def request_operation(self, workflow_id: uuid.UUID | str, *, expected_version: int, kind: str,
                          payload: dict[str, Any], idempotency_key: str | None = None):
        body = {"expected_version": expected_version, "kind": kind, "payload": payload}
        return self._run(Call("POST", f"/v1/workflows/{workflow_id}/operations", m.Operation, json=body,
                              creating=True, idempotency_key=idempotency_key))

    def retry_operation(self, workflow_id: uuid.UUID | str, operation_id: uuid.UUID | str):
        """Staff: a new retry budget for an operation whose retries ran out with an unknown outcome (same key: the
        outside system is asked first, and the request is sent again only if it never arrived)."""
        return self._run(Call("POST", f"/v1/workflows/{workflow_id}/operations/{operation_id}/retry", m.Operation))

    def resolve_operation(self, workflow_id: uuid.UUID | str, operation_id: uuid.UUID | str, *,
                          expected_version: int, outcome: str, external_id: str | None = None):
        """Staff (``workflow:reconcile``) record what the outside system told them of an operation whose outcome is
        unknown: ``outcome="sent"`` with its ``external_id`` (it succeeded; the workflow moves on with the id) or
        ``"not_sent"`` (it failed; ask for it again with a new key). Never attempted again. The same resolution
        again answers the operation as it is; another is :class:`errors.OperationNotResolvable`."""
        body: dict[str, Any] = {"expected_version": expected_version, "outcome": outcome}
        if external_id is not None:
            body["external_id"] = external_id
        return self._run(Call("POST", f"/v1/workflows/{workflow_id}/operations/{operation_id}/resolve",
                              m.Operation, json=body))

    def list_operations(self, workflow_id: uuid.UUID | str):
        """Every operation of the workflow, newest first (the service answers a page at a time)."""
        return self._run(Call("GET", f"/v1/workflows/{workflow_id}/operations", m.Operation, unwrap="items",
                              paged=True))


class _Base(_Operations):
    def __init__(self, base_url: str, token: TokenProvider | str, *, retry: RetryPolicy | None = None,
                 timeout: float = 10.0, user_agent: str = "anamnesis-client/0.1",
                 purpose: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.default_purpose = purpose  # the purpose of use every read names unless the call names its own
        self.token: TokenProvider = StaticToken(token) if isinstance(token, str) else token
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        self.user_agent = user_agent

    def _prepare(self, call: Call) -> tuple[dict[str, str], str | None]:
        _check_path(call.path)
        _check_key(call.idempotency_key)
        key = call.idempotency_key or (str(uuid.uuid4()) if call.creating else None)
        headers = {"Accept": "application/json", "User-Agent": self.user_agent, **call.headers}
        if key:
            headers["Idempotency-Key"] = key
        return headers, key

    @staticmethod
    def _next_page(call: Call, body: dict, page: list, seen: set[str]) -> Call | None:
        """The request for the page after ``body``, or None when it was the last. A cursor given before, or an
        empty page that names another, would be followed for ever: :class:`errors.PagingLoop`."""
        cursor = body.get("next_cursor") if call.paged else None
        if not cursor:
            return None
        if not isinstance(cursor, str):
            raise UnexpectedResponse(f"{call.method} {call.path}: next_cursor is not a cursor", status=200)
        if cursor in seen or not page:
            raise PagingLoop(f"{call.method} {call.path}: the service gave a cursor it gave before, or an empty page "
                             "with a cursor", status=200)
        seen.add(cursor)
        return replace(call, params={**(call.params or {}), "cursor": cursor})

    @staticmethod
    def _retry_on_transport(call: Call, key: str | None) -> bool:
        return call.method == "GET" or key is not None

    @classmethod
    def _retry_on_status(cls, call: Call, key: str | None, response: httpx.Response, body: Any) -> bool:
        """429 and the service's own 503 changed nothing. A 503 ``commit_outcome_unknown`` (the write may have been
        saved) and a proxy's 502, 503 or 504 (the request may have reached the service) are sent again only when
        that is safe without knowing (a read, a keyed call)."""
        status = response.status_code
        code = body.get("code") if isinstance(body, dict) else None
        if status == 429 or (status == 503 and isinstance(code, str) and code != CommitOutcomeUnknown.code):
            return True
        return status in PROXY_RETRY_STATUSES and cls._retry_on_transport(call, key)

    @staticmethod
    def _body(response: httpx.Response) -> Any:
        """The answer's JSON, parsed once for both the retry decision and the result ({} when it is none,
        ``_UNREADABLE`` when it is not JSON)."""
        try:
            return response.json() if response.content else {}
        except ValueError:
            return _UNREADABLE

    @staticmethod
    def _parse(call: Call, response: httpx.Response, body: Any):
        if response.status_code >= 400:
            if not isinstance(body, dict):
                body = {}
            raise error_from_problem(response.status_code, body,
                                     retry_after=parse_retry_after(response.headers.get("Retry-After")))
        # A success whose body is not the operation's (a proxy's page, an array for an object, a body cut short)
        # is UnexpectedResponse, never a KeyError or a model's error quoting the body: it may hold a patient's data.
        unexpected = UnexpectedResponse(f"{call.method} {call.path}: the answer is not what the operation answers",
                                        status=response.status_code)
        if body is _UNREADABLE or response.status_code >= 300:  # the API redirects nowhere: a proxy's, not followed
            raise unexpected
        if call.model is None:
            return body
        try:
            if call.unwrap:
                if not isinstance(body, dict) or not isinstance(body.get(call.unwrap), list):
                    raise unexpected
                return [call.model.model_validate(item) for item in body[call.unwrap]], body
            return call.model.model_validate(body)
        except ModelError:
            raise unexpected from None


class AnamnesisClient(_Base):
    """Synchronous client: ``with AnamnesisClient(url, token) as api: api.list_memories(patient_id)``."""

    def __init__(self, base_url: str, token: TokenProvider | str, *, retry: RetryPolicy | None = None,
                 timeout: float = 10.0, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep, purpose: str | None = None) -> None:
        super().__init__(base_url, token, retry=retry, timeout=timeout, purpose=purpose)
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, transport=transport)
        pool = getattr(getattr(self._http, "_transport", None), "_pool", None)
        if transport is None and isinstance(getattr(pool, "_network_backend", None), httpcore.NetworkBackend):
            # httpx names no way to give its transport a network backend: each socket operation is cut to what is
            # left of the attempt, so ``timeout`` bounds the whole attempt, connect and every read included
            pool._network_backend = DeadlineBackend(pool._network_backend)
        self._sleep = sleep

    def __enter__(self) -> AnamnesisClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _run(self, call: Call):
        result = self._send(call)
        if call.model is None or not call.unwrap:
            return result
        items, body = result
        seen: set[str] = set()
        page_call = self._next_page(call, body, items, seen)
        while page_call is not None:
            page, body = self._send(page_call)
            items += page
            page_call = self._next_page(page_call, body, page, seen)
        return items

    def _attempt(self, call: Call, headers: dict[str, str]) -> httpx.Response:
        """One request, given up (``httpx.ReadTimeout``) once ``timeout`` seconds pass without the whole answer.
        httpx's timeout bounds each connect and each read, so an answer trickling in a few bytes at a time held the
        caller for as long as it went on, and a slow connect or head then a stalled body for about twice the
        timeout: each socket operation is cut to what is left (``DeadlineBackend``), and the deadline is checked
        after each read."""
        deadline = time.monotonic() + self.timeout
        request = self._http.build_request(call.method, call.path, params=call.params, json=call.json,
                                           headers=headers)
        token = ATTEMPT_DEADLINE.set(deadline)
        try:
            return self._read_whole(request, deadline)
        finally:
            ATTEMPT_DEADLINE.reset(token)

    def _read_whole(self, request: httpx.Request, deadline: float) -> httpx.Response:
        response = self._http.send(request, stream=True)
        try:
            raw = bytearray()
            for chunk in response.iter_raw():
                raw += chunk
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout("the answer did not arrive whole in time", request=request)
        finally:
            response.close()
        return httpx.Response(response.status_code, headers=response.headers, content=bytes(raw), request=request)

    def _send(self, call: Call):
        headers, key = self._prepare(call)
        attempt, refreshed = 0, False
        while True:
            try:
                headers["Authorization"] = f"Bearer {self.token.get_token()}"
            except (RetryableError, TransportError) as exc:  # the authorization server's: asking again is safe
                if attempt < self.retry.max_retries:
                    self._sleep(self.retry.delay(attempt, exc.retry_after))
                    attempt += 1
                    continue
                raise
            try:
                response = self._attempt(call, headers)
            except httpx.TransportError as exc:
                if self._retry_on_transport(call, key) and attempt < self.retry.max_retries:
                    self._sleep(self.retry.delay(attempt, None))
                    attempt += 1
                    continue
                raise TransportError(f"{call.method} {call.path}: {type(exc).__name__}") from None
            if response.status_code == 401 and not refreshed:
                refreshed = True
                self.token.invalidate()
                if not isinstance(self.token, StaticToken):
                    continue
            body = self._body(response)
            if self._retry_on_status(call, key, response, body) and attempt < self.retry.max_retries:
                self._sleep(self.retry.delay(attempt, parse_retry_after(response.headers.get("Retry-After"))))
                attempt += 1
                continue
            return self._parse(call, response, body)


class AsyncAnamnesisClient(_Base):
    """Asynchronous client: ``async with AsyncAnamnesisClient(url, token) as api: await api.list_memories(p)``."""

    def __init__(self, base_url: str, token: TokenProvider | str, *, retry: RetryPolicy | None = None,
                 timeout: float = 10.0, transport: httpx.AsyncBaseTransport | None = None,
                 sleep: Callable[[float], Any] = anyio.sleep, purpose: str | None = None) -> None:
        super().__init__(base_url, token, retry=retry, timeout=timeout, purpose=purpose)
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, transport=transport)
        self._own_transport = transport is None
        self._loop: weakref.ref | None = None  # the asyncio event loop self._http's connections belong to
        self._sleep = sleep

    def _client(self) -> httpx.AsyncClient:
        """httpx's pooled connections belong to the event loop that opened them: one client used from a loop per
        call (``asyncio.run`` per request, as agent frameworks do) met a raw ``RuntimeError: Event loop is closed``
        on every other call. A later asyncio loop gets connections of its own (a transport you gave is kept)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio): no loops to tell apart
            return self._http
        if self._loop is not None and self._loop() is not loop and self._own_transport:
            self._http = httpx.AsyncClient(base_url=self.base_url, timeout=self.timeout)
        self._loop = weakref.ref(loop)
        return self._http

    async def __aenter__(self) -> AsyncAnamnesisClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client().aclose()  # the connections of this loop: an earlier loop's ended with it

    async def _run(self, call: Call):
        result = await self._send(call)
        if call.model is None or not call.unwrap:
            return result
        items, body = result
        seen: set[str] = set()
        page_call = self._next_page(call, body, items, seen)
        while page_call is not None:
            page, body = await self._send(page_call)
            items += page
            page_call = self._next_page(page_call, body, page, seen)
        return items

    async def _send(self, call: Call):
        headers, key = self._prepare(call)
        attempt, refreshed = 0, False
        while True:
            try:
                headers["Authorization"] = f"Bearer {await self.token.aget_token()}"
            except (RetryableError, TransportError) as exc:  # the authorization server's: asking again is safe
                if attempt < self.retry.max_retries:
                    await self._sleep(self.retry.delay(attempt, exc.retry_after))
                    attempt += 1
                    continue
                raise
            try:
                # the whole answer within ``timeout``: httpx's own bounds each read, not the answer
                with anyio.fail_after(self.timeout):
                    response = await self._client().request(call.method, call.path, params=call.params,
                                                           json=call.json, headers=headers)
            except (httpx.TransportError, TimeoutError) as exc:
                if self._retry_on_transport(call, key) and attempt < self.retry.max_retries:
                    await self._sleep(self.retry.delay(attempt, None))
                    attempt += 1
                    continue
                raise TransportError(f"{call.method} {call.path}: {type(exc).__name__}") from None
            if response.status_code == 401 and not refreshed:
                refreshed = True
                self.token.invalidate()
                if not isinstance(self.token, StaticToken):
                    continue
            body = self._body(response)
            if self._retry_on_status(call, key, response, body) and attempt < self.retry.max_retries:
                await self._sleep(self.retry.delay(attempt, parse_retry_after(response.headers.get("Retry-After"))))
                attempt += 1
                continue
            return self._parse(call, response, body)


__all__ = ["AnamnesisClient", "AsyncAnamnesisClient", "RetryPolicy", "Call", "AnamnesisError",
           "parse_retry_after"]
