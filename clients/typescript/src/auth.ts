/**
 * Token providers: where the bearer token comes from. Pass any object with `getToken()` and `invalidate()` (called
 * once after a 401 so that a fresh token is tried), a {@link StaticToken} or {@link ClientCredentials}.
 */
import { IdentityProviderUnavailable, InvalidToken, parseRetryAfter, TransportError } from "./errors.js";

export interface TokenProvider {
  getToken(): Promise<string>;
  invalidate(): void;
}

/** A token obtained elsewhere (e.g. handed to the agent by its launcher). */
export class StaticToken implements TokenProvider {
  readonly #token: string;

  constructor(token: string) {
    if (!token) throw new TypeError("an empty token");
    this.#token = token;
  }

  async getToken(): Promise<string> {
    return this.#token;
  }

  /** A static token cannot be renewed; the 401 is raised to the caller. */
  invalidate(): void {}
}

export interface ClientCredentialsOptions {
  scope?: string;
  audience?: string;
  /** RFC 8707 resource indicator. */
  resource?: string;
  /** Seconds before expiry at which a cached token is renewed. */
  refreshMarginSeconds?: number;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4): a token from `tokenUrl` for this client, cached until
 * `refreshMarginSeconds` before it expires. `resource` (RFC 8707) and `audience` are sent when given. Concurrent
 * calls share one fetch.
 */
export class ClientCredentials implements TokenProvider {
  readonly #secret: string;
  #token: string | undefined;
  #expiresAt = 0;
  #pending: Promise<string> | undefined;
  /** How many tokens were fetched (for tests and metrics). */
  fetches = 0;

  constructor(readonly tokenUrl: string, readonly clientId: string, clientSecret: string,
              readonly options: ClientCredentialsOptions = {}) {
    this.#secret = clientSecret;
  }

  async getToken(): Promise<string> {
    if (this.#token !== undefined && Date.now() < this.#expiresAt) return this.#token;
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  invalidate(): void {
    this.#token = undefined;
    this.#expiresAt = 0;
  }

  async #fetch(): Promise<string> {
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    for (const name of ["scope", "audience", "resource"] as const) {
      const value = this.options[name];
      if (value) form.set(name, value);
    }
    const basic = Buffer.from(`${encodeURIComponent(this.clientId)}:${encodeURIComponent(this.#secret)}`)
      .toString("base64");
    let response: Response;
    try {
      response = await (this.options.fetch ?? globalThis.fetch)(this.tokenUrl, {
        method: "POST", body: form, headers: { Authorization: `Basic ${basic}`, Accept: "application/json" },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      throw new TransportError(`token endpoint unreachable: ${(error as Error).name}`);
    }
    if (response.status === 429 || response.status >= 500) {
      // the authorization server is busy or down, which says nothing of the credentials: retryable
      await response.body?.cancel();
      throw new IdentityProviderUnavailable(`the token endpoint answered ${response.status}`, {
        status: response.status, retryAfter: parseRetryAfter(response.headers.get("Retry-After")) });
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new InvalidToken(`the token endpoint answered ${response.status}`, { status: 401 });
    }
    // not JSON, or JSON that is no object (a proxy's page, `null`): no token, as the Python client reads it
    const parsed: unknown = await response.json().catch(() => ({}));
    const data = (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {}
                 ) as Record<string, unknown>;
    const token = data["access_token"];
    const type = typeof data["token_type"] === "string" ? (data["token_type"] as string) : "bearer";
    if (typeof token !== "string" || !token || type.toLowerCase() !== "bearer") {
      throw new InvalidToken("the token endpoint gave no bearer token", { status: 401 });
    }
    const given = Number(data["expires_in"] ?? 300);
    const lifetime = Number.isFinite(given) ? given : 300; // not a number: the default lifetime, as in Python
    this.#token = token;
    this.#expiresAt = Date.now() + (lifetime - (this.options.refreshMarginSeconds ?? 30)) * 1000;
    this.fetches += 1;
    return token;
  }
}
