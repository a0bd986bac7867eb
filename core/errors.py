"""One error shape for the whole API: RFC 9457 problem details with a stable machine-readable ``code``.

``detail`` carries the same code string as ``code``: agents written against the seed reference service read
``detail`` for it. ``title`` is the human summary, ``errors`` lists field problems for validation failures.
"""

from __future__ import annotations

import logging
import math
import uuid
from collections.abc import Iterable
from contextlib import contextmanager

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response

from core.logging import request_id_var
from core.renderers import OrjsonRenderer

log = logging.getLogger("anamnesis.errors")
PROBLEM_CONTENT_TYPE = "application/problem+json"


class ApiError(exceptions.APIException):
    """Base for errors the API answers deliberately. Subclasses set status, code and title."""

    status_code: int = status.HTTP_400_BAD_REQUEST
    code: str = "bad_request"
    title: str = "Bad request"

    def __init__(self, message: str | None = None, *, code: str | None = None, errors: list | None = None):
        self.code = code or self.code
        self.message = message or self.title
        self.errors = errors or []
        self.audit_patient_id: uuid.UUID | str | None = None
        self.audit_purpose: str | None = None
        # RFC 9457 extension members a client acts on (a version_conflict's current_version), beside the standard
        # ones, which they never replace
        self.extensions: dict = {}
        super().__init__(detail=self.message, code=self.code)

    def about(self, *, patient_id=None, purpose: str | None = None) -> ApiError:
        """Attach what the refusal concerned, for its audit event (when the URL alone does not say)."""
        self.audit_patient_id = patient_id
        self.audit_purpose = purpose
        return self


class ValidationFailed(ApiError):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    code = "validation_error"
    title = "The request is not valid"  # its body or its query parameters: errors[].field names which

    @classmethod
    def from_detail(cls, detail) -> ValidationFailed:
        """From a detail nested by field path, as a DRF serializer's errors are: the same errors the API gives
        for a serializer's refusal."""
        return cls(errors=_flatten(detail))

    @classmethod
    def of(cls, field: str, message: str, code: str = "invalid") -> ValidationFailed:
        """One field's refusal."""
        return cls(errors=[{"field": field, "message": message, "code": code}])


@contextmanager
def cursor_checked():
    """A list read after a client's ``cursor``: the ValueError of one the list never gave is 422 on ``cursor``."""
    try:
        yield
    except ValueError:
        raise ValidationFailed(errors=[{"field": "cursor", "message": "not a cursor this list gave",
                                        "code": "invalid"}]) from None


class NotFound(ApiError):
    """Same answer for "does not exist" and "exists but is not yours"."""

    status_code = status.HTTP_404_NOT_FOUND
    code = "not_found"
    title = "Not found"


