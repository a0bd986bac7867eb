/** Retries: 429 and 503 retried after Retry-After (seconds or an HTTP date) or with backoff; a lost answer retried
 * only when safe; a creating call keeps one Idempotency-Key across its attempts; a 401 renews a provider's token
 * once. The outside systems here (a rate-limiting gateway, a failing upstream, a token endpoint) are real HTTP
 * servers; the gateway forwards to the live service. */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import {
  AnamnesisClient, ClientCredentials, DEFAULT_RETRY, errors, parseRetryAfter, retryDelay,
} from "../src/index.js";
import { deadUrl, json, live, recorder, serve } from "./support.js";

/** The live service shares a busy machine: its answers may be slower than the default timeout. */
const LIVE_TIMEOUT = 60_000;

/** A rate-limiting gateway in front of the live service: answers 429 with `retryAfter` to the first `limit`
 * requests, forwards the rest, and records every request's Idempotency-Key. */
async function gateway(limit: number, retryAfter: string) {
  const keys: (string | undefined)[] = [];
  let remaining = limit;
  const served = await serve(async (request, body, response) => {
    keys.push(request.headers["idempotency-key"] as string | undefined);
    if (remaining > 0) {
      remaining -= 1;
      json(response, 429, { code: "rate_limited", status: 429 }, { "Retry-After": retryAfter });
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of ["authorization", "content-type", "idempotency-key", "accept"]) {
      const value = request.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    const upstream = await fetch(live.url + request.url, { method: request.method, headers,
                                                          body: body.length ? body : undefined });
    const data = Buffer.from(await upstream.arrayBuffer());
    response.writeHead(upstream.status, { "Content-Type": upstream.headers.get("Content-Type") ?? "application/json",
                                          "Content-Length": data.length });
    response.end(data);
  });
  return { ...served, keys };
}

describe("429 and 503", () => {
  test("a 429 is retried after Retry-After, and a retried create keeps its Idempotency-Key", async () => {
    const proxy = await gateway(2, "3");
    const { sleeps, sleep } = recorder();
    try {
      const api = new AnamnesisClient(proxy.url, live.token, { sleep, timeoutMs: LIVE_TIMEOUT });
      const workflow = await api.createWorkflow("appointment_booking", live.patientId);
      assert.deepEqual(sleeps, [3000, 3000]);
      assert.equal(proxy.keys.length, 3);
      assert.ok(proxy.keys[0]);
      assert.equal(new Set(proxy.keys).size, 1, "the same key on every attempt");
      const read = await new AnamnesisClient(live.url, live.token, { timeoutMs: LIVE_TIMEOUT }).getWorkflow(workflow.workflow_id);
      assert.equal(read.workflow_type, "appointment_booking");
    } finally {
      await proxy.close();
    }
  });

  test("a Retry-After given as an HTTP date is waited for until that time", async () => {
    const when = new Date(Date.now() + 4000).toUTCString();
    const proxy = await gateway(1, when);
    const { sleeps, sleep } = recorder();
    try {
      const api = new AnamnesisClient(proxy.url, live.token, { sleep, timeoutMs: LIVE_TIMEOUT });
      assert.ok(Array.isArray(await api.listMemories(live.patientId)));
      assert.equal(sleeps.length, 1);
      assert.ok(sleeps[0]! > 1000 && sleeps[0]! <= 4000, `waited ${sleeps[0]} ms`);
    } finally {
      await proxy.close();
    }
  });

  test("the service's own 503 (its scheduling system is down) is retried after its Retry-After, then thrown",
       async () => {
    const api = new AnamnesisClient(live.url, live.token, { timeoutMs: LIVE_TIMEOUT });
    const state = await api.startSession(live.patientId, "appointment_scheduling");
    await api.addTurn(state.session.session_id, "I need to reschedule my cardiology follow-up.");
    const { sleeps, sleep } = recorder();
    const retrying = new AnamnesisClient(live.url, live.token, { sleep, retry: { maxRetries: 2 },
                                                                   timeoutMs: LIVE_TIMEOUT });
    const error = await retrying.searchOffers(state.session.session_id).catch((e: unknown) => e);
    assert.ok(error instanceof errors.SchedulingUnavailable, String(error));
    assert.ok(error instanceof errors.RetryableError);
    assert.equal(error.status, 503);
    assert.equal(error.retryAfter, 5);
    assert.deepEqual(sleeps, [5000, 5000], "the service's Retry-After, not the client's own backoff");
  });

  test("without Retry-After the client backs off with full jitter, then throws the problem", async () => {
    let calls = 0;
    const upstream = await serve((_request, _body, response) => {
      calls += 1;
      json(response, 503, { code: "database_unavailable", status: 503, message: "try later" });
    });
    const { sleeps, sleep } = recorder();
    try {
      const api = new AnamnesisClient(upstream.url, "t", { sleep, retry: { maxRetries: 3, backoffBaseMs: 100 } });
      await assert.rejects(api.getWorkflow(randomUUID()), errors.DatabaseUnavailable);
      assert.equal(calls, 4, "one attempt and three retries");
      sleeps.forEach((ms, attempt) => assert.ok(ms >= 0 && ms <= 100 * 2 ** attempt, `${ms} ms`));
    } finally {
      await upstream.close();
    }
  });

  test("Retry-After parsing and its cap", () => {
    assert.equal(parseRetryAfter("7"), 7);
    assert.equal(parseRetryAfter(" 0 "), 0);
    assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("2015-10-21T07:27:30Z")), 30);
    assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("2016-01-01T00:00:00Z")), 0);
    assert.equal(parseRetryAfter("1.5"), 1.5, "fractional seconds, never a date");
    assert.equal(parseRetryAfter("0.25"), 0.25);
    assert.equal(parseRetryAfter("soon"), undefined);
    assert.equal(parseRetryAfter(null), undefined);
    assert.equal(retryDelay(DEFAULT_RETRY, 0, 3600), DEFAULT_RETRY.maxRetryAfterMs);
  });
});

