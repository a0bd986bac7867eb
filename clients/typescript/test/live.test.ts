/** The client against the live service: a patient's round trip through memories, a conversation and a workflow;
 * one typed error per problem code; Idempotency-Key replays. */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import { AnamnesisClient, AnamnesisError, errors } from "../src/index.js";
import { live } from "./support.js";

/** The first search loads the embedding model in the service, which can take a while on a busy machine. */
const client = (token: string) => new AnamnesisClient(live.url, token, { timeoutMs: 120_000 });

describe("a patient's round trip", () => {
  test("records, lists, searches and packs memories, then proposes and confirms one", async () => {
    const api = client(live.token);
    const stored = await api.recordMemory(live.patientId, {
      memory_type: "scheduling_preference", fact: { kind: "earliest_time", time: "10:00" },
      consent_purpose: "appointment_scheduling", consent_record_id: live.consentId,
    });
    assert.equal(stored.status, "stored");
    assert.equal(stored.memory.state, "active");

    const listed = await api.listMemories(live.patientId);
    assert.deepEqual(listed.map((m) => m.memory_id), [stored.memory_id]);
    assert.deepEqual(listed[0]?.fact, { kind: "earliest_time", time: "10:00" });
    assert.deepEqual(await api.listMemories(live.patientId, { memoryType: "communication_preference" }), []);

    const found = await api.searchMemories(live.patientId, "what time can I be booked?");
    assert.equal(found.items[0]?.memory.memory_id, stored.memory_id);
    assert.ok(found.items[0].score > 0);

    const pack = await api.contextPack(live.patientId, "when can I come in?", "appointment_scheduling");
    assert.equal(pack.facts[0]?.memory_id, stored.memory_id);
    assert.match(pack.text, /10:00/);

    const proposal = await api.proposeMemory(live.patientId, {
      memory_type: "scheduling_preference", fact: { kind: "latest_time", time: "16:00" },
      consent_purpose: "appointment_scheduling", consent_record_id: live.consentId, source_ref: "turn:3",
    });
    assert.equal(proposal.state, "proposed");
    assert.deepEqual((await api.listProposals(live.patientId)).map((m) => [m.memory_id, m.stale, m.overtaken_by]),
                     [[proposal.memory_id, false, null]]);
    assert.equal((await api.listMemories(live.patientId)).length, 1, "a proposal is not a current memory");
    assert.equal((await api.confirmMemory(live.patientId, proposal.memory_id)).state, "active");
    const current = await api.listMemories(live.patientId);
    assert.deepEqual(new Set(current.map((m) => m.memory_id)), new Set([stored.memory_id, proposal.memory_id]));
    assert.equal((await api.getMemory(live.patientId, proposal.memory_id)).attribute, "latest_time");
  });

  test("a conversation and a booking workflow", async () => {
    const api = client(live.token);
    const state = await api.startSession(live.patientId, "appointment_scheduling");
    const sessionId = state.session.session_id;
    await api.addTurn(sessionId, "I need to reschedule my cardiology follow-up. I can't do mornings.");
    const turn = await api.addTurn(sessionId, "What about Thursday?");
    assert.equal(turn.turn.seq, 2);
    const context = await api.sessionContext(sessionId, { maxTokens: 1000 });
    const slots = context.context["slots"] as Record<string, unknown>;
    assert.equal(slots["specialty"], "cardiology");
    assert.deepEqual(slots["preferred_days"], ["thursday"]);

    let workflow = await api.createWorkflow("appointment_booking", live.patientId);
    workflow = await api.checkpoint(workflow.workflow_id, { expected_version: workflow.version,
                                                            next_step: "propose_slots" });
    workflow = await api.checkpoint(workflow.workflow_id, { expected_version: workflow.version,
                                                            next_step: "confirm_booking",
                                                            state_patch: { slot_id: "A1" } });
    const payload = { slot_id: "A1", appointment_type: "cardiology_followup" };
    const key = `booking-${randomUUID()}`;
    const operation = await api.requestOperation(workflow.workflow_id, {
      expectedVersion: workflow.version, kind: "book_appointment", payload, idempotencyKey: key });
    const again = await api.requestOperation(workflow.workflow_id, {
      expectedVersion: workflow.version, kind: "book_appointment", payload, idempotencyKey: key });
    assert.equal(again.operation_id, operation.operation_id, "the replay is the same operation");
    const read = await api.getWorkflow(workflow.workflow_id);
    assert.deepEqual(read.pending_operations?.map((o) => o.operation_id), [operation.operation_id]);
    assert.deepEqual((await api.listOperations(workflow.workflow_id)).map((o) => o.operation_id),
                     [operation.operation_id]);
    assert.equal((await api.endSession(sessionId)).session.status, "completed");
  });

  test("listProposals gives every proposal waiting for review, past the service's first page", async () => {
    const api = new AnamnesisClient(live.url, live.reviewerToken,
                                    { timeoutMs: 120_000, purpose: "appointment_scheduling" });
    const proposals = await api.listProposals(live.reviewerId);
    assert.ok(live.reviewerProposals.length > 100);
    assert.deepEqual(proposals.map((m) => m.memory_id), live.reviewerProposals);
  });

  test("every operation of the document is callable through raw, with the same typed errors", async () => {
    const api = client(live.token);
    const { data } = await api.raw.GET("/v1/patients/{patient_id}/consents", {
      params: { path: { patient_id: live.patientId } } });
    assert.ok(data?.items.some((c) => c.consent_record_id === live.consentId));
    await assert.rejects(api.raw.GET("/v1/workflows/{workflow_id}", {
      params: { path: { workflow_id: randomUUID() } } }), errors.NotFound);
  });
});