class NoConsentOrAccess(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "no_active_consent_or_access"
    title = "No active consent or access for this patient and purpose"


class InsufficientScope(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "insufficient_scope"
    title = "The access token lacks a scope this operation needs"

    def __init__(self, needed: frozenset[str]):
        super().__init__(f"needs: {' '.join(sorted(needed))}")
        self.needed = needed

    @property
    def challenge(self) -> str:
        """RFC 6750 section 3: the scopes to ask the provider for, so a client can obtain them and retry."""
        return f'Bearer error="insufficient_scope", scope="{" ".join(sorted(self.needed))}"'


class Forbidden(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "forbidden"
    title = "This caller may not do that"


class Conflict(ApiError):
    status_code = status.HTTP_409_CONFLICT
    code = "conflict"
    title = "Conflict"


class ConcurrentUpdate(Conflict):
    code = "concurrent_update_retry"
    title = "A concurrent update won; reload and retry"


class VersionConflict(Conflict):
    code = "version_conflict"
    title = "Stale version; reload the current state"


class IllegalTransition(Conflict):
    code = "illegal_transition"
    title = "That transition is not allowed from the current step"


class InvalidToken(ApiError):
    status_code = status.HTTP_401_UNAUTHORIZED
    code = "invalid_token"
    title = "The access token is missing, invalid or expired"
    challenge = 'Bearer error="invalid_token"'


class MissingToken(InvalidToken):
    """No credentials at all: RFC 6750 section 3.1 has the challenge carry no error code then (``Bearer``), so a
    client tells "sign in" from "your token was refused"."""

    challenge = "Bearer"


class IdentityProviderUnavailable(ApiError):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    code = "identity_provider_unavailable"
    title = "The identity provider's key set cannot be reached"

    def __init__(self, message: str | None = None, **kwargs):
        super().__init__(message, **kwargs)
        from django.conf import settings

        # as every 503: when to come back, here the soonest the key set is fetched again
        self.headers = {"Retry-After": str(max(1, math.ceil(settings.OIDC_JWKS_MIN_REFETCH_SECONDS)))}


class ServiceUnavailable(ApiError):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    code = "service_unavailable"
    title = "A dependency is unavailable; nothing was changed, retry later"

    def __init__(self, message: str | None = None, **kwargs):
        super().__init__(message, **kwargs)
        from django.conf import settings

        self.headers = {"Retry-After": str(settings.API_UNAVAILABLE_RETRY_AFTER_SECONDS)}


class CommitOutcomeUnknown(ServiceUnavailable):
    """The database connection was lost while the request's transaction was committing: unlike every other 503,
    the change may have been made. A creating request retried with the same ``Idempotency-Key`` is answered as
    the first was if it was made (replayed, not made twice), and made if it was not."""

    code = "commit_outcome_unknown"
    title = ("The database connection was lost while the change was being saved: it may or may not have been "
             "saved. Retry with the same Idempotency-Key (a change that was saved is not made twice), or read it "
             "back before sending it again")


class UnknownOrganization(ApiError):
    """The token's organisation is not registered, or does not trust the token's issuer."""

    status_code = status.HTTP_403_FORBIDDEN
    code = "unknown_organization"
    title = "The token's organisation is not registered with this service for its issuer"


class RateLimited(ApiError):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    code = "rate_limited"
    title = "Too many requests; retry after the number of seconds in Retry-After"

    def __init__(self, retry_after: int, message: str | None = None):
        super().__init__(message)
        self.headers = {"Retry-After": str(max(1, int(retry_after)))}


class IdempotencyKeyReused(Conflict):
    """One meaning everywhere (API requests and workflow operations): the key was used with other data."""

    code = "idempotency_key_reused"
    title = "This Idempotency-Key was used for a different request; use a new key for new data"


class IdempotentResponseWithdrawn(Conflict):
    """A retry of a request that was carried out, whose answer was withdrawn since: the data it held was deleted,
    or the access under which it was given ended. Nothing is done again."""

    code = "idempotent_response_withdrawn"
    title = ("This request was carried out before and its answer has been withdrawn (the data was deleted or "
             "access to it ended); nothing was done again. Send a new Idempotency-Key to make a new request")


class PayloadTooLarge(ApiError):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    code = "payload_too_large"
    title = "The request body is too large"


MAX_PROBLEM_ERRORS = 100


def problem_body(*, status_code: int, code: str, title: str, message: str | None = None,
                 errors: list | None = None) -> dict:
    body = {
        "type": f"https://anamnesis.dev/problems/{code}",
        "title": title,
        "status": status_code,
        "code": code,
        "detail": code,
        "message": message or title,
        "request_id": request_id_var.get(),
    }
    if errors:
        # A body can hold thousands of bad fields (64 KiB of unknown keys was a 430 KB answer): the first ones,
        # with how many there were
        body["errors"] = errors[:MAX_PROBLEM_ERRORS]
        if len(errors) > MAX_PROBLEM_ERRORS:
            body["errors_total"] = len(errors)
    return body


# DRF's message that repeats what the client sent ('"I have HIV" is not a valid choice.'), which may be health
# information: an error names the rule, never the value. Request serializers word their choices themselves
# (core.serializers.StrictSerializer); this catches any other.
_ECHOED_CHOICE = "is not a valid choice."


def _message(d) -> str:
    text = str(d)
    if getattr(d, "code", None) == "invalid_choice" and text.endswith(_ECHOED_CHOICE):
        return "not one of the accepted values"
    return text


def _flatten(detail, prefix: str = "") -> list[dict]:
    """DRF's nested ValidationError detail -> [{field, message, code}]."""
    out: list[dict] = []
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else str(key)
            out += _flatten(value, f"{prefix}.{name}".strip(".") if name else prefix)
    elif isinstance(detail, list):
        if detail and all(isinstance(d, exceptions.ErrorDetail) or isinstance(d, str) for d in detail):
            for d in detail:
                out.append({"field": prefix or None, "message": _message(d), "code": getattr(d, "code", "invalid")})
        else:
            for i, item in enumerate(detail):
                out += _flatten(item, f"{prefix}[{i}]")
    else:
        out.append({"field": prefix or None, "message": _message(detail), "code": getattr(detail, "code", "invalid")})
    return out


class ProblemResponse(Response):
    """A problem document, rendered as JSON whatever renderer the view negotiated for its answers (the schema's
    YAML, the export's FHIR): ``application/problem+json`` is JSON, and a client reads every error the same way."""

    def __init__(self, body: dict, headers: dict | None = None):
        super().__init__(body, status=body["status"], headers=headers, content_type=PROBLEM_CONTENT_TYPE)

    @property
    def rendered_content(self):
        self.accepted_renderer = _PROBLEM_RENDERER
        self.accepted_media_type = PROBLEM_CONTENT_TYPE
        if getattr(self, "renderer_context", None) is None:
            self.renderer_context = {}
        return super().rendered_content


_PROBLEM_RENDERER = OrjsonRenderer()


def problem_exception_handler(exc, context):
    headers: dict = {}
    if isinstance(exc, Http404):
        exc = NotFound()
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    elif isinstance(exc, PermissionDenied):
        exc = Forbidden()

    if isinstance(exc, ApiError):
        body = problem_body(status_code=exc.status_code, code=exc.code, title=exc.title, message=exc.message,
                            errors=exc.errors)
        body.update({k: v for k, v in exc.extensions.items() if k not in body})
        headers.update(getattr(exc, "headers", None) or {})
        if isinstance(exc, InvalidToken):
            headers["WWW-Authenticate"] = exc.challenge
        elif isinstance(exc, InsufficientScope):
            headers["WWW-Authenticate"] = exc.challenge
        return ProblemResponse(body, headers)
    if isinstance(exc, exceptions.ParseError):
        return ProblemResponse(problem_body(status_code=400, code="malformed_json",
                                            title="The request body is not valid JSON",
                                            message=getattr(exc, "problem_message", None)))
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return ProblemResponse(problem_body(status_code=415, code="unsupported_media_type",
                                            title="Send application/json",
                                            message=getattr(exc, "problem_message", None)))
    if isinstance(exc, exceptions.ValidationError):
        return ProblemResponse(problem_body(status_code=422, code="validation_error",
                                            title=ValidationFailed.title, errors=_flatten(exc.detail)))
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        return ProblemResponse(problem_body(status_code=401, code="invalid_token", title=InvalidToken.title),
                               {"WWW-Authenticate": "Bearer"})
    if isinstance(exc, exceptions.MethodNotAllowed):
        return ProblemResponse(problem_body(status_code=405, code="method_not_allowed",
                                            title="Method not allowed"))
    if isinstance(exc, exceptions.NotAcceptable):
        view = (context or {}).get("view")
        types = list(dict.fromkeys(r.media_type for r in view.get_renderers())) if view is not None else []
        return ProblemResponse(problem_body(
            status_code=406, code="not_acceptable", title="Not acceptable",
            message=f"Accept leaves nothing this answers in: it answers {', '.join(types)}" if types else None))
    if isinstance(exc, exceptions.Throttled):
        return ProblemResponse(problem_body(status_code=429, code="rate_limited", title=RateLimited.title),
                               {"Retry-After": str(int(getattr(exc, "wait", None) or 1))})
    if isinstance(exc, exceptions.PermissionDenied):
        return ProblemResponse(problem_body(status_code=403, code="forbidden", title=Forbidden.title))
    if isinstance(exc, exceptions.APIException):
        return ProblemResponse(problem_body(status_code=exc.status_code, code=str(exc.default_code),
                                            title=str(exc.default_detail)))
    return None  # unexpected: Django's 500 path (logged without request bodies)


def json_problem(status_code: int, code: str, title: str) -> JsonResponse:
    """For plain Django views (health, 404/500 handlers) that are not DRF views."""
    return JsonResponse(problem_body(status_code=status_code, code=code, title=title), status=status_code,
                        content_type=PROBLEM_CONTENT_TYPE)


def method_not_allowed(allowed: Iterable[str]) -> JsonResponse:
    """405 for a plain Django view, naming the methods it takes in ``Allow`` (RFC 9110 15.5.6), as DRF's do."""
    response = json_problem(405, "method_not_allowed", "Method not allowed")
    response["Allow"] = ", ".join(allowed)
    return response