describe("a proxy's 502, 503 and 504", () => {
  test("are retried after a fractional Retry-After for reads and keyed creates, never for an unkeyed write",
       async () => {
    let status = 502;
    const seen: { method: string; key: string | undefined }[] = [];
    const proxy = await serve((request, _body, response) => {
      seen.push({ method: request.method ?? "", key: request.headers["idempotency-key"] as string | undefined });
      response.writeHead(status, { "Content-Type": "text/html", "Retry-After": "1.5" });
      response.end("<h1>Bad gateway</h1>");
    });
    try {
      for (status of [502, 503, 504]) {
        const { sleeps, sleep } = recorder();
        const api = new AnamnesisClient(proxy.url, "t", { sleep, retry: { maxRetries: 2 } });
        seen.length = 0;
        const error = await api.getWorkflow(randomUUID()).then(() => undefined, (e: unknown) => e);
        assert.ok(error instanceof errors.AnamnesisError && error.status === status, String(error));
        assert.equal(seen.length, 3, `${status}: a read is sent again`);
        assert.deepEqual(sleeps, [1500, 1500], "Retry-After in fractional seconds");
        seen.length = 0;
        await assert.rejects(api.createWorkflow("appointment_booking", randomUUID()), errors.AnamnesisError);
        assert.equal(seen.length, 3, `${status}: a keyed create is sent again`);
        assert.equal(new Set(seen.map((s) => s.key)).size, 1, "under its key");
        seen.length = 0;
        await assert.rejects(api.confirmMemory(randomUUID(), randomUUID()), errors.AnamnesisError);
        assert.equal(seen.length, 1, `${status}: an unkeyed write may have reached the service`);
      }
    } finally {
      await proxy.close();
    }
  });
});

describe("an Idempotency-Key the service would refuse", () => {
  test("is refused before anything is sent, the key not echoed; one of 100 characters is sent", async () => {
    let requests = 0;
    const upstream = await serve((_request, _body, response) => {
      requests += 1;
      json(response, 201, { workflow_id: randomUUID() });
    });
    try {
      const api = new AnamnesisClient(upstream.url, "t", { retry: { maxRetries: 0 } });
      for (const key of ["clé-1", "Ωmega", "k".repeat(101), "two words", "", "line\n"]) {
        const error = await api.createWorkflow("appointment_booking", randomUUID(), { idempotencyKey: key })
          .then(() => undefined, (e: unknown) => e);
        assert.ok(error instanceof TypeError && /idempotencyKey: 1-100 of/.test(error.message), `${key}: ${error}`);
        assert.ok(key === "" || !error.message.includes(key));
        if (key.endsWith("\n")) continue;  // fetch's Headers strips it: "line" is what raw would send
        const raw = await api.raw.POST("/v1/workflows", {
          params: { header: { "Idempotency-Key": key } },
          body: { workflow_type: "appointment_booking", patient_id: randomUUID() },
        }).then(() => undefined, (e: unknown) => e);
        assert.ok(raw instanceof TypeError, `raw ${key}: ${raw}`);
      }
      assert.equal(requests, 0);
      await api.createWorkflow("appointment_booking", randomUUID(), { idempotencyKey: "k".repeat(100) });
      assert.equal(requests, 1);
    } finally {
      await upstream.close();
    }
  });
});

