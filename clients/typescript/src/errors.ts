/**
 * One exception class per problem code of the API (RFC 9457 problem details with a stable `code`), the same
 * classes as the Python client's `anamnesis_client.errors`.
 *
 * Catch a precise class (`VersionConflict`), a family (`ConflictError`, `ForbiddenError`, `RetryableError`)
 * or everything (`AnamnesisError`). A code this version does not know yet becomes the family of its status.
 */

/** A field problem of a 422 answer. */
export interface FieldProblem {
  field?: string | null;
  message?: string;
  code?: string;
  [key: string]: unknown;
}

export interface ErrorInit {
  status?: number;
  code?: string;
  title?: string;
  errors?: FieldProblem[];
  requestId?: string;
  /** Seconds, from the answer's `Retry-After`. */
  retryAfter?: number;
  body?: Record<string, unknown>;
}

/** A problem answered by the service, or (`TransportError`) no answer at all. */
export class AnamnesisError extends Error {
  static readonly code: string = "error";
  static readonly status: number = 0;

  readonly status: number;
  readonly code: string;
  readonly title: string | undefined;
  readonly errors: FieldProblem[];
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  readonly body: Record<string, unknown>;

  constructor(message?: string, init: ErrorInit = {}) {
    const cls = new.target as typeof AnamnesisError;
    const status = init.status ?? cls.status;
    const code = init.code ?? cls.code;
    const text = message || init.title || code;
    super(`${status} ${code}: ${text}`);
    this.name = cls.name;
    this.status = status;
    this.code = code;
    this.title = init.title;
    this.errors = init.errors ?? [];
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.body = init.body ?? {};
  }
}

/** The service could not be reached, or its answer was lost (after the retries that were safe). */
export class TransportError extends AnamnesisError {
  static override readonly code: string = "transport_error";
}

/** A success (2xx) whose body is not what the operation answers: a proxy's HTML page, a JSON array where an object
 * is due, a body cut short. `status` is the answer's; nothing of the body is kept (it may hold a patient's data).
 * Not retried: the service may have done what was asked. */
export class UnexpectedResponse extends AnamnesisError {
  static override readonly code: string = "unexpected_response";
  static override readonly status: number = 200;
}

/** A list read a page at a time gave a cursor it had given before, or a page with nothing on it and a cursor to
 * another: following it would never end (a cache in front of the service, a fault). */
export class PagingLoop extends UnexpectedResponse {
  static override readonly code: string = "paging_loop";
}

export class ForbiddenError extends AnamnesisError {
  static override readonly status: number = 403;
}

export class ConflictError extends AnamnesisError {
  static override readonly status: number = 409;
}

/** 429 and 503: nothing was changed; the client retries these itself before raising. */
export class RetryableError extends AnamnesisError {
  static override readonly status: number = 503;
}

/**
 * 503: the connection to the database broke while a write was being committed, so it may or may not have been
 * saved. Not a {@link RetryableError}: the client sends it again only for a read or a call with an
 * `Idempotency-Key` (whose retry replays the first answer), as after an answer lost on the network.
 */
export class CommitOutcomeUnknown extends AnamnesisError {
  static override readonly code: string = "commit_outcome_unknown";
  static override readonly status: number = 503;
}

export class ValidationError extends AnamnesisError {
  static override readonly code: string = "validation_error";
  static override readonly status: number = 422;
}

export class ContextBudgetTooSmall extends ValidationError {
  static override readonly code: string = "context_budget_too_small";
  static override readonly status: number = 422;
}

/** 400: the request could not be read (the service's web server refused it before the application). */
export class BadRequest extends AnamnesisError {
  static override readonly code: string = "bad_request";
  static override readonly status: number = 400;
}

export class MalformedJson extends BadRequest {
  static override readonly code: string = "malformed_json";
  static override readonly status: number = 400;
}

/** The Content-Length header is not a number. */
export class BadContentLength extends BadRequest {
  static override readonly code: string = "bad_content_length";
  static override readonly status: number = 400;
}

/** The path holds an encoded slash (`%2F`) or another character that cannot be a path's. */
export class InvalidPath extends BadRequest {
  static override readonly code: string = "invalid_path";
  static override readonly status: number = 400;
}

