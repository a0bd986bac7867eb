"""The base class of every agent-facing API view.

Its guarantees cannot be switched off by a subclass:

* authentication and scope checks happen first, outside any transaction;
* the handler runs inside :func:`core.identity.identity_context`, so every query of the request sees exactly the
  caller's rows and all writes (audit included) commit or roll back together;
* a refused access (403/404/409) is audited in a transaction of its own, after the rollback;
* subclasses must declare ``required_scopes`` (checked when the class is created);
* a view that creates something on POST declares ``idempotent_create = True``: an ``Idempotency-Key`` then makes
  retries safe (:mod:`core.idempotency`), in the creation's own transaction;
* a view may declare a quick read for its plainest GET (``quick_get_rows``, ``quick_get_data``): a request with a
  token this process has verified, no query string and JSON accepted is then answered without DRF's request
  wrapper, negotiation, authentication and permission objects, with the same statement, audit row, bytes and
  headers (:func:`_quick_get`); everything else takes DRF's path.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from urllib.parse import unquote_plus, unquote_to_bytes

import psycopg
from django.db import DatabaseError, InterfaceError, OperationalError, connections
from django.http import Http404, HttpResponse
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from core import audit, idempotency
from core.authentication import unstorable, verified_tokens
from core.errors import (
    ApiError,
    CommitOutcomeUnknown,
    ConcurrentUpdate,
    IdempotentResponseWithdrawn,
    InsufficientScope,
    RateLimited,
    ServiceUnavailable,
    UnknownOrganization,
    ValidationFailed,
)
from core.gate import RequestGate, failed_authentication_refused, request_client_address
from core.identity import (
    CommitInterrupted,
    Identity,
    LoneStatement,
    commit_held,
    commit_with_next_statement,
    identity_context,
    lone_statement,
    takes_no_writes,
)
from core.permissions import declared_method, required_scopes_for
from core.renderers import OrjsonRenderer
from core.vocabulary import uuid_or_none

log = logging.getLogger("anamnesis.api")

_AUDITED_REFUSALS = {403, 404, 409, 410}
MAX_QUERY_VALUE_CHARS = 500
MAX_QUERY_PARAMS = 20


# DRF's own: ``?format=json`` picks the renderer on every view (the export's json or fhir).
ALWAYS_ALLOWED_QUERY_PARAMS = frozenset({"format"})


def check_query_params(request, allowed: frozenset[str], blank_allowed: frozenset[str] = frozenset()) -> None:
    """Query parameters are the view's declared ones, each given once, not empty (unless declared so), short and
    storable: a misspelt or empty filter is not silently ignored (answering the unfiltered list), and no view ever
    has to store, log or audit a long one, nor send one PostgreSQL cannot hold (422 naming the parameter)."""
    params = request.query_params
    if not params:
        return
    if len(params) > MAX_QUERY_PARAMS:
        raise ValidationFailed(errors=[{"field": None, "code": "too_many",
                                        "message": f"at most {MAX_QUERY_PARAMS} query parameters"}])
    errors = [{"field": name[:40], "code": "max_length", "message": f"at most {MAX_QUERY_VALUE_CHARS} characters"}
              for name, values in params.lists()
              if len(name) > 40 or any(len(v) > MAX_QUERY_VALUE_CHARS for v in values)]
    # the code a JSON body's NUL gets (core.parsers): the same character is refused alike in either place
    errors += [{"field": name[:40], "code": "unstorable_character",
                "message": "NUL and unpaired surrogate characters cannot be stored"}
               for name, values in params.lists()
               if unstorable(name) or any(unstorable(v) for v in values)]
    errors += [{"field": name[:40], "code": "invalid_encoding",
                "message": "not UTF-8 once percent-decoded; send the text's UTF-8 bytes, percent-encoded"}
               for name in _not_utf8(request.META.get("QUERY_STRING", ""))]
    if errors:
        raise ValidationFailed(errors=errors)
    unknown = [{"field": name[:40], "code": "unknown_parameter",
                "message": f"not a parameter of this operation; it takes {', '.join(sorted(allowed)) or 'none'}"}
               for name in params if name not in allowed and name not in ALWAYS_ALLOWED_QUERY_PARAMS]
    repeated = [{"field": name[:40], "code": "repeated_parameter", "message": "given more than once"}
                for name, values in params.lists() if len(values) > 1]
    empty = [{"field": name[:40], "code": "blank", "message": "given empty; leave it out instead"}
             for name, values in params.lists()
             if "" in values and name not in blank_allowed and (name in allowed or name in ALWAYS_ALLOWED_QUERY_PARAMS)]
    if unknown or repeated or empty:
        raise ValidationFailed(errors=unknown + repeated + empty)


def _not_utf8(query: str) -> list[str]:
    """The names of the query parameters whose name or value is not UTF-8 once percent-decoded. Django decodes them
    with replacement characters, so ``q=%FF`` was searched for as "\ufffd" and answered as if asked; the client's
    text was lost without a word."""
    names: list[str] = []
    for pair in query.split("&"):
        raw_name, _, raw_value = pair.partition("=")
        try:
            for part in (raw_name, raw_value):
                unquote_to_bytes(part.replace("+", " ")).decode("utf-8")
        except UnicodeDecodeError:
            name = unquote_plus(raw_name, errors="replace")
            if name not in names:
                names.append(name)
    return names


_pool_restart_lock = threading.Lock()
_pool_restarted_at = float("-inf")


def _restart_pool_if_disconnected() -> None:
    """After a connection broke under a query, start a fresh connection pool (at most once a second per process).

    The pool's other idle connections are likely broken too (a restarted server no longer knows them); a fresh pool
    drops them and connects at the next request. A connection that could not be made at all is the database
    backend's business (core.postgresql: its circuit refuses new connections for a moment, and the pool is renewed
    for its trial); restarting the pool here too would close it under that trial."""
    global _pool_restarted_at
    wrapper = connections["default"]
    raw = wrapper.connection
    if raw is None:
        return  # no connection was made
    if not raw.closed and not getattr(raw, "broken", False):
        return  # the connection works: the error was the query's, not the server's absence
    with _pool_restart_lock:
        if time.monotonic() - _pool_restarted_at < 1.0:
            return
        _pool_restarted_at = time.monotonic()
        try:
            wrapper.close_pool()  # type: ignore[attr-defined]  # the PostgreSQL backend's pool (Django 5.1+)
        except Exception as exc:  # another thread closed it first, or no pool is configured
            log.info("connection pool not restarted: %s", type(exc).__name__)


_QUICK_ACCEPT = (None, "*/*", OrjsonRenderer.media_type)
_renderer = OrjsonRenderer()


def _quick_get(cls, request, kwargs: dict, headers: dict[str, str]) -> HttpResponse | None:
    """The answer to the plainest GET of a view with a quick read, or None for DRF's whole path to answer.

    Plainest: no query string, JSON accepted as DRF would pick it (no ``Accept``, ``*/*`` or ``application/json``),
    a bearer token verified earlier by this process (:data:`core.authentication.verified_tokens`, the cache DRF's
    authentication reads first) whose scopes cover the view's GET. Such a request gets from DRF's path exactly
    what this does: the identity with the gate (admission and rate limits in SQL) and the read with its audit row,
    committed together in one round trip (:func:`core.identity.lone_statement`: without Django's atomic block),
    the data rendered by the same renderer, and DRF's own headers (``Allow``, ``Vary``); Django's middleware
    (request id, metrics, security headers) wraps both alike. It skips only what
    such a request does not need: DRF's request wrapper, content negotiation, authentication classes and
    permission objects (a tenth to a seventh of a list request's CPU in-process). Anything else, and any error
    inside the block (a refusal by the gate, a purpose rule, the database), goes to DRF's path: the block has
    rolled back, so nothing was written or counted, and that path answers and audits it as it answers every
    request. A quick read must therefore raise its refusals before its COMMIT; an error after it (the read's audit
    row committed) is never answered twice: it is the request's error."""
    meta = request.META
    if request.method != "GET" or meta.get("QUERY_STRING") or meta.get("HTTP_ACCEPT") not in _QUICK_ACCEPT:
        return None
    scheme, _, token = meta.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "bearer" or not token or " " in token:
        return None
    identity = verified_tokens.get(token)
    if identity is None or not required_scopes_for(cls, "GET") <= identity.scopes:
        return None
    block: LoneStatement | None = None
    try:
        with lone_statement(identity, gate=RequestGate(identity)) as block:
            rows = cls.quick_get_rows(block, **kwargs)
    except Exception:
        if block is not None and block.committed:  # what the read wrote stays: DRF's path would write it twice
            raise
        return None  # rolled back: DRF's path answers it, with its own refusal and audit
    response = HttpResponse(_renderer.render(cls.quick_get_data(rows)), content_type=_renderer.media_type)
    for name, value in headers.items():
        response[name] = value
    return response



# The SQLSTATEs with which PostgreSQL rolls a transaction back in favour of a concurrent one: serialization_failure
# and deadlock_detected (class 40, "transaction rollback": the transaction did nothing)
_ROLLED_BACK_FOR_ANOTHER = frozenset({"40001", "40P01"})


def _lost_to_a_concurrent_transaction(exc: BaseException) -> bool:
    error = exc if isinstance(exc, psycopg.Error) else exc.__cause__
    return getattr(error, "sqlstate", None) in _ROLLED_BACK_FOR_ANOTHER


class ScopedAPIView(APIView):
    # (no docstring: the OpenAPI schema takes a view's docstring, inherited, as its operations' description)
    required_scopes: dict[str, list[str]] | list[str] | None = None
    audit_actions: dict[str, str] = {}
    idempotent_create: bool = False
    # The query parameters each method takes (as its OpenAPI operation declares them); anything else is 422.
    query_parameters: dict[str, frozenset[str]] = {}
    # Parameters that may be given empty (e.g. a filter where empty means "any"); any other empty one is 422.
    blank_query_parameters: dict[str, frozenset[str]] = {}
    format_refused: ValidationFailed | None = None  # set by content negotiation, raised after authentication

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("abstract", False):
            return
        if cls.required_scopes is None:
            raise TypeError(f"{cls.__name__} must declare required_scopes")
        if "dispatch" in cls.__dict__ or "permission_classes" in cls.__dict__ or (
                "authentication_classes" in cls.__dict__):
            raise TypeError(f"{cls.__name__} may not override dispatch, authentication or permissions")

    abstract = True

    # The quick read of a GET: ``quick_get_rows(block, **url_kwargs)`` runs the one statement of a
    # core.identity.lone_statement block (what the handler's GET reads, with its audit row, and nothing else),
    # ``quick_get_data(rows)`` after it (the answer's data, as the handler's Response would hold it). Both or neither.
    quick_get_rows = None
    quick_get_data = None

    @classmethod
    def as_view(cls, **initkwargs):
        view = super().as_view(**initkwargs)
        if cls.quick_get_rows is None:
            return view
        if cls.quick_get_data is None or not issubclass(cls.renderer_classes[0], OrjsonRenderer):
            raise TypeError(f"{cls.__name__}: a quick read needs quick_get_data and JSON as its first renderer")
        probe = cls(**initkwargs)
        probe.head = probe.get  # as View.setup adds it: DRF's Allow names HEAD
        headers = probe.default_response_headers  # Allow, and Vary when the view has other renderers

        def quick_or_full(request, *args, **kwargs):
            response = _quick_get(cls, request, kwargs, headers) if not args else None
            return response if response is not None else view(request, *args, **kwargs)

        return functools.wraps(view)(quick_or_full)  # keeps csrf_exempt, cls and initkwargs (the schema reads them)

    def perform_content_negotiation(self, request, force=False):
        """``?format=`` names a renderer (json; the export's fhir too): another is the caller's mistake (422 naming
        it, once the caller is authenticated), not a missing resource (DRF answers 404).

        What almost every agent sends (no ``Accept``, ``*/*`` or the first renderer's own type, no ``?format=``)
        gets the first renderer without DRF parsing media types: DRF's answer for it is the same. A ``?format=``
        that names a renderer wins over ``Accept`` (DRF answered ``?format=json`` with ``Accept:
        application/fhir+json`` 406): the caller said exactly what it wants."""
        renderers = self.get_renderers()
        accept = request.META.get("HTTP_ACCEPT")
        named = request.GET.get(api_settings.URL_FORMAT_OVERRIDE) if not force else None
        if named:
            chosen = next((r for r in renderers if r.format == named), None)
            if chosen is not None:
                return chosen, chosen.media_type
        if (not force and renderers and (accept is None or accept in ("*/*", renderers[0].media_type))
                and api_settings.URL_FORMAT_OVERRIDE not in request.GET
                and not self.kwargs.get(api_settings.FORMAT_SUFFIX_KWARG)):
            return renderers[0], renderers[0].media_type
        try:
            return super().perform_content_negotiation(request, force)
        except (Http404, exceptions.NotFound):
            formats = ", ".join(sorted({r.format for r in self.get_renderers()}))
            self.format_refused = ValidationFailed(errors=[{"field": "format", "message": f"one of {formats}",
                                                            "code": "invalid_choice"}])
            return super().perform_content_negotiation(request, force=True)

    @property
    def identity(self) -> Identity:
        identity = self.request.auth
        assert isinstance(identity, Identity), "ScopedAPIView runs only after bearer authentication"
        return identity

    def dispatch(self, request, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs
        request = self.initialize_request(request, *args, **kwargs)
        self.request = request
        self.headers = self.default_response_headers
        try:
            self.initial(request, *args, **kwargs)
            self._check_format_and_query(request)
            method = request.method.lower()
            handler = getattr(self, method, self.http_method_not_allowed) if (
                method in self.http_method_names) else self.http_method_not_allowed
            key = idempotency.clean_key(request.headers.get(idempotency.HEADER)) if (
                self.idempotent_create and method == "post") else None
            try:
                # Nothing runs in the block after the handler unless a response is stored for safe retries, so the
                # handler's last statement, or else the one that stores the response, may carry the COMMIT
                # (core.identity.commit_with_next_statement).
                with identity_context(request.auth, gate=RequestGate(request.auth), commit_early=True):
                    if key is None:
                        response = handler(request, *args, **kwargs)
                    else:
                        response = self._idempotent(handler, request, key, *args, **kwargs)
            except exceptions.APIException as exc:
                # An unregistered organisation gets no audit rows: nobody could read them, and anyone could
                # fill the table with them.
                limited = None
                if isinstance(exc, UnknownOrganization):  # a failed authentication, counted per address
                    limited = failed_authentication_refused(request_client_address(request.META))
                elif isinstance(exc, RateLimited):
                    pass
                elif isinstance(exc, ApiError) and exc.status_code in _AUDITED_REFUSALS:
                    limited = self._audit_refusal(request, exc)
                elif 400 <= exc.status_code < 500:
                    # a request its handler refused as malformed (400, 413, 422) did the work of the identity,
                    # the gate and its checks too: counted like every other, or a stream of invalid bodies would
                    # never meet the limits
                    limited = self._count_refused(request)
                if limited is not None:
                    raise limited from None
                raise
            except (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError) as exc:
                if _lost_to_a_concurrent_transaction(exc):
                    # PostgreSQL rolled the request's transaction back to let another go on (a deadlock, a
                    # serialization failure): nothing was written, the database is well, and the same request
                    # sent again can succeed
                    log.warning("transaction rolled back by a concurrent one: %s", type(exc).__name__)
                    raise ConcurrentUpdate() from None
                # psycopg's own when a pipeline is entered or left on a connection that has just died
                # (core.identity sends statements in pipelines, outside Django's error wrapping)
                log.error("database unavailable: %s", type(exc).__name__)
                _restart_pool_if_disconnected()
                if isinstance(exc, CommitInterrupted):  # the change may have been made: not "nothing was changed"
                    raise CommitOutcomeUnknown() from None
                raise ServiceUnavailable() from None
            except (DatabaseError, psycopg.DatabaseError) as exc:
                if takes_no_writes(exc):  # it was 500 internal_error: nothing was changed, come back
                    log.error("database unavailable: it takes no writes (%s)", type(exc).__name__)
                    raise ServiceUnavailable() from None
                # Constraint and RLS violations that a service did not translate: never a 500 with details.
                log.error("unexpected database error: %s", type(exc).__name__)
                raise
        except Exception as exc:
            if isinstance(exc, InsufficientScope) and isinstance(request.auth, Identity):
                # a genuine token that does not reach this, refused before any handler ran: audited as every
                # other 403 is (and counted against the caller's limits)
                exc = self._audit_refusal(request, exc) or exc
            elif isinstance(exc, exceptions.APIException) and exc.status_code == 401:
                # no identity to count it against: its address's allowance of failures (core.gate)
                exc = failed_authentication_refused(request_client_address(request.META)) or exc
            response = self.handle_exception(exc)
        self.response = self.finalize_response(request, response, *args, **kwargs)
        # Django's own list of what closing the response runs (no public API adds to it; Django adds its closers so)
        self.response._resource_closers.append(self._release)  # type: ignore[attr-defined]
        return self.response

    def _release(self) -> None:
        """Once the server has sent the response (Django closes it then): break the cycles that tie this view, its
        request and its response together, so that reference counting frees them and the answer's data at once.
        Left to the cyclic garbage collector, each request's hundred objects made it run every few requests, and
        its full passes stopped every thread of a worker for tens of milliseconds."""
        response = getattr(self, "response", None)
        if response is not None:
            response.renderer_context = None
        request = getattr(self, "request", None)
        if request is not None:
            request.parser_context = None  # it holds the view and the request itself
            # What the portal's middleware hangs on every request refers back to it: the messages storage and
            # AuthenticationMiddleware's ``auser`` (a partial holding the request). API views use neither.
            request._request.__dict__.pop("_messages", None)
            request._request.__dict__.pop("auser", None)
        self.__dict__.pop("head", None)  # View.setup's ``self.head = self.get``: a bound method of this view
        self.request = self.response = self.args = self.kwargs = self.headers = None  # type: ignore[assignment]

    def _idempotent(self, handler, request, key: str, *args, **kwargs):
        body = request._request.body
        raw_digest = idempotency.request_hash(method=request.method, path=request.path, body=body)
        digest = raw_digest
        if idempotency.is_json_body(request.content_type, body):
            # by its value: parsed here by the API's parser (its refusal is the request's answer), once for the
            # handler too
            digest = idempotency.request_hash(method=request.method, path=request.path,
                                              body=idempotency.canonical_json(request.data))
        replay = idempotency.idempotency_lookup(identity=self.identity, key=key, digest=digest,
                                                raw_digest=raw_digest)
        if replay is not None:
            if not self.replay_still_holds(replay.data):
                raise IdempotentResponseWithdrawn()
            action = self.audit_actions.get(declared_method(request.method))
            if action:  # given again: the patient's access history shows it as it showed the first answer
                audit.record(action=action, resource_type=self.audit_resource_type(),
                             resource_id=self.audit_resource_id(), patient_id=replay.patient_id,
                             reason="idempotent_replay")
            return Response(replay.data, status=replay.status, headers={"Idempotent-Replayed": "true"})
        with commit_held():  # the response is stored after the handler: its statement ends the transaction
            response = handler(request, *args, **kwargs)
        if 200 <= response.status_code < 300:
            patient_id = self.idempotency_patient_id(response.data)  # may read the database
            commit_with_next_statement()  # the store is the transaction's last statement
            idempotency.idempotency_store(identity=self.identity, key=key, digest=digest,
                                          status=response.status_code, data=response.data, patient_id=patient_id,
                                          resource_id=self.idempotency_resource_id(response.data))
        return response

    def _audit_refusal(self, request, exc: ApiError) -> RateLimited | None:
        """Audit a refusal in a transaction of its own, which also counts the request against the caller's rate
        limits (the refused request's own hit rolled back with it): guessing ids is throttled like any other
        work, and the append-only trail cannot be flooded. Over the limit, nothing is written and the caller is
        answered 429 instead (returned here)."""
        action = self.audit_actions.get(declared_method(request.method))
        if not action:
            return self._count_refused(request)
        try:
            with identity_context(request.auth, gate=RequestGate(request.auth)):
                audit.record(
                    action=action,
                    resource_type=self.audit_resource_type(),
                    resource_id=self.audit_resource_id(),
                    # a refused body's patient_id may be anything: taken as it was, the row's insert failed and
                    # took the refusal's count with it
                    patient_id=uuid_or_none(exc.audit_patient_id or self.audit_patient_id()),
                    purpose=exc.audit_purpose,
                    outcome="denied" if exc.status_code in (403, 404, 410) else "conflict",
                    reason=exc.code,
                )
        except RateLimited as limited:
            return limited
        except UnknownOrganization:  # nobody could read its rows, and anyone could fill the table with them
            return None
        except Exception as audit_exc:  # the refusal stands even if its audit row cannot be written
            log.error("could not audit a refusal: %s", type(audit_exc).__name__)
            return self._count_refused(request)  # its count went with the row: the refusal still counts
        return None

    def _check_format_and_query(self, request) -> None:
        """A refused ``?format=`` or query string (422), counted against the caller's limits as every refusal of
        a request the caller sent is: past them, the answer is 429 like any other request's."""
        try:
            if self.format_refused is not None:
                raise self.format_refused
            method_name = declared_method(request.method)
            check_query_params(request, self.query_parameters.get(method_name, frozenset()),
                               self.blank_query_parameters.get(method_name, frozenset()))
        except ValidationFailed:
            limited = self._count_refused(request)
            if limited is not None:
                raise limited from None
            raise

    def _count_refused(self, request) -> RateLimited | None:
        """Count a refused request against the caller's limits in a transaction of its own (its own hit rolled
        back with it), writing nothing else; over the limit, the 429 to answer instead (returned here)."""
        try:
            with identity_context(request.auth, gate=RequestGate(request.auth)):
                pass  # the identity statement, and the gate in it, runs when the block ends
        except RateLimited as limited:
            return limited
        except UnknownOrganization:
            return None
        except Exception as count_exc:  # the refusal stands even if it cannot be counted
            log.error("could not count a refusal: %s", type(count_exc).__name__)
        return None

    # Views refine these; defaults read the URL.
    def audit_resource_type(self) -> str:
        return getattr(self, "resource_type", self.__class__.__name__)

    def audit_resource_id(self) -> str | None:
        for key in ("memory_id", "workflow_id", "consent_id", "grant_id", "session_id", "patient_id"):
            if key in self.kwargs:
                return str(self.kwargs[key])
        return None

    def audit_patient_id(self):
        return self.kwargs.get("patient_id")

    def replay_still_holds(self, data) -> bool:
        """Whether a stored answer may be given again now. Deletions, erasure and withdrawn consents withdraw
        answers when they happen; what ends by the clock (a consent's or a memory's expiry) or by another's act
        on the data (a quarantine) is checked here, by the views whose answers hold such data."""
        return True

    def idempotency_patient_id(self, data):
        """The patient a stored response is about, so that deleting their data or ending access withdraws it
        (``idempotency.patient_of``: the URL's, else the one the answer names). Views whose URL and answer do
        not name the patient say which it is."""
        return idempotency.patient_of(self.kwargs, data, self.identity)

    def idempotency_resource_id(self, data):
        """The resource of no patient a stored response created, when deleting it must withdraw the response (its
        service calls ``idempotency.idempotency_withdraw`` with ``resource_id``); None for the others."""
        return None