describe("staff reconciliation", () => {
  test("staff see who asked for an operation, resolve its unknown outcome, and a settled one is not retried",
       async () => {
    const patient = client(live.token);
    const refused = await patient.resolveOperation(live.unknownWorkflowId, live.unknownOperationId,
                                                   { expectedVersion: 1, outcome: "not_sent" }).catch((e) => e);
    assert.ok(refused instanceof errors.ForbiddenError, String(refused));

    const staff = client(live.staffToken);
    const [listed] = await staff.listOperations(live.unknownWorkflowId);
    assert.equal(listed?.status, "outcome_unknown");
    assert.equal(listed?.requested_by_kind, "patient");
    const { version } = await staff.getWorkflow(live.unknownWorkflowId);
    const resolution = { expectedVersion: version, outcome: "sent" as const, externalId: "AUTH-9" };
    await assert.rejects(staff.resolveOperation(live.unknownWorkflowId, live.unknownOperationId,
                                                { ...resolution, expectedVersion: version - 1 }),
                         errors.VersionConflict);
    const resolved = await staff.resolveOperation(live.unknownWorkflowId, live.unknownOperationId, resolution);
    assert.equal(resolved.status, "succeeded");
    assert.deepEqual(resolved.result, { authorization_id: "AUTH-9" });
    const again = await staff.resolveOperation(live.unknownWorkflowId, live.unknownOperationId, resolution);
    assert.equal(again.operation_id, resolved.operation_id);
    await assert.rejects(staff.resolveOperation(live.unknownWorkflowId, live.unknownOperationId,
                                                { expectedVersion: version, outcome: "not_sent" }),
                         errors.OperationNotResolvable);
    await assert.rejects(staff.retryOperation(live.unknownWorkflowId, live.unknownOperationId),
                         errors.OperationNotRetryable);
    assert.equal((await staff.getWorkflow(live.unknownWorkflowId)).current_step, "await_insurer_decision");
  });
});

describe("problems are typed errors", () => {
  test("each problem code throws its own class, with status, code and request id", async () => {
    const api = client(live.token);
    const notFound = await api.getWorkflow(randomUUID()).catch((e: unknown) => e);
    assert.ok(notFound instanceof errors.NotFound);
    assert.ok(notFound instanceof AnamnesisError);
    assert.equal(notFound.status, 404);
    assert.equal(notFound.code, "not_found");
    assert.equal(notFound.name, "NotFound");
    assert.ok(notFound.requestId);

    const workflow = await api.createWorkflow("appointment_booking", live.patientId);
    const conflict = await api.checkpoint(workflow.workflow_id, { expected_version: workflow.version + 5,
                                                                  next_step: "propose_slots" }).catch((e) => e);
    assert.ok(conflict instanceof errors.VersionConflict && conflict instanceof errors.ConflictError);
    assert.equal(conflict.status, 409);
    await assert.rejects(api.checkpoint(workflow.workflow_id, { expected_version: workflow.version,
                                                                next_step: "booked" }), errors.IllegalTransition);

    const invalid = await api.startSession(live.patientId, "astrology" as never).catch((e) => e);
    assert.ok(invalid instanceof errors.ValidationError);
    assert.equal(invalid.status, 422);
    assert.equal(invalid.errors[0]?.field, "purpose");

    await assert.rejects(api.startSession(live.otherPatientId, "appointment_scheduling"),
                         errors.NoActiveConsentOrAccess);
    assert.deepEqual(await api.listMemories(live.otherPatientId), [], "another patient's memories: none");
  });

  test("a token without the scope, and no valid token at all", async () => {
    const reader = client(live.readerToken);
    const scope = await reader.createWorkflow("appointment_booking", live.patientId).catch((e) => e);
    assert.ok(scope instanceof errors.InsufficientScope && scope instanceof errors.ForbiddenError);
    assert.equal(scope.status, 403);
    const anonymous = client("not-a-token");
    const refused = await anonymous.listMemories(live.patientId).catch((e) => e);
    assert.ok(refused instanceof errors.InvalidToken);
    assert.equal(refused.status, 401);
  });
});

describe("Idempotency-Key", () => {
  test("a create repeated with its key returns the first answer, never a second resource", async () => {
    const api = client(live.token);
    const key = `wf-${randomUUID()}`;
    const first = await api.createWorkflow("appointment_booking", live.patientId, { idempotencyKey: key });
    const replay = await api.createWorkflow("appointment_booking", live.patientId, { idempotencyKey: key });
    assert.equal(replay.workflow_id, first.workflow_id);

    const memoryKey = `memory-${randomUUID()}`;
    const memory = { memory_type: "scheduling_preference", fact: { kind: "earliest_time", time: "09:30" },
                     consent_purpose: "appointment_scheduling" as const, consent_record_id: live.consentId };
    const stored = await api.recordMemory(live.patientId, memory, { idempotencyKey: memoryKey });
    const storedAgain = await api.recordMemory(live.patientId, memory, { idempotencyKey: memoryKey });
    assert.equal(storedAgain.memory_id, stored.memory_id);
    const times = (await api.listMemories(live.patientId)).filter((m) => m.attribute === "earliest_time");
    assert.deepEqual(times.map((m) => m.memory_id), [stored.memory_id]);

    await assert.rejects(
      api.recordMemory(live.patientId, { ...memory, fact: { kind: "earliest_time", time: "11:00" } },
                       { idempotencyKey: memoryKey }),
      errors.IdempotencyKeyReused, "the same key with another body is refused");
  });

  test("without a key, two creates are two resources", async () => {
    const api = client(live.token);
    const one = await api.createWorkflow("appointment_booking", live.patientId);
    const two = await api.createWorkflow("appointment_booking", live.patientId);
    assert.notEqual(one.workflow_id, two.workflow_id);
  });
});