export class UnsupportedMediaType extends AnamnesisError {
  static override readonly code: string = "unsupported_media_type";
  static override readonly status: number = 415;
}

export class InvalidToken extends AnamnesisError {
  static override readonly code: string = "invalid_token";
  static override readonly status: number = 401;
}

export class InsufficientScope extends ForbiddenError {
  static override readonly code: string = "insufficient_scope";
  static override readonly status: number = 403;
}

export class NoActiveConsentOrAccess extends ForbiddenError {
  static override readonly code: string = "no_active_consent_or_access";
  static override readonly status: number = 403;
}

/** A read for a purpose of use the caller holds no consent or grant for (the same answer whether or not the
 * patient exists). */
export class PurposeNotPermitted extends ForbiddenError {
  static override readonly code: string = "purpose_not_permitted";
  static override readonly status: number = 403;
}

export class Forbidden extends ForbiddenError {
  static override readonly code: string = "forbidden";
  static override readonly status: number = 403;
}

export class StaffOnly extends ForbiddenError {
  static override readonly code: string = "staff_only";
  static override readonly status: number = 403;
}

/** Only a patient's own turn is proposed from (422, as the API answers it). */
export class NotAPatientStatement extends ValidationError {
  static override readonly code: string = "not_a_patient_statement";
  static override readonly status: number = 422;
}

export class PurposeNotSupported extends ValidationError {
  static override readonly code: string = "purpose_not_supported";
  static override readonly status: number = 422;
}

export class NotFound extends AnamnesisError {
  static override readonly code: string = "not_found";
  static override readonly status: number = 404;
}

export class MethodNotAllowed extends AnamnesisError {
  static override readonly code: string = "method_not_allowed";
  static override readonly status: number = 405;
}

export class NotAcceptable extends AnamnesisError {
  static override readonly code: string = "not_acceptable";
  static override readonly status: number = 406;
}

export class Conflict extends ConflictError {
  static override readonly code: string = "conflict";
  static override readonly status: number = 409;
}

export class ConcurrentUpdateRetry extends ConflictError {
  static override readonly code: string = "concurrent_update_retry";
  static override readonly status: number = 409;
}

export class VersionConflict extends ConflictError {
  static override readonly code: string = "version_conflict";
  static override readonly status: number = 409;
}

export class IllegalTransition extends ConflictError {
  static override readonly code: string = "illegal_transition";
  static override readonly status: number = 409;
}

export class OperationInProgress extends ConflictError {
  static override readonly code: string = "operation_in_progress";
  static override readonly status: number = 409;
}

export class OperationNotAllowed extends ConflictError {
  static override readonly code: string = "operation_not_allowed";
  static override readonly status: number = 409;
}

export class IdempotencyKeyReused extends ConflictError {
  static override readonly code: string = "idempotency_key_reused";
  static override readonly status: number = 409;
}

/** The request was carried out before; its answer was withdrawn since (the data was deleted, or access to it
ended). Nothing was done again: send a new key to make a new request. */
export class IdempotentResponseWithdrawn extends ConflictError {
  static override readonly code: string = "idempotent_response_withdrawn";
  static override readonly status: number = 409;
}

export class OperationNotRetryable extends ConflictError {
  static override readonly code: string = "operation_not_retryable";
  static override readonly status: number = 409;
}

/** Only an operation whose outcome is unknown is resolved; a settled one answers only its own resolution. */
export class OperationNotResolvable extends ConflictError {
  static override readonly code: string = "operation_not_resolvable";
  static override readonly status: number = 409;
}

export class NotProposed extends ConflictError {
  static override readonly code: string = "not_proposed";
  static override readonly status: number = 409;
}

/** The same value is already proposed by this caller, waiting for review, with another validity. */
export class ProposalPending extends ConflictError {
  static override readonly code: string = "proposal_pending";
  static override readonly status: number = 409;
}

/** The proposal was made before the attribute's current value became current (`current_memory_id`): it is not
 * confirmed; reject it, or propose the value again. */
export class ProposalStale extends ConflictError {
  static override readonly code: string = "proposal_stale";
  static override readonly status: number = 409;
}

