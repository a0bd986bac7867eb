/**
 * This file was generated from openapi.json by scripts/generate.mjs (npm run generate).
 * Do not make direct changes to the file.
 */

/** The operations that take an Idempotency-Key: "METHOD /path/{template}". */
export const KEYED_OPERATIONS: ReadonlySet<string> = new Set([
  "POST /v1/event-subscriptions",
  "POST /v1/grants",
  "POST /v1/memory-types",
  "POST /v1/memory-types/{name}/versions",
  "POST /v1/organizations",
  "POST /v1/patients",
  "POST /v1/patients/{patient_id}/consents",
  "POST /v1/patients/{patient_id}/context",
  "POST /v1/patients/{patient_id}/fhir-import",
  "POST /v1/patients/{patient_id}/memories",
  "POST /v1/patients/{patient_id}/memories/{memory_id}/correct",
  "POST /v1/patients/{patient_id}/memories/proposals",
  "POST /v1/sessions",
  "POST /v1/sessions/{session_id}/offers",
  "POST /v1/sessions/{session_id}/turns",
  "POST /v1/sessions/{session_id}/turns/{seq}/propose",
  "POST /v1/staff",
  "POST /v1/workflows",
  "POST /v1/workflows/{workflow_id}/checkpoint",
  "POST /v1/workflows/{workflow_id}/operations",
]);
