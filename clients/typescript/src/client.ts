/**
 * The client: a thin layer over openapi-fetch, typed by the OpenAPI document (src/schema.ts), with the Python
 * client's behaviour. Every call, whether through a named method or through {@link AnamnesisClient.raw}, goes
 * through one `fetch` that makes retries safe by construction:
 *
 * - creating calls (the operations that take an `Idempotency-Key`, src/operations.ts) always carry one (yours, or
 *   a fresh UUID), the same on every attempt, so a retry after a lost answer cannot create a second thing;
 * - `429` and the service's own `503` (a problem document with its `code`) mean nothing was changed: retried for
 *   every call, after `Retry-After` when sent (seconds, fractions too, or an HTTP date), otherwise exponential
 *   backoff with full jitter; but a `503 commit_outcome_unknown` (the write may have been saved) is retried only
 *   for reads and keyed calls, and otherwise throws {@link CommitOutcomeUnknown};
 * - a proxy's `502`, `503` (no problem document of the service) and `504` may come after the request reached the
 *   service: retried, as a lost answer, only for reads and keyed calls;
 * - a network failure (no answer) is retried only for reads and keyed calls; anything else throws
 *   {@link TransportError} because the first attempt may have landed;
 * - a `401` asks the token provider for a fresh token once; a token provider whose authorization server is busy,
 *   down or out of reach (`IdentityProviderUnavailable`, `TransportError`) is asked again as a `503` is;
 * - an answer of 400 or more throws the problem's own error class (errors.ts).
 */
import { randomUUID } from "node:crypto";

import createClient, { type Client, type Middleware } from "openapi-fetch";

import { StaticToken, type TokenProvider } from "./auth.js";
import {
  CommitOutcomeUnknown, errorFromProblem, PagingLoop, parseRetryAfter, RetryableError, TransportError,
  UnexpectedResponse,
} from "./errors.js";

export { parseRetryAfter } from "./errors.js";
import { KEYED_OPERATIONS } from "./operations.js";
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
export type Purpose = Schemas["PurposeEnum"];
export type Memory = Schemas["MemoryOut"];
export type MemoryIn = Schemas["MemoryInRequest"];
export type MemoryStored = Schemas["MemoryStored"];
export type ProposalIn = Schemas["ProposalInRequest"];
/** A proposal waiting for review; `stale` (with `overtaken_by`, the current value): confirming it is proposal_stale. */
export type Proposal = Schemas["ProposalOut"];
export type SearchResult = Schemas["SearchResult"];
export type ContextPack = Schemas["ContextPackOut"];
export type ContextIn = Schemas["ContextInRequest"];
export type CareTeamFlag = Schemas["CareTeamFlags"]["items"][number];
export type Consent = Schemas["ConsentOut"];
export type SessionState = Schemas["SessionStateOut"];
export type TurnAppended = Schemas["TurnAppendedOut"];
export type TurnRole = Schemas["RoleEnum"];
export type SessionContext = Schemas["ContextOut"];
export type Offers = Schemas["OffersOut"];
export type Proposals = Schemas["ProposalsOut"];
export type SessionOutcome = Schemas["OutcomeEnum"];
export type Workflow = Schemas["WorkflowOut"];
export type WorkflowType = Schemas["WorkflowTypeEnum"];
export type WorkflowState = NonNullable<Schemas["WorkflowCreateInRequest"]["state"]>;
export type CheckpointIn = Schemas["CheckpointInRequest"];
export type Operation = Schemas["OperationOut"];
export type OperationKind = Schemas["KindEnum"];
export type OperationPayload = Schemas["OperationPayloadRequest"];
export type ResolutionOutcome = Schemas["ResolutionOutcomeEnum"];

/** The statuses the service answers when nothing was changed (its 503 with its problem document). */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** A proxy's failures: the request may have reached the service, so sent again only when that is safe. */
export const PROXY_RETRY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

export interface RetryPolicy {
  maxRetries: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** The longest `Retry-After` honoured; a longer one is waited for this long. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, backoffBaseMs: 500, backoffMaxMs: 20_000,
                                            maxRetryAfterMs: 60_000 };