/** This proposer already has the most proposals for this patient that may wait for review at once. */
export class TooManyProposals extends ConflictError {
  static override readonly code: string = "too_many_proposals";
  static override readonly status: number = 409;
}

/** The organisation already holds the most memory types it may define, or the type the most versions. */
export class TooManyMemoryTypes extends ConflictError {
  static override readonly code: string = "too_many_memory_types";
  static override readonly status: number = 409;
}

export class NotCorrectable extends ConflictError {
  static override readonly code: string = "not_correctable";
  static override readonly status: number = 409;
}

/** Only a quarantined memory is released (staff). */
export class NotQuarantined extends ConflictError {
  static override readonly code: string = "not_quarantined";
  static override readonly status: number = 409;
}

export class SessionAlreadyEnded extends ConflictError {
  static override readonly code: string = "session_already_ended";
  static override readonly status: number = 409;
}

export class TooManySessions extends ConflictError {
  static override readonly code: string = "too_many_sessions";
  static override readonly status: number = 409;
}

export class TurnLimitReached extends ConflictError {
  static override readonly code: string = "turn_limit_reached";
  static override readonly status: number = 409;
}

export class SlotsIncomplete extends ConflictError {
  static override readonly code: string = "slots_incomplete";
  static override readonly status: number = 409;
}

export class ClarificationNeeded extends ConflictError {
  static override readonly code: string = "clarification_needed";
  static override readonly status: number = 409;
}

export class SessionGone extends AnamnesisError {
  static override readonly code: string = "session_gone";
  static override readonly status: number = 410;
}

export class SessionExpired extends SessionGone {
  static override readonly code: string = "session_expired";
  static override readonly status: number = 410;
}

export class SessionEnded extends SessionGone {
  static override readonly code: string = "session_ended";
  static override readonly status: number = 410;
}

export class PayloadTooLarge extends AnamnesisError {
  static override readonly code: string = "payload_too_large";
  static override readonly status: number = 413;
}

/** The request did not arrive whole in time (a stalled upload); nothing was done. */
export class RequestTimeout extends AnamnesisError {
  static override readonly code: string = "request_timeout";
  static override readonly status: number = 408;
}

export class LengthRequired extends AnamnesisError {
  static override readonly code: string = "length_required";
  static override readonly status: number = 411;
}

/** The path and query string are over the service's limit (a long search question in another script). */
export class QueryTooLong extends AnamnesisError {
  static override readonly code: string = "query_too_long";
  static override readonly status: number = 414;
}

export class HeadersTooLarge extends AnamnesisError {
  static override readonly code: string = "headers_too_large";
  static override readonly status: number = 431;
}

/** 417: an `Expect` header other than `100-continue`; nothing was done. */
export class ExpectationFailed extends AnamnesisError {
  static override readonly code: string = "expectation_failed";
  static override readonly status: number = 417;
}

/** 501: a transfer coding the service does not read (only chunked is); nothing was done. */
export class NotImplementedByService extends AnamnesisError {
  static override readonly code: string = "not_implemented";
  static override readonly status: number = 501;
}

export class RateLimited extends RetryableError {
  static override readonly code: string = "rate_limited";
  static override readonly status: number = 429;
}

export class IdentityProviderUnavailable extends RetryableError {
  static override readonly code: string = "identity_provider_unavailable";
  static override readonly status: number = 503;
}

export class ServiceUnavailable extends RetryableError {
  static override readonly code: string = "service_unavailable";
  static override readonly status: number = 503;
}

export class EmbeddingProviderUnavailable extends ServiceUnavailable {
  static override readonly code: string = "embedding_provider_unavailable";
  static override readonly status: number = 503;
}

export class SchedulingUnavailable extends ServiceUnavailable {
  static override readonly code: string = "scheduling_unavailable";
  static override readonly status: number = 503;
}

export class OutsideSystemUnavailable extends ServiceUnavailable {
  static override readonly code: string = "outside_system_unavailable";
  static override readonly status: number = 503;
}

export class DatabaseUnavailable extends ServiceUnavailable {
  static override readonly code: string = "database_unavailable";
  static override readonly status: number = 503;
}

