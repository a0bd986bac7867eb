/**
 * An example agent in TypeScript: the specified booking conversation, end to end, over MCP with the official
 * TypeScript SDK (@modelcontextprotocol/sdk), the twin of examples/booking_agent.py.
 *
 * It opens a conversation session, sends the patient's turns, reads the slots and standing preferences from the
 * session context, has the service ask the scheduling system for offers, checkpoints an appointment-booking
 * workflow, requests the booking operation with an idempotency key, and proposes the standing preference the
 * patient stated ("don't book me before 10 a.m."), which stays *proposed* until the patient confirms it in the
 * portal.
 *
 * Scripted by default (no language model). With OPENAI_BASE_URL set (and OPENAI_MODEL, optionally
 * OPENAI_API_KEY), an OpenAI-compatible model chooses the tool calls for the same turns instead.
 *
 *     make agent-ts      # against `make run` in another terminal
 *
 * The agent acts for the patient its token names (the `patient_id` claim, the launch context): it passes no
 * patient id to any tool and never sees one, so the id never reaches a model's context.
 *
 * Options: --url (default http://127.0.0.1:8000/mcp), --patient-id (only for a token that names no patient, e.g. a
 * staff member's). Prints a JSON summary of what it did on stdout; a refusal (a tool's, or of the token itself:
 * expired, revoked), a service it cannot reach or a model that fails goes to stderr as JSON, with exit code 1.
 */
import { parseArgs } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

const PURPOSE = "appointment_scheduling";
// The patient's side of the specification's booking conversation (a cardiology reschedule), in order.
const PATIENT_TURNS = [
  "I need to reschedule my cardiology follow-up. I can't do mornings, and I'm currently taking blood thinners.",
  "What about Thursday?",
  "Yes, Thursday at 14:00 works. And please don't book me before 10:00 in future, I need time for my morning " +
    "medication and transport.",
] as const;

type Json = Record<string, any>;
type Patient = { patient_id?: string };

class ToolRefused extends Error {
  constructor(readonly tool: string, readonly problem: Json) {
    super(`${tool}: ${problem["code"]} (${problem["message"]})`);
  }
}

/** The chat model could not be reached or gave no message (not the service's doing). */
class ModelFailed extends Error {
  constructor(readonly url: string, readonly reason: string) {
    super(reason);
  }
}

/** Calls MCP tools and returns their structured result; a refusal throws with the problem document. */
class Tools {
  readonly calls: string[] = [];

  // `refusals`: the bodies of the HTTP refusals the transport met (see run)
  constructor(readonly client: Client, readonly refusals: Json[] = []) {}

  async call(name: string, args: Json = {}): Promise<Json> {
    this.calls.push(name);
    const seen = this.refusals.length;
    let result;
    try {
      result = await this.client.callTool({ name, arguments: args });
    } catch (error) {
      // A token whose scopes do not reach the tool is refused over HTTP (403, the scopes to ask for in
      // WWW-Authenticate), not with a tool result: the JSON-RPC error's data is the problem document.
      const problem = this.refusals.length > seen ? this.refusals[this.refusals.length - 1]?.["error"]?.["data"] : null;
      if (problem !== null && typeof problem === "object" && "code" in problem) throw new ToolRefused(name, problem);
      // A tool the server does not have (a model's invention) is the JSON-RPC error -32602 whose data names the
      // code unknown_tool: a refusal of this call, which a model is told of, never the end of the run.
      if (error instanceof McpError && unknownTool(error.data)) {
        throw new ToolRefused(name, { code: "unknown_tool",
                                      message: `no tool is named '${name}': choose one of the tools you were given` });
      }
      throw error;
    }
    let body = result.structuredContent as Json | undefined;
    const content = result.content as { type: string; text?: string }[] | undefined;
    if (body === undefined && content?.[0]?.type === "text" && content[0].text) body = JSON.parse(content[0].text);
    if (result.isError) throw new ToolRefused(name, body ?? {});
    return body ?? {};
  }
}

/** The `patient_id` claim, read (not verified: the service verifies) to know whose conversation this is. */
function unknownTool(data: unknown): boolean {
  const errors = data !== null && typeof data === "object" ? (data as Json)["errors"] : undefined;
  return Array.isArray(errors) && errors.some((e) => e !== null && typeof e === "object" && e["code"] === "unknown_tool");
}

/** The token's claims, read (not verified: the service verifies) to know whose conversation this is; undefined for
 * a token that is no JWT we can read (an opaque token, or a mistyped one), which only the service can judge. */