describe("lost answers", () => {
  test("are retried for reads and keyed creates, never for an unkeyed write that may have landed", async () => {
    const { sleeps, sleep } = recorder();
    const api = new AnamnesisClient(await deadUrl(), "t", { sleep, retry: { maxRetries: 2 } });
    await assert.rejects(api.getWorkflow(randomUUID()), errors.TransportError);
    assert.equal(sleeps.length, 2, "a read is retried");
    sleeps.length = 0;
    await assert.rejects(api.confirmMemory(randomUUID(), randomUUID()), errors.TransportError);
    assert.deepEqual(sleeps, [], "an unkeyed write may have landed: not retried");
    await assert.rejects(api.createWorkflow("appointment_booking", randomUUID()), errors.TransportError);
    assert.equal(sleeps.length, 2, "a keyed create is retried under the same key");
  });

  test("a 503 commit_outcome_unknown is sent again only for reads and keyed creates", async () => {
    const methods: string[] = [];
    const served = await serve((request, _body, response) => {
      methods.push(request.method ?? "");
      json(response, 503, { code: "commit_outcome_unknown", status: 503, title: "may have been saved" });
    });
    try {
      const { sleep } = recorder();
      const api = new AnamnesisClient(served.url, "t", { sleep, retry: { maxRetries: 2 } });
      const error = await api.confirmMemory(randomUUID(), randomUUID()).catch((e: unknown) => e);
      assert.ok(error instanceof errors.CommitOutcomeUnknown && !(error instanceof errors.RetryableError));
      assert.deepEqual(methods, ["POST"], "an unkeyed write may have been saved: not sent again");
      methods.length = 0;
      await assert.rejects(api.createWorkflow("appointment_booking", randomUUID()), errors.CommitOutcomeUnknown);
      assert.deepEqual(methods, ["POST", "POST", "POST"], "a keyed create is sent again under its key");
      methods.length = 0;
      await assert.rejects(api.getWorkflow(randomUUID()), errors.CommitOutcomeUnknown);
      assert.deepEqual(methods, ["GET", "GET", "GET"]);
    } finally {
      await served.close();
    }
  });

  test("an answer slower than the timeout is a lost answer", async () => {
    const upstream = await serve(async (_request, _body, response) => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      json(response, 200, {});
    });
    try {
      const api = new AnamnesisClient(upstream.url, "t", { timeoutMs: 100, retry: { maxRetries: 0 } });
      const error = await api.getWorkflow(randomUUID()).catch((e: unknown) => e);
      assert.ok(error instanceof errors.TransportError);
      assert.match(error.message, /TimeoutError/);
    } finally {
      await upstream.close();
    }
  });

  test("an answer still trickling in when the timeout runs out is a lost answer, retried when safe", async () => {
    const methods: string[] = [];
    const upstream = await serve(async (request, _body, response) => {
      methods.push(request.method ?? "");
      const body = Buffer.from(JSON.stringify({ workflow_id: randomUUID(), padding: " ".repeat(40) }));
      response.writeHead(200, { "Content-Type": "application/json", "Content-Length": body.length });
      for (let i = 0; i < body.length && !response.destroyed; i += 4) {
        response.write(body.subarray(i, i + 4));
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      response.end();
    });
    try {
      const { sleep } = recorder();
      const api = new AnamnesisClient(upstream.url, "t", { timeoutMs: 300, sleep, retry: { maxRetries: 1 } });
      const started = Date.now();
      const error = await api.getWorkflow(randomUUID()).catch((e: unknown) => e);
      assert.ok(error instanceof errors.TransportError, String(error));
      assert.match(error.message, /TimeoutError/);
      assert.deepEqual(methods, ["GET", "GET"], "a read is tried again");
      await assert.rejects(api.confirmMemory(randomUUID(), randomUUID()), errors.TransportError);
      assert.deepEqual(methods, ["GET", "GET", "POST"], "an unkeyed write is not");
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    } finally {
      await upstream.close();
    }
  });
});