/** An agent's proposals are confirmed (or rejected) by the patient or staff. */
export class AgentCannotConfirm extends ForbiddenError {
  static override readonly code: string = "agent_cannot_confirm";
  static override readonly status: number = 403;
}

/** The patient or staff delete memories; an agent cannot. */
export class AgentCannotDelete extends ForbiddenError {
  static override readonly code: string = "agent_cannot_delete";
  static override readonly status: number = 403;
}

/** An administrator grants and revokes access and registers staff; an agent cannot. */
export class AgentCannotGrant extends ForbiddenError {
  static override readonly code: string = "agent_cannot_grant";
  static override readonly status: number = 403;
}

/** The patient or staff revoke a consent; an agent cannot. */
export class AgentCannotRevoke extends ForbiddenError {
  static override readonly code: string = "agent_cannot_revoke";
  static override readonly status: number = 403;
}

/** The patient withdrew the consent for the workflow's purpose: no new operation is queued for it. */
export class ConsentRevoked extends ForbiddenError {
  static override readonly code: string = "consent_revoked";
  static override readonly status: number = 403;
}

/** The patient's consent for the workflow's purpose ran out: no new operation is queued for it. */
export class ConsentExpired extends ForbiddenError {
  static override readonly code: string = "consent_expired";
  static override readonly status: number = 403;
}

/** The patient, or staff with a grant, export a record; an agent reads for its purpose. */
export class AgentCannotExport extends ForbiddenError {
  static override readonly code: string = "agent_cannot_export";
  static override readonly status: number = 403;
}

/** The token's organisation is not registered, or does not trust the token's issuer. */
export class UnknownOrganization extends ForbiddenError {
  static override readonly code: string = "unknown_organization";
  static override readonly status: number = 403;
}

/** The patient already has an active consent for this purpose. */
export class ConsentExists extends ConflictError {
  static override readonly code: string = "consent_exists";
  static override readonly status: number = 409;
}

/** This staff member already holds an active grant for the patient and purpose. */
export class GrantExists extends ConflictError {
  static override readonly code: string = "grant_exists";
  static override readonly status: number = 409;
}

/** The directory already has this patient. */
export class PatientExists extends ConflictError {
  static override readonly code: string = "patient_exists";
  static override readonly status: number = 409;
}

/** The directory already has this staff member. */
export class StaffExists extends ConflictError {
  static override readonly code: string = "staff_exists";
  static override readonly status: number = 409;
}

/** Another patient of the organisation has this identifier. */
export class IdentifierInUse extends ConflictError {
  static override readonly code: string = "identifier_in_use";
  static override readonly status: number = 409;
}

/** An organisation with this id is already registered. */
export class OrganizationExists extends ConflictError {
  static override readonly code: string = "organization_exists";
  static override readonly status: number = 409;
}

/** A memory type with this name exists: revise it instead. */
export class MemoryTypeExists extends ConflictError {
  static override readonly code: string = "memory_type_exists";
  static override readonly status: number = 409;
}

/** Built-in memory types change only with a release of the service. */
export class MemoryTypeBuiltin extends ConflictError {
  static override readonly code: string = "memory_type_builtin";
  static override readonly status: number = 409;
}

/** Current memories of the type would not satisfy the revision (`errors` lists them). */
export class RevisionBreaksMemories extends ConflictError {
  static override readonly code: string = "revision_breaks_memories";
  static override readonly status: number = 409;
}

/** A FHIR resource changed without a new meta.versionId. */
export class ResourceVersionConflict extends ConflictError {
  static override readonly code: string = "resource_version_conflict";
  static override readonly status: number = 409;
}

/** A newer version of this FHIR resource is already imported. */
export class StaleResourceVersion extends ConflictError {
  static override readonly code: string = "stale_resource_version";
  static override readonly status: number = 409;
}

export class InternalError extends AnamnesisError {
  static override readonly code: string = "internal_error";
  static override readonly status: number = 500;
}

type ErrorClass = typeof AnamnesisError;

