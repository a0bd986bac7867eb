"""One exception class per problem code of the API (RFC 9457 problem details with a stable ``code``).

Catch a precise class (``VersionConflict``), a family (``ConflictError``, ``ForbiddenError``, ``RetryableError``)
or everything (``AnamnesisError``). A code this version does not know yet becomes the family of its status.
"""

from __future__ import annotations

from typing import Any


class AnamnesisError(Exception):
    """A problem answered by the service, or (``TransportError``) no answer at all."""

    code: str = "error"
    status: int = 0

    def __init__(self, message: str | None = None, *, status: int | None = None, code: str | None = None,
                 title: str | None = None, errors: list[dict[str, Any]] | None = None,
                 request_id: str | None = None, retry_after: float | None = None,
                 body: dict[str, Any] | None = None) -> None:
        self.status = status if status is not None else type(self).status
        self.code = code or type(self).code
        self.title = title
        self.message = message or title or self.code
        self.errors = errors or []
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = body or {}
        super().__init__(f"{self.status} {self.code}: {self.message}")


class TransportError(AnamnesisError):
    """The service could not be reached, or its answer was lost (after the retries that were safe)."""

    code = "transport_error"


class UnexpectedResponse(AnamnesisError):
    """A success (2xx) whose body is not what the operation answers: a proxy's HTML page, a JSON array where an
    object is due, a body cut short; or a redirect (3xx: the API answers none, and the client follows none).
    ``status`` is the answer's; nothing of the body is kept (it may hold a patient's data). Not retried: the
    service may have done what was asked."""

    code = "unexpected_response"
    status = 200


class PagingLoop(UnexpectedResponse):
    """A list read a page at a time gave a cursor it had given before, or a page with nothing on it and a cursor
    to another: following it would never end (a cache in front of the service, a fault)."""

    code = "paging_loop"


class ForbiddenError(AnamnesisError):
    status = 403


class ConflictError(AnamnesisError):
    status = 409


class RetryableError(AnamnesisError):
    """429 and 503: nothing was changed; the client retries these itself before raising."""

    status = 503


class CommitOutcomeUnknown(AnamnesisError):
    """503: the connection to the database broke while a write was being committed, so it may or may not have been
    saved. Not a :class:`RetryableError`: the client sends it again only for a read or a call with an
    Idempotency-Key (whose retry replays the first answer), as after an answer lost on the network."""

    code = "commit_outcome_unknown"
    status = 503


class ValidationError(AnamnesisError):
    code = "validation_error"
    status = 422


class ContextBudgetTooSmall(ValidationError):
    code = "context_budget_too_small"


class BadRequest(AnamnesisError):
    """400: the request could not be read (the service's web server refused it before the application)."""

    code = "bad_request"
    status = 400


class MalformedJson(BadRequest):
    code = "malformed_json"


class BadContentLength(BadRequest):
    """The Content-Length header is not a number."""

    code = "bad_content_length"


class InvalidPath(BadRequest):
    """The path holds an encoded slash (``%2F``) or another character that cannot be a path's."""

    code = "invalid_path"


class UnsupportedMediaType(AnamnesisError):
    code = "unsupported_media_type"
    status = 415


class InvalidToken(AnamnesisError):
    code = "invalid_token"
    status = 401


class InsufficientScope(ForbiddenError):
    code = "insufficient_scope"


class NoActiveConsentOrAccess(ForbiddenError):
    code = "no_active_consent_or_access"


class PurposeNotPermitted(ForbiddenError):
    """A read for a purpose of use the caller holds no consent or grant for (the same answer whether or not the
    patient exists)."""

    code = "purpose_not_permitted"


class Forbidden(ForbiddenError):
    code = "forbidden"


class StaffOnly(ForbiddenError):
    code = "staff_only"


class NotAPatientStatement(ValidationError):
    """Only a patient's own turn is proposed from (422, as the API answers it)."""

    code = "not_a_patient_statement"


