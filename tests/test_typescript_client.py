"""The TypeScript client (clients/typescript) against the live service, through Node's own test runner: its types
are those generated from the current OpenAPI document, it type-checks, and its node tests pass (typed problem
errors, retries honouring Retry-After, Idempotency-Key on creating calls, a patient's round trip).

Needs Node 20+ and the packages `make ts` installs (npm ci); a missing one fails here, it is never skipped."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid

import pytest
from anamnesis_client import errors as py_errors
from django.core.management import call_command

from tests.fakes.processes import BASE_DIR
from tests.fakes.scheduling import FakeScheduling
from tests.support import PATIENT_SCOPES, propose_many

CLIENT_DIR = BASE_DIR / "clients" / "typescript"


def node() -> str:
    path = shutil.which("node")
    assert path, "Node 20+ is required for the TypeScript client (apt-get install nodejs npm)"
    return path


def node_tool(package_dir, name: str) -> list[str]:
    """A package's own executable from node_modules (installed by `make ts`), run by node."""
    script = package_dir / "node_modules" / name
    assert script.exists(), f"{script} is missing: run `make ts` (npm ci)"
    return [node(), str(script)]


def run(cmd: list[str], cwd, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(cmd[1:])} exited {done.returncode}:\n{output[-8000:]}"
    return output


def build_typescript(package_dir) -> None:
    """Type-checks the package (src and tests) and compiles it to dist/."""
    run([*node_tool(package_dir, "typescript/bin/tsc"), "-p", "tsconfig.json"], cwd=package_dir)


def python_problem_classes() -> dict[str, dict]:
    families = ("ForbiddenError", "ConflictError", "RetryableError", "ValidationError", "SessionGone",
                "ServiceUnavailable", "BadRequest")
    return {code: {"name": cls.__name__, "status": cls.status,
                   "families": [f for f in families if issubclass(cls, getattr(py_errors, f))]}
            for code, cls in py_errors.PROBLEM_CLASSES.items()}


def unknown_outcome(world) -> tuple[str, str]:
    """A prior authorisation the patient asked for whose outcome is unknown, as the worker parks one after its
    attempts ran out (set so in the database): its workflow's id and its operation's."""
    from tests.conftest import admin_connect

    api = world.patient(world.patient_a)
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(world.patient_a)})
    r = api.post(f"/v1/workflows/{wf.json()['workflow_id']}/checkpoint", {
        "expected_version": 1, "next_step": "submit_prior_authorization", "state_patch": {"referral_verified": True},
        "request_operation": {"kind": "submit_prior_authorization", "payload": {
            "referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-1"}}})
    assert r.status_code == 200, r.content
    operation_id = r.json()["pending_operations"][0]["operation_id"]
    with admin_connect() as conn:
        conn.execute("UPDATE workflow_operation SET status = 'outcome_unknown', outcome_uncertain = true, "
                     "attempts = attempt_limit, next_attempt_at = NULL WHERE operation_id = %s", [operation_id])
    return wf.json()["workflow_id"], operation_id


@pytest.mark.django_db
def test_the_committed_types_are_generated_from_the_current_openapi_document(tmp_path):
    """After a change to the API: `make ts-generate` rewrites openapi.json, src/schema.ts and src/operations.ts."""
    schema = tmp_path / "openapi.json"
    call_command("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", "--file", str(schema))
    assert json.loads(schema.read_text()) == json.loads((CLIENT_DIR / "openapi.json").read_text()), (
        "clients/typescript/openapi.json is out of date with the API: run `make ts-generate`")
    run([node(), "scripts/generate.mjs", "--schema", str(schema), "--out", str(tmp_path)], cwd=CLIENT_DIR)
    for name in ("schema.ts", "operations.ts"):
        assert (tmp_path / name).read_text() == (CLIENT_DIR / "src" / name).read_text(), (
            f"clients/typescript/src/{name} is out of date: run `make ts-generate`")


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_the_typescript_client_passes_its_node_tests_against_the_live_service(world, live, settings):
    scheduling = FakeScheduling()
    scheduling.mode = "error"  # the service's own 503 (scheduling_unavailable), for the retry test
    settings.SCHEDULING_BASE_URL = scheduling.url
    try:
        consent_id = world.consent(world.patient_a)
        reviewer = uuid.uuid4()  # a patient with more proposals waiting than one page of the list holds
        proposals = propose_many(world.keyring, org_id=world.org, patient_id=reviewer,
                                 consent_id=world.consent(reviewer), count=103)
        workflow_id, operation_id = unknown_outcome(world)
        world.grant(world.patient_a, "ops-ts", "prior_authorization")
        build_typescript(CLIENT_DIR)
        tests = sorted(str(p.relative_to(CLIENT_DIR)) for p in (CLIENT_DIR / "dist" / "test").glob("*.test.js"))
        assert len(tests) >= 3, tests
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ANAMNESIS_URL": live.url,
               "ANAMNESIS_PATIENT_ID": str(world.patient_a), "ANAMNESIS_CONSENT_ID": consent_id,
               "ANAMNESIS_PATIENT_TOKEN": world.token(sub=f"patient-{world.patient_a}", patient_id=world.patient_a,
                                                      scope=PATIENT_SCOPES),
               "ANAMNESIS_READER_TOKEN": world.token(sub=f"patient-{world.patient_a}", patient_id=world.patient_a,
                                                     scope="memory:read"),
               "ANAMNESIS_OTHER_PATIENT_ID": str(world.patient_b),
               "ANAMNESIS_REVIEWER_TOKEN": world.token(sub=f"patient-{reviewer}", patient_id=reviewer,
                                                       scope=PATIENT_SCOPES),
               "ANAMNESIS_STAFF_TOKEN": world.token(sub="ops-ts",
                                                    scope="workflow:read workflow:write workflow:reconcile"),
               "ANAMNESIS_UNKNOWN_WORKFLOW_ID": workflow_id, "ANAMNESIS_UNKNOWN_OPERATION_ID": operation_id,
               "ANAMNESIS_REVIEWER_ID": str(reviewer), "ANAMNESIS_REVIEWER_PROPOSALS": json.dumps(proposals),
               "ANAMNESIS_PROBLEM_CLASSES": json.dumps(python_problem_classes())}
        output = run([node(), "--test", "--test-concurrency=1", "--test-reporter=spec", *tests], cwd=CLIENT_DIR,
                     env=env)
    finally:
        scheduling.down()
    assert "# fail 0" in output or "ℹ fail 0" in output, output[-4000:]
    assert "skipped 0" in output and "todo 0" in output, output[-4000:]
    assert str(world.patient_a) not in json.dumps(scheduling.requests), "no patient id reaches the scheduler"
