/** The problem classes: the same codes, statuses and families as the Python client's (the pytest driver passes
 * them in ANAMNESIS_PROBLEM_CLASSES), and a code this version does not know becomes the family of its status. */
import assert from "node:assert/strict";
import { test } from "node:test";

import { errors } from "../src/index.js";

test("every problem code of the Python client has a class here, of the same name, status and family", () => {
  const python = JSON.parse(process.env["ANAMNESIS_PROBLEM_CLASSES"] ?? "{}") as
    Record<string, { name: string; status: number; families: string[] }>;
  assert.ok(Object.keys(python).length > 40, "the driver passed the Python client's classes");
  const missing = Object.keys(python).filter((code) => !errors.PROBLEM_CLASSES.has(code));
  assert.deepEqual(missing, [], "codes the Python client knows and this one does not");
  for (const [code, expected] of Object.entries(python)) {
    const error = errors.errorFromProblem(expected.status, { code, message: "m", request_id: "r-1" });
    assert.equal(error.constructor.name, expected.name, code);
    assert.equal(error.status, expected.status, code);
    assert.equal(error.code, code);
    assert.equal(error.requestId, "r-1");
    for (const family of expected.families) {
      const cls = (errors as unknown as Record<string, new (...args: never[]) => unknown>)[family];
      assert.ok(cls && error instanceof cls, `${code} is a ${family}`);
    }
  }
});

test("an unknown code becomes its status's family; an unknown status the base class", () => {
  const conflict = errors.errorFromProblem(409, { code: "brand_new_conflict", message: "later versions" });
  assert.equal(conflict.constructor, errors.ConflictError);
  assert.equal(conflict.code, "brand_new_conflict");
  assert.equal(conflict.message, "409 brand_new_conflict: later versions");
  const teapot = errors.errorFromProblem(418, {});
  assert.equal(teapot.constructor, errors.AnamnesisError);
  assert.equal(teapot.code, "error");
  const purpose = errors.errorFromProblem(403, { code: "purpose_not_permitted" });
  assert.ok(purpose instanceof errors.PurposeNotPermitted && purpose instanceof errors.ForbiddenError);
  const fields = errors.errorFromProblem(422, { code: "validation_error",
                                                errors: [{ field: "purpose", code: "invalid_choice" }] });
  assert.ok(fields instanceof errors.ValidationError);
  assert.equal(fields.errors[0]?.field, "purpose");
});