/** Milliseconds to wait before retry number `attempt` (0-based); `retryAfter` in seconds, when the service said. */
export function retryDelay(policy: RetryPolicy, attempt: number, retryAfter: number | undefined): number {
  if (retryAfter !== undefined) return Math.min(Math.max(retryAfter * 1000, 0), policy.maxRetryAfterMs);
  return Math.random() * Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** attempt);
}

export interface ClientOptions {
  retry?: Partial<RetryPolicy>;
  /** One attempt's bound (connect, request and the whole answer); a call makes at most `maxRetries + 1`, with the
   * waits between them (see README). Default 10 000. */
  timeoutMs?: number;
  userAgent?: string;
  /** How the client waits between attempts (tests record the delays instead of waiting). */
  sleep?: (ms: number) => Promise<void>;
  fetch?: typeof globalThis.fetch;
  /** The purpose of use every read names unless the call names its own (left out: the token's `purpose_of_use`). */
  purpose?: PurposeOfUse;
}

/** Options of the calls that create something. */
export interface CreateOptions {
  /** The same key on a later call returns the first call's answer (a fresh UUID when left out). */
  idempotencyKey?: string;
}

/** A purpose of use: one of the document's, or a newer one. */
export type PurposeOfUse = Purpose | (string & {});

/** Options of the reads that name their purpose of use: the purpose a caller holds no consent or grant for is
 * `PurposeNotPermitted`. Left out, the client's `purpose`, else the token's one `purpose_of_use` claim. */
export interface ReadOptions {
  purpose?: PurposeOfUse;
}

type Id = string;

function required<T>(data: T | undefined): T {
  if (data === undefined) throw new UnexpectedResponse("the service answered with an empty body");
  return data;
}

/** A list's page: its items, or UnexpectedResponse when it holds none (an object where a list is due). */
function itemsOf<T>(page: { items: T[] } | undefined): T[] {
  const items = required(page).items;
  if (!Array.isArray(items)) throw new UnexpectedResponse("the service's answer holds no list of items");
  return items;
}

/** A read's query with its purpose of use added when there is one. Older documents do not declare `purpose`,
 * hence the cast; the service refuses a parameter it does not declare (422 `unknown_parameter`), so only the reads
 * that take it name it. */
function withPurpose<Q extends object>(query: Q, purpose: PurposeOfUse | undefined): Q {
  return (purpose !== undefined ? { ...query, purpose } : query) as Q;
}

/** Every item of a list the service answers a page at a time: `read` fetches the page after `cursor` (the first
 * when undefined), and pages are followed through `next_cursor` until it is null. A cursor given before, or an
 * empty page naming another, would be followed for ever: {@link PagingLoop}. */
async function allPages<T>(read: (cursor: string | undefined) => Promise<{ items: T[]; next_cursor?: string | null }
                                                                          | undefined>): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = required(await read(cursor));
    const pageItems = itemsOf(page);
    items.push(...pageItems);
    cursor = page.next_cursor || undefined;
    if (cursor === undefined) break;
    if (typeof cursor !== "string") throw new UnexpectedResponse("the service's next_cursor is not a cursor");
    if (seen.has(cursor) || pageItems.length === 0) {
      throw new PagingLoop("the service gave a cursor it gave before, or an empty page with a cursor");
    }
    seen.add(cursor);
  } while (cursor !== undefined);
  return items;
}

