// Generates the client's types from the service's OpenAPI document (openapi.json, written by
// `manage.py spectacular`): src/schema.ts by openapi-typescript, and src/operations.ts, the operations that take an
// Idempotency-Key (the client sends one on every such call, the same on each retry).
//
//   node scripts/generate.mjs [--schema openapi.json] [--out src]
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";

const { values } = parseArgs({ options: { schema: { type: "string", default: "openapi.json" },
                                          out: { type: "string", default: "src" } } });
const document = JSON.parse(readFileSync(values.schema, "utf8"));
const BANNER = "/**\n * This file was generated from openapi.json by scripts/generate.mjs (npm run generate).\n" +
  " * Do not make direct changes to the file.\n */\n\n";

// A field with a default is optional unless the document lists it as required (requests may leave it out).
const ast = await openapiTS(document, { defaultNonNullable: false });
writeFileSync(resolve(values.out, "schema.ts"), BANNER + astToString(ast));

const keyed = [];
for (const [path, operations] of Object.entries(document.paths)) {
  for (const [method, operation] of Object.entries(operations)) {
    const headers = (operation.parameters ?? []).filter((p) => p.in === "header").map((p) => p.name.toLowerCase());
    if (headers.includes("idempotency-key")) keyed.push(`  "${method.toUpperCase()} ${path}",`);
  }
}
writeFileSync(resolve(values.out, "operations.ts"), BANNER +
  "/** The operations that take an Idempotency-Key: \"METHOD /path/{template}\". */\n" +
  "export const KEYED_OPERATIONS: ReadonlySet<string> = new Set([\n" + keyed.join("\n") + "\n]);\n");