describe("purpose of use on reads", () => {
  /** A service that answers every read with an empty list, recording the query strings it was sent. */
  async function recording() {
    const seen: URLSearchParams[] = [];
    const served = await serve((request, _body, response) => {
      seen.push(new URL(request.url ?? "/", "http://x").searchParams);
      json(response, 200, { items: [], min_score: 0, facts: [] });
    });
    return { ...served, seen, purposes: () => seen.map((q) => q.get("purpose")) };
  }

  test("a read names the call's purpose when given, and none otherwise", async () => {
    const upstream = await recording();
    try {
      const api = new AnamnesisClient(upstream.url, "t");
      const patient = randomUUID();
      await api.listMemories(patient, { purpose: "care_coordination", memoryType: "scheduling_preference" });
      await api.searchMemories(patient, "when?", { purpose: "appointment_scheduling",
                                                   memoryType: ["scheduling_preference", "accessibility_need"] });
      await api.careTeamFlags(patient, { purpose: "care_coordination" });
      await api.getMemory(patient, randomUUID(), { purpose: "communication" });
      await api.sessionContext(randomUUID(), { purpose: "appointment_scheduling", maxTokens: 500 });
      await api.listMemories(patient);
      assert.deepEqual(upstream.purposes(), ["care_coordination", "appointment_scheduling", "care_coordination",
                                             "communication", "appointment_scheduling", null]);
      assert.equal(upstream.seen[0]?.get("memory_type"), "scheduling_preference");
      assert.equal(upstream.seen[1]?.get("q"), "when?");
      assert.equal(upstream.seen[1]?.get("memory_type"), "scheduling_preference,accessibility_need");
      assert.equal(upstream.seen[4]?.get("max_tokens"), "500");
    } finally {
      await upstream.close();
    }
  });

  test("a client-wide purpose is named by every read that takes one, unless the call names its own", async () => {
    const upstream = await recording();
    try {
      const api = new AnamnesisClient(upstream.url, "t", { purpose: "appointment_scheduling" });
      const patient = randomUUID();
      await api.listMemories(patient);
      await api.searchMemories(patient, "when?", { purpose: "care_coordination" });
      await api.listMemories(patient, { consentPurpose: "communication" }); // its older name: not both
      await api.listProposals(patient);
      await api.listOperations(randomUUID()); // reads that take no purpose never name one
      assert.deepEqual(upstream.purposes(), ["appointment_scheduling", "care_coordination", null,
                                             "appointment_scheduling", null]);
      assert.equal(upstream.seen[2]?.get("consent_purpose"), "communication");
    } finally {
      await upstream.close();
    }
  });
});