function tokenClaims(token: string): Record<string, unknown> | undefined {
  try {
    const claims: unknown = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString());
    return claims !== null && typeof claims === "object" && !Array.isArray(claims)
      ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

async function scripted(tools: Tools, patient: Patient): Promise<Json> {
  const started = await tools.call("start_session", { ...patient, purpose: PURPOSE });
  const sessionId: string = started["session"]["session_id"];
  const summary: Json = { session_id: sessionId };

  // Turns 1 and 2: the request with its constraint, then the follow-up reference ("Thursday").
  let turn: Json = {};
  for (const text of PATIENT_TURNS.slice(0, 2)) {
    turn = await tools.call("add_turn", { session_id: sessionId, role: "user", content: text });
  }
  summary["care_team_flags"] = (turn["care_team_flags"] as Json[]).map((f) => f["category"]);

  const context = (await tools.call("get_session_context", { session_id: sessionId, max_tokens: 2000 }))["context"];
  const slots = context["slots"];
  summary["slots"] = Object.fromEntries(["specialty", "visit_type", "preferred_days", "excluded_periods"]
    .map((k) => [k, slots[k]]));
  summary["standing_preferences"] = context["standing_preferences"];

  const offers = await tools.call("search_offers", { session_id: sessionId });
  summary["offers"] = (offers["offers"] as Json[]).map((o) => o["slot_id"]);
  const slot = offers["offers"][0] as Json | undefined;
  if (slot === undefined) {
    await tools.call("add_turn", { session_id: sessionId, role: "assistant",
                                   content: "I could not find a slot that fits; shall I look at other days?" });
    await tools.call("end_session", { session_id: sessionId, outcome: "abandoned" });
    return { ...summary, outcome: "no_offer" };
  }
  await tools.call("add_turn", { session_id: sessionId, role: "assistant",
                                 content: `${titleCase(slot["day"])} at ${slot["time"]} is free. Shall I book it?` });

  let workflow = await tools.call("create_workflow", { workflow_type: "appointment_booking", ...patient });
  workflow = await tools.call("checkpoint_workflow", {
    workflow_id: workflow["workflow_id"], expected_version: workflow["version"], next_step: "propose_slots",
    state_patch: { specialty: slots["specialty"], offers: offers["offers"].length } });

  // Turn 3: the patient accepts, and states a durable preference.
  const accepted = await tools.call("add_turn", { session_id: sessionId, role: "user", content: PATIENT_TURNS[2] });
  workflow = await tools.call("checkpoint_workflow", {
    workflow_id: workflow["workflow_id"], expected_version: workflow["version"], next_step: "confirm_booking",
    state_patch: { slot_id: slot["slot_id"] } });
  const appointmentType = `${slots["specialty"]}_${slots["visit_type"] || "followup"}`;
  // One key per workflow and slot: a retry after a lost answer returns the same operation, never a second booking.
  const operation = await tools.call("request_operation", {
    workflow_id: workflow["workflow_id"], expected_version: workflow["version"], kind: "book_appointment",
    payload: { slot_id: slot["slot_id"], appointment_type: appointmentType },
    idempotency_key: `book-${workflow["workflow_id"]}-${slot["slot_id"]}` });
  const proposals = await tools.call("propose_preferences_from_turn", { session_id: sessionId,
                                                                        seq: accepted["turn"]["seq"] });
  await tools.call("add_turn", { session_id: sessionId, role: "assistant", content:
    "Your booking request is in. I noted 'not before 10:00' for you to confirm in the portal." });
  const ended = await tools.call("end_session", { session_id: sessionId, outcome: "completed" });
  const proposed = proposals["proposed"] as Json[];
  return { ...summary, outcome: "booking_requested", workflow_id: workflow["workflow_id"],
           workflow_step: workflow["current_step"], operation_id: operation["operation_id"],
           operation_status: operation["status"], idempotency_key: operation["idempotency_key"],
           proposed_memory_ids: proposed.map((m) => m["memory_id"]), proposed_facts: proposed.map((m) => m["fact"]),
           session_status: ended["session"]["status"] };
}

/** Lets an OpenAI-compatible chat model choose the tool calls for the same patient turns (at most 12 calls per
 * turn). The tool list and schemas come from the MCP server. */
// What the model is told when its tool call's arguments are no JSON object, so that it can send the call again.
const INVALID_ARGUMENTS: Json = { code: "invalid_arguments",
                                  message: "the tool call's arguments are not a JSON object" };

function toolArguments(text: unknown): Json | undefined {
  // some OpenAI-compatible servers send the object itself
  if (text !== null && typeof text === "object" && !Array.isArray(text)) return text as Json;
  try {
    const args: unknown = JSON.parse(typeof text === "string" && text ? text : "{}");
    return args !== null && typeof args === "object" && !Array.isArray(args) ? args as Json : undefined;
  } catch {
    return undefined;
  }
}

async function modelDriven(tools: Tools, patient: Patient): Promise<Json> {
  const base = (process.env["OPENAI_BASE_URL"] ?? "").replace(/\/+$/, "");
  const model = process.env["OPENAI_MODEL"] ?? "gpt-4o-mini";
  const { tools: listed } = await tools.client.listTools();
  const functions = listed.map((t) => ({ type: "function",
                                         function: { name: t.name, description: t.description ?? "",
                                                     parameters: t.inputSchema } }));
  const whom = patient.patient_id ? `patient ${patient.patient_id}`
    : "the patient your access acts for (leave patient_id out of every tool call)";
  const messages: Json[] = [{ role: "system", content:
    `You book appointments for ${whom} (purpose ${PURPOSE}) using the tools. Start a session, record every ` +
    "patient message with add_turn, search offers, create and checkpoint an appointment_booking workflow, " +
    "request book_appointment with an idempotency key, propose stated preferences from the turn that stated " +
    "them, and end the session. Never invent slot ids." }];
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (process.env["OPENAI_API_KEY"]) headers["Authorization"] = `Bearer ${process.env["OPENAI_API_KEY"]}`;
  for (const text of PATIENT_TURNS) {
    messages.push({ role: "user", content: text });
    for (let i = 0; i < 12; i += 1) {
      let message: Json;
      try {
        const response = await fetch(`${base}/chat/completions`, {
          method: "POST", headers, body: JSON.stringify({ model, messages, tools: functions }),
          signal: AbortSignal.timeout(60_000) });
        if (!response.ok) throw new Error(`the model answered ${response.status}`);
        message = ((await response.json()) as Json)["choices"][0]["message"];
        if (message === null || typeof message !== "object") throw new Error("the model gave no message");
        // A call of another shape is the model's failure, never taken for the MCP service's.
        const calls: unknown = message["tool_calls"] ?? [];
        if (!Array.isArray(calls) || !calls.every((c) => c !== null && typeof c === "object"
            && c["function"] !== null && typeof c["function"] === "object" && typeof c["function"]["name"] === "string")) {
          throw new Error("the model's message is not a chat completion message with tool calls");
        }
      } catch (error) {
        throw new ModelFailed(base, describe(error));
      }
      messages.push(message);
      if (!message["tool_calls"]?.length) break;
      for (const call of message["tool_calls"] as Json[]) {
        const args = toolArguments(call["function"]["arguments"]);
        let out: Json;
        try {
          out = args === undefined ? INVALID_ARGUMENTS : await tools.call(call["function"]["name"], args);
        } catch (error) {
          if (!(error instanceof ToolRefused)) throw error;
          out = error.problem;
        }
        messages.push({ role: "tool", tool_call_id: call["id"], content: JSON.stringify(out) });
      }
    }
  }
  return { outcome: "model_driven", tool_calls: tools.calls };
}

function titleCase(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

export async function run(url: string, token: string, patient: Patient): Promise<Json> {
  // The SDK reports an HTTP refusal (an expired or revoked token: 401) as an error whose message quotes the body;
  // the service's problem document says which, so it is kept to be reported.
  const refusals: Json[] = [];
  const keepRefusal = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (response.status >= 400 && (init?.method ?? "GET") === "POST") {
      const body: unknown = await response.clone().json().catch(() => undefined);
      refusals.push(body !== null && typeof body === "object" ? body as Json : { status: response.status });
    }
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: keepRefusal });
  const client = new Client({ name: "anamnesis-booking-agent-ts", version: "0.1.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => undefined);
    // the server answered, and refused the request itself (no tool ran); or it could not be reached
    if (refusals.length > 0) return { outcome: "refused", tool: null, problem: refusals[refusals.length - 1] };
    return { outcome: "unreachable", url, error: describe(error) };
  }
  try {
    const tools = new Tools(client, refusals);
    return process.env["OPENAI_BASE_URL"] ? await modelDriven(tools, patient) : await scripted(tools, patient);
  } catch (error) {
    if (error instanceof ToolRefused) return { outcome: "refused", tool: error.tool, problem: error.problem };
    if (error instanceof ModelFailed) return { outcome: "model_failed", url: error.url, error: error.reason };
    if (refusals.length > 0) return { outcome: "refused", tool: null, problem: refusals[refusals.length - 1] };
    throw error;
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}

/** The innermost cause of a failed fetch, named as Node did ("ECONNREFUSED: connect ECONNREFUSED ..."). */
function describe(error: unknown): string {
  let cause: unknown = error;
  while (cause instanceof Error && cause.cause !== undefined) cause = cause.cause;
  if (cause instanceof Error) return `${(cause as { code?: string }).code ?? cause.name}: ${cause.message}`;
  return String(cause);
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: {
    url: { type: "string", default: process.env["ANAMNESIS_MCP_URL"] ?? "http://127.0.0.1:8000/mcp" },
    "patient-id": { type: "string" } } });
  const token = (process.env["ANAMNESIS_TOKEN"] ?? "").trim();
  if (!token) {
    console.error("set ANAMNESIS_TOKEN to an access token (make run: manage.py demo_agent_token)");
    return 2;
  }
  const patientId = values["patient-id"];
  const claims = tokenClaims(token);
  if (!patientId && claims !== undefined && !claims["patient_id"]) {
    console.error("the token names no patient: pass --patient-id");
    return 2;
  }
  const summary = await run(values.url!, token, patientId ? { patient_id: patientId } : {});
  if (["refused", "unreachable", "model_failed"].includes(summary["outcome"])) {
    console.error(JSON.stringify(summary));
    return 1;
  }
  console.log(JSON.stringify(summary, null, 2));
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