class PurposeNotSupported(ValidationError):
    code = "purpose_not_supported"


class NotFound(AnamnesisError):
    code = "not_found"
    status = 404


class MethodNotAllowed(AnamnesisError):
    code = "method_not_allowed"
    status = 405


class NotAcceptable(AnamnesisError):
    code = "not_acceptable"
    status = 406


class Conflict(ConflictError):
    code = "conflict"


class ConcurrentUpdateRetry(ConflictError):
    code = "concurrent_update_retry"


class VersionConflict(ConflictError):
    code = "version_conflict"


class IllegalTransition(ConflictError):
    code = "illegal_transition"


class OperationInProgress(ConflictError):
    code = "operation_in_progress"


class OperationNotAllowed(ConflictError):
    code = "operation_not_allowed"


class IdempotencyKeyReused(ConflictError):
    code = "idempotency_key_reused"


class IdempotentResponseWithdrawn(ConflictError):
    """The request was carried out before; its answer was withdrawn since (the data was deleted, or access to it
    ended). Nothing was done again: send a new key to make a new request."""

    code = "idempotent_response_withdrawn"


class OperationNotRetryable(ConflictError):
    code = "operation_not_retryable"


class OperationNotResolvable(ConflictError):
    """Only an operation whose outcome is unknown is resolved; a settled one answers only its own resolution."""

    code = "operation_not_resolvable"


class NotProposed(ConflictError):
    code = "not_proposed"


class ProposalPending(ConflictError):
    """The same value is already proposed by this caller, waiting for review, with another validity."""

    code = "proposal_pending"


class ProposalStale(ConflictError):
    """The proposal was made before the attribute's current value became current (``current_memory_id``): it is
    not confirmed; reject it, or propose the value again."""

    code = "proposal_stale"


class TooManyProposals(ConflictError):
    """This proposer already has the most proposals for this patient that may wait for review at once."""

    code = "too_many_proposals"


class TooManyMemoryTypes(ConflictError):
    """The organisation already holds the most memory types it may define, or the type the most versions."""

    code = "too_many_memory_types"


class NotCorrectable(ConflictError):
    code = "not_correctable"


class NotQuarantined(ConflictError):
    """Only a quarantined memory is released (staff)."""

    code = "not_quarantined"


class SessionAlreadyEnded(ConflictError):
    code = "session_already_ended"


class TooManySessions(ConflictError):
    code = "too_many_sessions"


class TurnLimitReached(ConflictError):
    code = "turn_limit_reached"


class SlotsIncomplete(ConflictError):
    code = "slots_incomplete"


class ClarificationNeeded(ConflictError):
    code = "clarification_needed"


class SessionGone(AnamnesisError):
    code = "session_gone"
    status = 410


class SessionExpired(SessionGone):
    code = "session_expired"


class SessionEnded(SessionGone):
    code = "session_ended"


class PayloadTooLarge(AnamnesisError):
    code = "payload_too_large"
    status = 413


class RequestTimeout(AnamnesisError):
    """The request did not arrive whole in time (a stalled upload); nothing was done."""

    code = "request_timeout"
    status = 408


class LengthRequired(AnamnesisError):
    code = "length_required"
    status = 411


class QueryTooLong(AnamnesisError):
    """The path and query string are over the service's limit (a long search question in another script)."""

    code = "query_too_long"
    status = 414


class HeadersTooLarge(AnamnesisError):
    code = "headers_too_large"
    status = 431


class ExpectationFailed(AnamnesisError):
    """417: an ``Expect`` header other than ``100-continue``; nothing was done."""

    code = "expectation_failed"
    status = 417


class NotImplementedByService(AnamnesisError):
    """501: a transfer coding the service does not read (only chunked is); nothing was done."""

    code = "not_implemented"
    status = 501


class RateLimited(RetryableError):
    code = "rate_limited"
    status = 429


