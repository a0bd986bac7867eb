/** Answers that are not the operation's: a success whose body is a proxy's page, an array, a body cut short, and
 * a list whose cursor repeats. The outside systems here (a proxy, a cache) are real HTTP servers. */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import { AnamnesisClient, errors } from "../src/index.js";
import { serve } from "./support.js";

const SECRET = "Jane Doe penicillin allergy";

describe("a success whose body is not the operation's answer", () => {
  test("is UnexpectedResponse with the status and nothing of the body", async () => {
    const bodies: Record<string, [string, string]> = {
      html: ["text/html", `<html>${SECRET}</html>`],
      array: ["application/json", JSON.stringify([{ note: SECRET }])],
      cut: ["application/json", `{"workflow_id": "${SECRET}`],
      listObject: ["application/json", JSON.stringify({ items: { note: SECRET } })],
      empty: ["application/json", ""],
    };
    let kind = "html";
    const proxy = await serve((_request, _body, response) => {
      const [type, body] = bodies[kind]!;
      response.writeHead(200, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
      response.end(body);
    });
    try {
      const api = new AnamnesisClient(proxy.url, "t");
      for (kind of Object.keys(bodies)) {
        const calls: [string, () => Promise<unknown>][] = [
          ["getWorkflow", () => api.getWorkflow(randomUUID())],
          ["listMemories", () => api.listMemories(randomUUID())],
          ["listOperations", () => api.listOperations(randomUUID())],
        ];
        for (const [name, call] of calls) {
          if (kind === "listObject" && name === "getWorkflow") continue;  // an object, as getWorkflow's is
          const error = await call().then(() => undefined, (e: unknown) => e);
          assert.ok(error instanceof errors.UnexpectedResponse, `${kind} ${name}: ${String(error)}`);
          assert.equal(error.code, "unexpected_response");
          assert.equal(error.status, 200);
          assert.ok(!JSON.stringify({ ...error, message: error.message }).includes(SECRET), `${kind} ${name}`);
        }
      }
    } finally {
      await proxy.close();
    }
  });
});

describe("a list read a page at a time", () => {
  const operation = { operation_id: randomUUID(), workflow_id: randomUUID(), kind: "book_appointment",
                      system: "scheduling", status: "pending", idempotency_key: "k", attempts: 0 };

  test("stops with PagingLoop when a cursor repeats or a page adds nothing", async () => {
    let mode = "repeat";
    let requests = 0;
    const cache = await serve((request, _body, response) => {
      requests += 1;
      const cursor = new URL(request.url ?? "/", "http://x").searchParams.get("cursor");
      const body = mode === "repeat" ? { items: [operation], next_cursor: "c1" }
        : mode === "empty" ? { items: [], next_cursor: `c${requests}` }
        : { items: [operation], next_cursor: cursor === null ? "c1" : null };
      const data = JSON.stringify(body);
      response.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
      response.end(data);
    });
    try {
      const api = new AnamnesisClient(cache.url, "t");
      for (mode of ["repeat", "empty"]) {
        requests = 0;
        const error = await api.listOperations(randomUUID()).then(() => undefined, (e: unknown) => e);
        assert.ok(error instanceof errors.PagingLoop && error instanceof errors.UnexpectedResponse,
                  `${mode}: ${String(error)}`);
        assert.ok(requests <= 2, `${mode}: ${requests} requests`);
      }
      mode = "end";
      assert.equal((await api.listOperations(randomUUID())).length, 2);
    } finally {
      await cache.close();
    }
  });
});

describe("an error answer whose JSON is not a problem document", () => {
  test("gives fields of the problem's shape only", async () => {
    const bodies = [
      JSON.stringify({ errors: "Too many", message: 5, title: ["x"], request_id: { id: 1 } }),
      JSON.stringify({ code: "validation_error", errors: [null, "x", { field: "purpose", code: "invalid" }] }),
    ];
    const proxy = await serve((_request, _body, response) => {
      const data = bodies.shift() ?? "{}";
      response.writeHead(422, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
      response.end(data);
    });
    try {
      const api = new AnamnesisClient(proxy.url, "t");
      let error = await api.getWorkflow(randomUUID()).then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof errors.ValidationError, String(error));
      assert.deepEqual(error.errors, []);
      assert.equal(error.title, undefined);
      assert.equal(error.requestId, undefined);
      error = await api.getWorkflow(randomUUID()).then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof errors.ValidationError, String(error));
      assert.deepEqual(error.errors.map((e) => e.field), ["purpose"]);
    } finally {
      await proxy.close();
    }
  });
});

describe("a proxy's refusal without a problem document", () => {
  test("is the one class of its status", async () => {
    let status = 413;
    const proxy = await serve((_request, _body, response) => {
      response.writeHead(status, { "Content-Type": "text/html" });
      response.end("<h1>Too large</h1>");
    });
    try {
      const api = new AnamnesisClient(proxy.url, "t");
      const expected: [number, typeof errors.AnamnesisError][] = [
        [413, errors.PayloadTooLarge], [414, errors.QueryTooLong], [408, errors.RequestTimeout],
        [431, errors.HeadersTooLarge], [500, errors.InternalError], [405, errors.MethodNotAllowed],
      ];
      for (const [code, cls] of expected) {
        status = code;
        const error = await api.createWorkflow("appointment_booking", randomUUID()).then(() => undefined,
                                                                                         (e: unknown) => e);
        assert.ok(error instanceof cls && error.status === code, `${code}: ${String(error)}`);
      }
    } finally {
      await proxy.close();
    }
  });
});

describe("a redirect", () => {
  test("is not followed: UnexpectedResponse with its status, and nothing asked of the other server", async () => {
    let asked = 0;
    const elsewhere = await serve((_request, _body, response) => {
      asked += 1;
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ items: [] }));
    });
    const proxy = await serve((request, _body, response) => {
      response.writeHead(307, { Location: `${elsewhere.url.replace("127.0.0.1", "localhost")}${request.url}` });
      response.end();
    });
    try {
      const api = new AnamnesisClient(proxy.url, "t");
      const error = await api.listMemories(randomUUID()).then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof errors.UnexpectedResponse && error.status === 307, String(error));
      assert.equal(asked, 0);
    } finally {
      await proxy.close();
      await elsewhere.close();
    }
  });
});