const ALL: ErrorClass[] = [
  TransportError, ForbiddenError, ConflictError, RetryableError, ValidationError, ContextBudgetTooSmall, BadRequest,
  MalformedJson, BadContentLength, InvalidPath, UnsupportedMediaType, InvalidToken, InsufficientScope, NoActiveConsentOrAccess,
  PurposeNotPermitted, Forbidden, StaffOnly, NotAPatientStatement, PurposeNotSupported, NotFound, MethodNotAllowed,
  NotAcceptable, Conflict, ConcurrentUpdateRetry, VersionConflict, IllegalTransition, OperationInProgress,
  OperationNotAllowed, IdempotencyKeyReused, IdempotentResponseWithdrawn, OperationNotRetryable,
  OperationNotResolvable, NotProposed, ProposalPending, ProposalStale, NotCorrectable, NotQuarantined,
  SessionAlreadyEnded, TooManyProposals, TooManyMemoryTypes, TooManySessions, TurnLimitReached, SlotsIncomplete, ClarificationNeeded,
  SessionGone, SessionExpired, SessionEnded, PayloadTooLarge, RequestTimeout, LengthRequired, QueryTooLong,
  HeadersTooLarge, ExpectationFailed, NotImplementedByService, RateLimited, CommitOutcomeUnknown,
  IdentityProviderUnavailable, ServiceUnavailable, EmbeddingProviderUnavailable, SchedulingUnavailable,
  OutsideSystemUnavailable, DatabaseUnavailable, AgentCannotConfirm, AgentCannotDelete, AgentCannotGrant,
  AgentCannotRevoke, ConsentRevoked, ConsentExpired, AgentCannotExport, UnknownOrganization, ConsentExists,
  GrantExists, PatientExists, StaffExists,
  IdentifierInUse, OrganizationExists, MemoryTypeExists, MemoryTypeBuiltin, RevisionBreaksMemories,
  ResourceVersionConflict, StaleResourceVersion, InternalError,
];

/** The class of each problem code (the classes that name a code of their own). */
export const PROBLEM_CLASSES: ReadonlyMap<string, ErrorClass> = new Map(
  ALL.filter((cls) => Object.hasOwn(cls, "code") && cls !== TransportError).map((cls) => [cls.code, cls]),
);

/** The class of an answer with no code of ours (a proxy's page): its status's family, or the one class of that
 * status. */
const BY_STATUS: ReadonlyMap<number, ErrorClass> = new Map<number, ErrorClass>([
  [400, BadRequest], [403, ForbiddenError], [409, ConflictError], [429, RetryableError], [503, RetryableError],
  [410, SessionGone], [404, NotFound], [422, ValidationError], [401, InvalidToken], [405, MethodNotAllowed],
  [406, NotAcceptable], [408, RequestTimeout], [411, LengthRequired], [413, PayloadTooLarge], [414, QueryTooLong],
  [415, UnsupportedMediaType], [417, ExpectationFailed], [431, HeadersTooLarge], [500, InternalError],
  [501, NotImplementedByService],
]);

/** `Retry-After` in seconds: delay-seconds (`1.5` too, as proxies send), or an HTTP date (RFC 9110 §10.2.3). A
 * number is never read as a date (`Date.parse("1.5")` is a day in 2001). */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const when = Date.parse(text);
  return Number.isNaN(when) ? undefined : Math.max(0, (when - now) / 1000);
}

/** The typed error for a problem document answered with `status`. */
export function errorFromProblem(status: number, body: Record<string, unknown>,
                                 options: { retryAfter?: number } = {}): AnamnesisError {
  const code = typeof body["code"] === "string" ? body["code"] : undefined;
  const cls = (code !== undefined ? PROBLEM_CLASSES.get(code) : undefined) ?? BY_STATUS.get(status) ?? AnamnesisError;
  const text = (key: string) => (typeof body[key] === "string" ? (body[key] as string) : undefined);
  return new cls(text("message"), {
    status, code: code ?? cls.code, title: text("title"),
    // a proxy's JSON is no problem document: only field problems that are objects, as the Python client takes
    errors: Array.isArray(body["errors"])
      ? (body["errors"] as unknown[]).filter((p): p is FieldProblem => p !== null && typeof p === "object"
                                                                     && !Array.isArray(p))
      : [],
    requestId: text("request_id"), retryAfter: options.retryAfter, body,
  });
}