describe("tokens", () => {
  test("client credentials: fetched once, cached, renewed once after a 401", async () => {
    const calls: { form: URLSearchParams; client: string }[] = [];
    // The authorization server hands out a token the service refuses, then the live service's test token.
    const issued = ["revoked-or-expired", live.token];
    const endpoint = await serve((request, body, response) => {
      const [user, secret] = Buffer.from(String(request.headers.authorization).split(" ")[1] ?? "", "base64")
        .toString().split(":");
      const form = new URLSearchParams(body.toString());
      calls.push({ form, client: user ?? "" });
      if (user !== "booking-agent" || secret !== "s3cret" || form.get("grant_type") !== "client_credentials") {
        response.writeHead(401).end();
        return;
      }
      json(response, 200, { access_token: issued.shift() ?? live.token, token_type: "Bearer", expires_in: 300 });
    });
    try {
      const provider = new ClientCredentials(`${endpoint.url}/token`, "booking-agent", "s3cret",
                                             { scope: "memory:read workflow:read" });
      const api = new AnamnesisClient(live.url, provider, { timeoutMs: LIVE_TIMEOUT });
      assert.ok(Array.isArray(await api.listMemories(live.patientId)));
      assert.equal(provider.fetches, 2, "the refused token was replaced once");
      assert.ok(Array.isArray(await api.listMemories(live.patientId)));
      assert.equal(provider.fetches, 2, "then cached");
      assert.equal(calls[0]?.form.get("scope"), "memory:read workflow:read");

      const wrong = new ClientCredentials(`${endpoint.url}/token`, "booking-agent", "wrong");
      await assert.rejects(wrong.getToken(), errors.InvalidToken);
      await assert.rejects(new AnamnesisClient(live.url, wrong).listMemories(live.patientId), errors.InvalidToken);
    } finally {
      await endpoint.close();
    }
  });

  test("an authorization server outage is retried after its Retry-After, then raised as retryable", async () => {
    // A 503 from the token endpoint says nothing of the credentials: not InvalidToken (do not retry).
    let unavailable = 2;
    const endpoint = await serve((_request, _body, response) => {
      if (unavailable > 0) {
        unavailable -= 1;
        response.writeHead(503, { "Retry-After": "2" }).end();
        return;
      }
      json(response, 200, { access_token: live.token, token_type: "Bearer", expires_in: 300 });
    });
    try {
      const waits = recorder();
      const provider = new ClientCredentials(`${endpoint.url}/token`, "booking-agent", "s3cret");
      const api = new AnamnesisClient(live.url, provider, { timeoutMs: LIVE_TIMEOUT, sleep: waits.sleep });
      assert.ok(Array.isArray(await api.listMemories(live.patientId)));
      assert.deepEqual(waits.sleeps, [2000, 2000]);
      assert.equal(provider.fetches, 1);

      unavailable = 10;
      const down = await new AnamnesisClient(live.url, new ClientCredentials(`${endpoint.url}/token`, "a", "b"),
                                             { sleep: recorder().sleep, retry: { maxRetries: 1 } })
        .listMemories(live.patientId).catch((e: unknown) => e);
      assert.ok(down instanceof errors.IdentityProviderUnavailable && down instanceof errors.RetryableError);
      assert.equal(down.status, 503);
      assert.equal(down.retryAfter, 2);
    } finally {
      await endpoint.close();
    }
  });
});

describe("a token endpoint's Retry-After", () => {
  test("is read in fractional seconds or as an HTTP date, as the service's is", async () => {
    let retryAfter = "1.5";
    const endpoint = await serve((_request, _body, response) => {
      response.writeHead(503, { "Retry-After": retryAfter }).end();
    });
    try {
      const provider = new ClientCredentials(`${endpoint.url}/token`, "booking-agent", "s3cret");
      let down = await provider.getToken().catch((e: unknown) => e);
      assert.ok(down instanceof errors.IdentityProviderUnavailable && down.retryAfter === 1.5, String(down));
      retryAfter = new Date(Date.now() + 30_000).toUTCString();
      down = await provider.getToken().catch((e: unknown) => e);
      assert.ok(down instanceof errors.IdentityProviderUnavailable && down.retryAfter! > 25
                && down.retryAfter! <= 30, String(down));
    } finally {
      await endpoint.close();
    }
  });
});

describe("a token endpoint's answer that is no object", () => {
  test("is InvalidToken, never a TypeError", async () => {
    const bodies = ["null", "[]", "5", "<html>"];
    const endpoint = await serve((_request, _body, response) => {
      const data = bodies.shift() ?? "null";
      response.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
      response.end(data);
    });
    try {
      const provider = new ClientCredentials(`${endpoint.url}/token`, "booking-agent", "s3cret");
      for (let i = 0; i < 4; i += 1) {
        const error = await provider.getToken().catch((e: unknown) => e);
        assert.ok(error instanceof errors.InvalidToken, String(error));
      }
    } finally {
      await endpoint.close();
    }
  });
});

