/** TypeScript client for the Anamnesis agent API (Node 20+, ESM). */
export * from "./auth.js";
export * from "./client.js";
export * as errors from "./errors.js";
export { AnamnesisError, TransportError } from "./errors.js";
export { KEYED_OPERATIONS } from "./operations.js";
export type { components, operations, paths } from "./schema.js";
