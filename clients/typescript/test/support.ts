/** What the tests share: the live service's address and tokens (from the environment the pytest driver sets, see
 * tests/test_typescript_client.py), a recorder of the client's waits, and real HTTP servers for outside systems. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

function need(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run these tests through tests/test_typescript_client.py`);
  return value;
}

export const live = {
  get url() { return need("ANAMNESIS_URL"); },
  /** A patient's own token (all the patient scopes); the patient consented to appointment_scheduling. */
  get token() { return need("ANAMNESIS_PATIENT_TOKEN"); },
  get patientId() { return need("ANAMNESIS_PATIENT_ID"); },
  get consentId() { return need("ANAMNESIS_CONSENT_ID"); },
  /** A patient of the same organisation who gave no consent. */
  get otherPatientId() { return need("ANAMNESIS_OTHER_PATIENT_ID"); },
  /** The first patient's token with memory:read only. */
  get readerToken() { return need("ANAMNESIS_READER_TOKEN"); },
  /** Staff holding a grant for the first patient's prior authorisations, with `workflow:reconcile`. */
  get staffToken() { return need("ANAMNESIS_STAFF_TOKEN"); },
  /** The first patient's prior authorisation whose insurer submission has an unknown outcome (parked). */
  get unknownWorkflowId() { return need("ANAMNESIS_UNKNOWN_WORKFLOW_ID"); },
  get unknownOperationId() { return need("ANAMNESIS_UNKNOWN_OPERATION_ID"); },
  /** A patient with more proposals waiting for review than one page of the list holds: her token, id, and the
   * proposals' ids, oldest first. */
  get reviewerToken() { return need("ANAMNESIS_REVIEWER_TOKEN"); },
  get reviewerId() { return need("ANAMNESIS_REVIEWER_ID"); },
  get reviewerProposals(): string[] { return JSON.parse(need("ANAMNESIS_REVIEWER_PROPOSALS")) as string[]; },
};

/** Records the delays the client would have slept, without waiting. */
export function recorder(): { sleeps: number[]; sleep: (ms: number) => Promise<void> } {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms: number) => { sleeps.push(ms); } };
}

export interface Served {
  url: string;
  close(): Promise<void>;
}

export async function serve(handler: (request: IncomingMessage, body: Buffer, response: ServerResponse) =>
  void | Promise<void>): Promise<Served> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      Promise.resolve(handler(request, Buffer.concat(chunks), response)).catch((error: unknown) => {
        response.writeHead(500).end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const data = JSON.stringify(body);
  response.writeHead(status, { "Content-Type": status >= 400 ? "application/problem+json" : "application/json",
                               "Content-Length": Buffer.byteLength(data), ...headers });
  response.end(data);
}

/** A port nothing listens on. */
export async function deadUrl(): Promise<string> {
  const served = await serve(() => {});
  await served.close();
  return served.url;
}