class IdentityProviderUnavailable(RetryableError):
    code = "identity_provider_unavailable"


class ServiceUnavailable(RetryableError):
    code = "service_unavailable"


class EmbeddingProviderUnavailable(ServiceUnavailable):
    code = "embedding_provider_unavailable"


class SchedulingUnavailable(ServiceUnavailable):
    code = "scheduling_unavailable"


class OutsideSystemUnavailable(ServiceUnavailable):
    code = "outside_system_unavailable"


class DatabaseUnavailable(ServiceUnavailable):
    code = "database_unavailable"


class AgentCannotConfirm(ForbiddenError):
    """An agent's proposals are confirmed (or rejected) by the patient or staff."""

    code = "agent_cannot_confirm"


class AgentCannotDelete(ForbiddenError):
    """The patient or staff delete memories; an agent cannot."""

    code = "agent_cannot_delete"


class AgentCannotGrant(ForbiddenError):
    """An administrator grants and revokes access and registers staff; an agent cannot."""

    code = "agent_cannot_grant"


class AgentCannotRevoke(ForbiddenError):
    """The patient or staff revoke a consent; an agent cannot."""

    code = "agent_cannot_revoke"


class ConsentRevoked(ForbiddenError):
    """The patient withdrew the consent for the workflow's purpose: no new operation is queued for it."""

    code = "consent_revoked"


class ConsentExpired(ForbiddenError):
    """The patient's consent for the workflow's purpose ran out: no new operation is queued for it."""

    code = "consent_expired"


class AgentCannotExport(ForbiddenError):
    """The patient, or staff with a grant, export a record; an agent reads for its purpose."""

    code = "agent_cannot_export"


class UnknownOrganization(ForbiddenError):
    """The token's organisation is not registered, or does not trust the token's issuer."""

    code = "unknown_organization"


class ConsentExists(ConflictError):
    """The patient already has an active consent for this purpose."""

    code = "consent_exists"


class GrantExists(ConflictError):
    """This staff member already holds an active grant for the patient and purpose."""

    code = "grant_exists"


class PatientExists(ConflictError):
    """The directory already has this patient."""

    code = "patient_exists"


class StaffExists(ConflictError):
    """The directory already has this staff member."""

    code = "staff_exists"


class IdentifierInUse(ConflictError):
    """Another patient of the organisation has this identifier."""

    code = "identifier_in_use"


class OrganizationExists(ConflictError):
    """An organisation with this id is already registered."""

    code = "organization_exists"


class MemoryTypeExists(ConflictError):
    """A memory type with this name exists: revise it instead."""

    code = "memory_type_exists"


class MemoryTypeBuiltin(ConflictError):
    """Built-in memory types change only with a release of the service."""

    code = "memory_type_builtin"


class RevisionBreaksMemories(ConflictError):
    """Current memories of the type would not satisfy the revision (``errors`` lists them)."""

    code = "revision_breaks_memories"


class ResourceVersionConflict(ConflictError):
    """A FHIR resource changed without a new meta.versionId."""

    code = "resource_version_conflict"


class StaleResourceVersion(ConflictError):
    """A newer version of this FHIR resource is already imported."""

    code = "stale_resource_version"


class InternalError(AnamnesisError):
    code = "internal_error"
    status = 500


PROBLEM_CLASSES: dict[str, type[AnamnesisError]] = {
    cls.code: cls for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, AnamnesisError) and "code" in cls.__dict__
    and cls not in (AnamnesisError, TransportError, UnexpectedResponse, PagingLoop)
}
# The class of an answer with no code of ours (a proxy's page): its status's family, or the one class of that status.
_BY_STATUS: dict[int, type[AnamnesisError]] = {400: BadRequest, 403: ForbiddenError, 409: ConflictError,
                                               429: RetryableError, 503: RetryableError, 410: SessionGone,
                                               404: NotFound, 422: ValidationError, 401: InvalidToken,
                                               405: MethodNotAllowed, 406: NotAcceptable, 408: RequestTimeout,
                                               411: LengthRequired, 413: PayloadTooLarge, 414: QueryTooLong,
                                               415: UnsupportedMediaType, 417: ExpectationFailed,
                                               431: HeadersTooLarge, 500: InternalError, 501: NotImplementedByService}