function isObject(answer: ArrayBuffer): boolean {
  try {
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(answer));
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** The service's rule for an Idempotency-Key (core/idempotency.py): another is refused there, or by `fetch` before
 * anything is sent with an opaque message (a character beyond Latin-1). The key is not echoed: a caller may have
 * built it from what it writes. */
function checkKey(key: string | null | undefined): void {
  if (key !== null && key !== undefined && !/^[A-Za-z0-9._:-]{1,100}$/.test(key)) {
    throw new TypeError("idempotencyKey: 1-100 of A-Z a-z 0-9 . _ : - (the service refuses any other)");
  }
}

function keyHeader(options: CreateOptions | undefined): { header?: { "Idempotency-Key": string } } {
  checkKey(options?.idempotencyKey);
  return options?.idempotencyKey !== undefined ? { header: { "Idempotency-Key": options.idempotencyKey } } : {};
}

export class AnamnesisClient {
  /** Every operation of the OpenAPI document, typed, with this client's retries, keys and typed errors. */
  readonly raw: Client<paths>;
  readonly token: TokenProvider;
  readonly retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #fetch: typeof globalThis.fetch;
  readonly #purpose: PurposeOfUse | undefined;
  /** The base URL's own path (a deployment under a prefix), before the API's paths. */
  readonly #basePath: string;

  constructor(baseUrl: string, token: TokenProvider | string, options: ClientOptions = {}) {
    this.token = typeof token === "string" ? new StaticToken(token) : token;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#purpose = options.purpose;
    this.#basePath = new URL(baseUrl).pathname.replace(/\/+$/, "");
    this.raw = createClient<paths>({
      baseUrl: baseUrl.replace(/\/+$/, ""),
      headers: { Accept: "application/json", "User-Agent": options.userAgent ?? "anamnesis-client-ts/0.1" },
      fetch: (request) => this.#send(request),
    });
    this.raw.use(idempotencyKeys);
  }

  /** The purpose a read names: the call's, else (unless the call names it by its older name, `consentPurpose`)
   * the client's. */
  #purposeOf(options: ReadOptions | undefined, older?: string): PurposeOfUse | undefined {
    if (options?.purpose !== undefined || older !== undefined) return options?.purpose;
    return this.#purpose;
  }

  async #send(request: Request): Promise<Response> {
    const method = request.method;
    const path = new URL(request.url).pathname;
    // An id that is no identifier changes the path the service reads once it decodes it: "<id>/operations" given
    // to getWorkflow (sent as %2F) read the workflow's operations. Nothing is sent.
    const own = path.startsWith(this.#basePath) ? path.slice(this.#basePath.length) : path;
    if (!own.split("/").slice(1).every((segment) => /^[A-Za-z0-9_-]+$/.test(segment))) {
      throw new TypeError(`not an identifier in the request path ${path}: ids are UUIDs`);
    }
    checkKey(request.headers.get("Idempotency-Key"));
    const where = `${method} ${path}`;
    const safeWithoutAnswer = method === "GET" || request.headers.has("Idempotency-Key");
    const body = method === "GET" || method === "HEAD" ? undefined : await request.arrayBuffer();
    let attempt = 0;
    let refreshed = false;
    for (;;) {
      const headers = new Headers(request.headers);
      try {
        headers.set("Authorization", `Bearer ${await this.token.getToken()}`);
      } catch (error) {
        // the authorization server busy, down or out of reach: asking it again is safe, as a 503 is retried
        if ((error instanceof RetryableError || error instanceof TransportError) && attempt < this.retry.maxRetries) {
          await this.#sleep(retryDelay(this.retry, attempt, error.retryAfter));
          attempt += 1;
          continue;
        }
        throw error;
      }
      let response: Response;
      let answer: ArrayBuffer | undefined;
      try {
        // no redirect is followed (the API answers none, as the Python client follows none): a proxy's redirect
        // elsewhere was followed and whatever answered there was taken for the service's answer
        response = await this.#fetch(request.url, { method, headers, body, redirect: "manual",
                                                     signal: AbortSignal.timeout(this.#timeoutMs) });
        // the whole answer within the attempt's timeout: read by the caller, one still arriving when it ran out
        // threw a bare TimeoutError past the retries; read here, it is a lost answer
        if (response.status < 400) answer = await response.arrayBuffer();
      } catch (error) {
        if (safeWithoutAnswer && attempt < this.retry.maxRetries) {
          await this.#sleep(retryDelay(this.retry, attempt, undefined));
          attempt += 1;
          continue;
        }
        throw new TransportError(`${where}: ${(error as Error).name}`);
      }
      if (response.status === 401 && !refreshed) {
        refreshed = true;
        this.token.invalidate();
        if (!(this.token instanceof StaticToken)) {
          await response.body?.cancel();
          continue;
        }
      }
      if (answer !== undefined) {
        // every answer of the API is a JSON object: a success that is none (a proxy's page, an array, a body cut
        // short) would throw a SyntaxError or a TypeError deep in the caller; nothing of it is kept (it may hold
        // a patient's data)
        if (response.status >= 300
            || (answer.byteLength > 0 && (headers.get("Accept") ?? "").includes("json") && !isObject(answer))) {
          throw new UnexpectedResponse(`${where}: the answer is not what the operation answers`,
                                       { status: response.status });
        }
        return new Response(answer.byteLength > 0 ? answer : null,
                            { status: response.status, statusText: response.statusText, headers: response.headers });
      }
      // a problem document, read once for both the retry decision and the error thrown
      let problem: unknown = {};
      try {
        problem = JSON.parse(await response.text());
      } catch {
        // not JSON: the status alone decides the class
      }
      const fields = (problem !== null && typeof problem === "object" && !Array.isArray(problem) ? problem : {}
                     ) as Record<string, unknown>;
      const retryAfter = parseRetryAfter(response.headers.get("Retry-After"));
      // 429 and the service's own 503 changed nothing; a 503 commit_outcome_unknown (the write may have been
      // saved) and a proxy's 502, 503 or 504 (the request may have reached the service) are sent again only when
      // that is safe
      const code = fields["code"];
      const nothingChanged = response.status === 429
        || (response.status === 503 && typeof code === "string" && code !== CommitOutcomeUnknown.code);
      if ((nothingChanged || (PROXY_RETRY_STATUSES.has(response.status) && safeWithoutAnswer))
          && attempt < this.retry.maxRetries) {
        await this.#sleep(retryDelay(this.retry, attempt, retryAfter));
        attempt += 1;
        continue;
      }
      throw errorFromProblem(response.status, fields, { retryAfter });
    }
  }

  // --- consents --------------------------------------------------------------------------------------------------
  /** Record a consent. The patient's own token needs nothing more; staff and agents name the evidence
   * (`evidenceRef`, e.g. the signed form). */
  async giveConsent(patientId: Id, purpose: Purpose,
                    options: CreateOptions & { evidenceRef?: string; expiresAt?: Date } = {}): Promise<Consent> {
    const { data } = await this.raw.POST("/v1/patients/{patient_id}/consents", {
      params: { path: { patient_id: patientId }, ...keyHeader(options) },
      body: { purpose, evidence_ref: options.evidenceRef, expires_at: options.expiresAt?.toISOString() },
    });
    return required(data);
  }

  // --- long-term memory ------------------------------------------------------------------------------------------
  /** Every memory kept for the purpose: the service answers a page at a time, and its pages are followed through
   * `next_cursor` to the last. */
  async listMemories(patientId: Id, options: ReadOptions & { memoryType?: string; consentPurpose?: Purpose } = {},
  ): Promise<Memory[]> {
    const purpose = this.#purposeOf(options, options.consentPurpose);
    return allPages(async (cursor) => (await this.raw.GET("/v1/patients/{patient_id}/memories", {
      params: { path: { patient_id: patientId },
                query: withPurpose({ memory_type: options.memoryType, consent_purpose: options.consentPurpose,
                                     ...(cursor === undefined ? {} : { cursor }) }, purpose) },
    })).data);
  }

  async getMemory(patientId: Id, memoryId: Id, options: ReadOptions = {}): Promise<Memory> {
    const { data } = await this.raw.GET("/v1/patients/{patient_id}/memories/{memory_id}", {
      params: { path: { patient_id: patientId, memory_id: memoryId },
                query: withPurpose({}, this.#purposeOf(options)) as never },
    });
    return required(data);
  }

  async recordMemory(patientId: Id, memory: MemoryIn, options: CreateOptions = {}): Promise<MemoryStored> {
    const { data } = await this.raw.POST("/v1/patients/{patient_id}/memories", {
      params: { path: { patient_id: patientId }, ...keyHeader(options) }, body: memory,
    });
    return required(data);
  }

  async proposeMemory(patientId: Id, proposal: ProposalIn, options: CreateOptions = {}): Promise<Memory> {
    const { data } = await this.raw.POST("/v1/patients/{patient_id}/memories/proposals", {
      params: { path: { patient_id: patientId }, ...keyHeader(options) }, body: proposal,
    });
    return required(data);
  }

  /** What the patient's conversations flagged for the care team (staff who may see them), urgent first: the
   * service answers a page at a time, and its pages are followed through `next_cursor` to the last. */
  async careTeamFlags(patientId: Id, options: ReadOptions = {}): Promise<CareTeamFlag[]> {
    const purpose = this.#purposeOf(options);
    return allPages(async (cursor) => (await this.raw.GET("/v1/patients/{patient_id}/care-team-flags", {
      params: { path: { patient_id: patientId }, query: withPurpose(cursor === undefined ? {} : { cursor }, purpose) },
    })).data);
  }

  /** Every proposal waiting for the patient or staff, oldest first: the service answers a page at a time, and its
   * pages are followed through `next_cursor` to the newest. With a purpose, only those kept for it. */
  async listProposals(patientId: Id, options: ReadOptions = {}): Promise<Proposal[]> {
    const purpose = this.#purposeOf(options);
    return allPages(async (cursor) => (await this.raw.GET("/v1/patients/{patient_id}/memories/proposals", {
      params: { path: { patient_id: patientId }, query: withPurpose(cursor === undefined ? {} : { cursor }, purpose) },
    })).data);
  }

  async confirmMemory(patientId: Id, memoryId: Id): Promise<Memory> {
    const { data } = await this.raw.POST("/v1/patients/{patient_id}/memories/{memory_id}/confirm", {
      params: { path: { patient_id: patientId, memory_id: memoryId } },
    });
    return required(data);
  }

  async searchMemories(patientId: Id, q: string, options: ReadOptions & {
    limit?: number; minScore?: number; consentPurpose?: Purpose; memoryClass?: string;
    /** One type or several: only memories of these types are ranked (an unknown type is 422). */
    memoryType?: string | string[];
  } = {}): Promise<SearchResult> {
    const memoryType = Array.isArray(options.memoryType) ? options.memoryType.join(",") : options.memoryType;
    const { data } = await this.raw.GET("/v1/patients/{patient_id}/memories/search", {
      params: { path: { patient_id: patientId },
                query: withPurpose({ q, limit: options.limit, min_score: options.minScore,
                                     consent_purpose: options.consentPurpose,
                                     memory_class: options.memoryClass as never, memory_type: memoryType },
                                   this.#purposeOf(options, options.consentPurpose)) },
    });
    return required(data);
  }

  /** The facts released for `question`, for `purpose` (left out: the client's, else the token's). */
  async contextPack(patientId: Id, question: string, purpose?: PurposeOfUse,
                    options: CreateOptions & { limit?: number; sessionId?: Id } = {}): Promise<ContextPack> {
    const body = { question, purpose: this.#purposeOf({ purpose }), limit: options.limit,
                   session_id: options.sessionId };
    const { data } = await this.raw.POST("/v1/patients/{patient_id}/context", {
      params: { path: { patient_id: patientId }, ...keyHeader(options) }, body: body as ContextIn,
    });
    return required(data);
  }

  // --- short-term context ----------------------------------------------------------------------------------------
  async startSession(patientId: Id, purpose: Purpose, options: CreateOptions = {}): Promise<SessionState> {
    const { data } = await this.raw.POST("/v1/sessions", {
      params: keyHeader(options), body: { patient_id: patientId, purpose },
    });
    return required(data);
  }

  async addTurn(sessionId: Id, content: string, options: CreateOptions & {
    role?: TurnRole; toolName?: string; toolResult?: Record<string, unknown>;
  } = {}): Promise<TurnAppended> {
    const { data } = await this.raw.POST("/v1/sessions/{session_id}/turns", {
      params: { path: { session_id: sessionId }, ...keyHeader(options) },
      body: { role: options.role ?? "user", content, tool_name: options.toolName, tool_result: options.toolResult },
    });
    return required(data);
  }

  /** A session is read for the purpose it is held for (another is `PurposeNotPermitted`). */
  async sessionContext(sessionId: Id, options: ReadOptions & { maxTokens?: number } = {}): Promise<SessionContext> {
    const { data } = await this.raw.GET("/v1/sessions/{session_id}/context", {
      params: { path: { session_id: sessionId },
                query: withPurpose({ max_tokens: options.maxTokens }, this.#purposeOf(options)) },
    });
    return required(data);
  }

  async searchOffers(sessionId: Id, options: CreateOptions = {}): Promise<Offers> {
    const { data } = await this.raw.POST("/v1/sessions/{session_id}/offers", {
      params: { path: { session_id: sessionId }, ...keyHeader(options) },
    });
    return required(data);
  }

  async proposeFromTurn(sessionId: Id, seq: number, options: CreateOptions = {}): Promise<Proposals> {
    const { data } = await this.raw.POST("/v1/sessions/{session_id}/turns/{seq}/propose", {
      params: { path: { session_id: sessionId, seq }, ...keyHeader(options) },
    });
    return required(data);
  }

  async endSession(sessionId: Id, outcome: SessionOutcome = "completed"): Promise<SessionState> {
    const { data } = await this.raw.POST("/v1/sessions/{session_id}/end", {
      params: { path: { session_id: sessionId } }, body: { outcome },
    });
    return required(data);
  }

  // --- workflows -------------------------------------------------------------------------------------------------
  async createWorkflow(workflowType: WorkflowType, patientId: Id,
                       options: CreateOptions & { state?: WorkflowState } = {}): Promise<Workflow> {
    const { data } = await this.raw.POST("/v1/workflows", {
      params: keyHeader(options),
      body: { workflow_type: workflowType, patient_id: patientId, state: options.state ?? {} },
    });
    return required(data);
  }

  async getWorkflow(workflowId: Id): Promise<Workflow> {
    const { data } = await this.raw.GET("/v1/workflows/{workflow_id}", {
      params: { path: { workflow_id: workflowId } },
    });
    return required(data);
  }

  async checkpoint(workflowId: Id, checkpoint: CheckpointIn, options: CreateOptions = {}): Promise<Workflow> {
    const { data } = await this.raw.POST("/v1/workflows/{workflow_id}/checkpoint", {
      params: { path: { workflow_id: workflowId }, ...keyHeader(options) }, body: checkpoint,
    });
    return required(data);
  }

  async requestOperation(workflowId: Id, request: { expectedVersion: number; kind: OperationKind;
                                                    payload: OperationPayload } & CreateOptions): Promise<Operation> {
    const { data } = await this.raw.POST("/v1/workflows/{workflow_id}/operations", {
      params: { path: { workflow_id: workflowId }, ...keyHeader(request) },
      body: { expected_version: request.expectedVersion, kind: request.kind, payload: request.payload },
    });
    return required(data);
  }

  /** Staff: a new retry budget for an operation whose retries ran out with an unknown outcome (same key: the
   * outside system is asked first, and the request is sent again only if it never arrived). */
  async retryOperation(workflowId: Id, operationId: Id): Promise<Operation> {
    const { data } = await this.raw.POST("/v1/workflows/{workflow_id}/operations/{operation_id}/retry", {
      params: { path: { workflow_id: workflowId, operation_id: operationId } },
    });
    return required(data);
  }

  /** Staff (`workflow:reconcile`) record what the outside system told them of an operation whose outcome is
   * unknown: `"sent"` with its `externalId` (it succeeded; the workflow moves on with the id) or `"not_sent"` (it
   * failed; ask for it again with a new key). Never attempted again. The same resolution again answers the
   * operation as it is; another is `OperationNotResolvable`. */
  async resolveOperation(workflowId: Id, operationId: Id, resolution: { expectedVersion: number;
                           outcome: ResolutionOutcome; externalId?: string }): Promise<Operation> {
    const { data } = await this.raw.POST("/v1/workflows/{workflow_id}/operations/{operation_id}/resolve", {
      params: { path: { workflow_id: workflowId, operation_id: operationId } },
      body: { expected_version: resolution.expectedVersion, outcome: resolution.outcome,
              external_id: resolution.externalId },
    });
    return required(data);
  }

  /** Every operation of the workflow, newest first: the service answers a page at a time, and its pages are
   * followed through `next_cursor` to the oldest. */
  async listOperations(workflowId: Id): Promise<Operation[]> {
    return allPages(async (cursor) => (await this.raw.GET("/v1/workflows/{workflow_id}/operations", {
      params: { path: { workflow_id: workflowId }, query: cursor === undefined ? {} : { cursor } },
    })).data);
  }
}

/** Gives every call of an operation that takes an Idempotency-Key a fresh one when the caller chose none; the
 * request (and so the key) is the same on every attempt. */
const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (KEYED_OPERATIONS.has(`${request.method} ${schemaPath}`) && !request.headers.has("Idempotency-Key")) {
      request.headers.set("Idempotency-Key", randomUUID());
    }
    return request;
  },
};