describe("lists the service answers a page at a time", () => {
  test("listOperations follows next_cursor to the oldest operation, not only the newest page", async () => {
    // listOperations returned the first page (the service's newest 100) and dropped the older operations without
    // a word. This upstream answers three pages of two, as the service answers pages of `limit`.
    const cursors: (string | null)[] = [];
    const pages: Record<string, { items: { operation_id: string }[]; next_cursor: string | null }> = {
      "": { items: [{ operation_id: "op-6" }, { operation_id: "op-5" }], next_cursor: "c1" },
      c1: { items: [{ operation_id: "op-4" }, { operation_id: "op-3" }], next_cursor: "c2" },
      c2: { items: [{ operation_id: "op-2" }, { operation_id: "op-1" }], next_cursor: null },
    };
    const upstream = await serve((request, _body, response) => {
      const cursor = new URL(request.url ?? "/", "http://x").searchParams.get("cursor");
      cursors.push(cursor);
      json(response, 200, pages[cursor ?? ""]);
    });
    try {
      const operations = await new AnamnesisClient(upstream.url, "t").listOperations(randomUUID());
      assert.deepEqual(operations.map((o) => o.operation_id), ["op-6", "op-5", "op-4", "op-3", "op-2", "op-1"]);
      assert.deepEqual(cursors, [null, "c1", "c2"]);
    } finally {
      await upstream.close();
    }
  });

  test("listMemories follows next_cursor past the service's first page, keeping the purpose and filter", async () => {
    // listMemories read one answer: the service now answers the memory list a page at a time (100 by default)
    const seen: URLSearchParams[] = [];
    const pages: Record<string, { items: { memory_id: string }[]; next_cursor: string | null }> = {
      "": { items: [{ memory_id: "m-1" }, { memory_id: "m-2" }], next_cursor: "k1" },
      k1: { items: [{ memory_id: "m-3" }], next_cursor: null },
    };
    const upstream = await serve((request, _body, response) => {
      const query = new URL(request.url ?? "/", "http://x").searchParams;
      seen.push(query);
      json(response, 200, pages[query.get("cursor") ?? ""]);
    });
    try {
      const memories = await new AnamnesisClient(upstream.url, "t").listMemories(
        randomUUID(), { purpose: "appointment_scheduling", memoryType: "scheduling_preference" });
      assert.deepEqual(memories.map((m) => m.memory_id), ["m-1", "m-2", "m-3"]);
      assert.deepEqual(seen.map((q) => [q.get("cursor"), q.get("purpose"), q.get("memory_type")]),
                       [[null, "appointment_scheduling", "scheduling_preference"],
                        ["k1", "appointment_scheduling", "scheduling_preference"]]);
    } finally {
      await upstream.close();
    }
  });

  test("careTeamFlags follows next_cursor past the first page of flagged sessions, naming the purpose on each", async () => {
    // careTeamFlags read the one answer there was, the first 100 flagged sessions; the service now pages them
    const seen: URLSearchParams[] = [];
    const pages: Record<string, { items: { category: string }[]; next_cursor: string | null }> = {
      "": { items: [{ category: "urgent_symptom" }], next_cursor: "u1" },
      u1: { items: [{ category: "medication_anticoagulant" }], next_cursor: null },
    };
    const upstream = await serve((request, _body, response) => {
      const query = new URL(request.url ?? "/", "http://x").searchParams;
      seen.push(query);
      json(response, 200, pages[query.get("cursor") ?? ""]);
    });
    try {
      const flags = await new AnamnesisClient(upstream.url, "t").careTeamFlags(randomUUID(),
                                                                              { purpose: "care_coordination" });
      assert.deepEqual(flags.map((f) => f.category), ["urgent_symptom", "medication_anticoagulant"]);
      assert.deepEqual(seen.map((q) => [q.get("cursor"), q.get("purpose")]),
                       [[null, "care_coordination"], ["u1", "care_coordination"]]);
    } finally {
      await upstream.close();
    }
  });
});

describe("ids in the request path", () => {
  test("an id that is no identifier is refused before anything is sent", async () => {
    // openapi-fetch sends "<id>/operations" as "<id>%2Foperations", which the service decodes back into a path:
    // getWorkflow read the workflow's operations, getMemory(p, "m/history") the memory's history.
    const seen: string[] = [];
    const upstream = await serve((request, _body, response) => {
      seen.push(request.url ?? "");
      json(response, 200, { items: [] });
    });
    try {
      const api = new AnamnesisClient(`${upstream.url}/base.v1`, "t");
      const workflow = randomUUID();
      for (const call of [() => api.getWorkflow(`${workflow}/operations`),
                          () => api.getMemory(randomUUID(), `${randomUUID()}/history`),
                          () => api.confirmMemory(randomUUID(), `../consents/${randomUUID()}/revoke#`),
                          () => api.getWorkflow("..")]) {
        await assert.rejects(call(), (error: unknown) => error instanceof TypeError &&
          /not an identifier/.test(error.message));
      }
      assert.deepEqual(seen, []);
      await api.listOperations(workflow); // a prefix of the base URL's own is no id
      assert.deepEqual(seen, [`/base.v1/v1/workflows/${workflow}/operations`]);
    } finally {
      await upstream.close();
    }
  });
});