def error_from_problem(status: int, body: dict[str, Any], *, retry_after: float | None = None) -> AnamnesisError:
    # A proxy's JSON is no problem document: only fields of the problem's shape are taken (as the TypeScript client
    # does), so a caller reading ``errors`` or ``message`` never meets a number or a string where a list is due.
    def text(key: str) -> str | None:
        return body[key] if isinstance(body.get(key), str) else None

    code = text("code")
    cls = PROBLEM_CLASSES.get(code or "") or _BY_STATUS.get(status, AnamnesisError)
    problems = body.get("errors")
    problems = [p for p in problems if isinstance(p, dict)] if isinstance(problems, list) else []
    return cls(text("message"), status=status, code=code or cls.code, title=text("title"), errors=problems,
               request_id=text("request_id"), retry_after=retry_after, body=body)

__all__ = [
    "AnamnesisError",
    "TransportError",
    "UnexpectedResponse",
    "PagingLoop",
    "ForbiddenError",
    "ConflictError",
    "RetryableError",
    "CommitOutcomeUnknown",
    "ValidationError",
    "ContextBudgetTooSmall",
    "BadRequest",
    "MalformedJson",
    "BadContentLength",
    "InvalidPath",
    "UnsupportedMediaType",
    "InvalidToken",
    "InsufficientScope",
    "NoActiveConsentOrAccess",
    "PurposeNotPermitted",
    "Forbidden",
    "StaffOnly",
    "NotAPatientStatement",
    "PurposeNotSupported",
    "NotFound",
    "MethodNotAllowed",
    "NotAcceptable",
    "Conflict",
    "ConcurrentUpdateRetry",
    "VersionConflict",
    "IllegalTransition",
    "OperationInProgress",
    "OperationNotAllowed",
    "IdempotencyKeyReused",
    "IdempotentResponseWithdrawn",
    "OperationNotRetryable",
    "OperationNotResolvable",
    "NotProposed",
    "ProposalPending",
    "ProposalStale",
    "TooManyProposals",
    "TooManyMemoryTypes",
    "NotCorrectable",
    "NotQuarantined",
    "SessionAlreadyEnded",
    "TooManySessions",
    "TurnLimitReached",
    "SlotsIncomplete",
    "ClarificationNeeded",
    "SessionGone",
    "SessionExpired",
    "SessionEnded",
    "PayloadTooLarge",
    "RequestTimeout",
    "LengthRequired",
    "QueryTooLong",
    "HeadersTooLarge",
    "ExpectationFailed",
    "NotImplementedByService",
    "RateLimited",
    "IdentityProviderUnavailable",
    "ServiceUnavailable",
    "EmbeddingProviderUnavailable",
    "SchedulingUnavailable",
    "OutsideSystemUnavailable",
    "DatabaseUnavailable",
    "AgentCannotConfirm",
    "AgentCannotDelete",
    "AgentCannotGrant",
    "AgentCannotRevoke",
    "ConsentRevoked",
    "ConsentExpired",
    "AgentCannotExport",
    "UnknownOrganization",
    "ConsentExists",
    "GrantExists",
    "PatientExists",
    "StaffExists",
    "IdentifierInUse",
    "OrganizationExists",
    "MemoryTypeExists",
    "MemoryTypeBuiltin",
    "RevisionBreaksMemories",
    "ResourceVersionConflict",
    "StaleResourceVersion",
    "InternalError",
    "PROBLEM_CLASSES",
    "error_from_problem",
]
