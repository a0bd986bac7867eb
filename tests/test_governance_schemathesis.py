"""The schema tells the truth: schemathesis generates requests from the OpenAPI schema (all checks, a valid
token) against a live `manage.py serve`, and finds no server error and no response the schema does not describe."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.fakes.embeddings import FakeEmbeddings
from tests.fakes.service import BASE_DIR, LiveService

# Per operation; the run must reach at least MIN_CASES in all. The coverage phase is left out: on Python 3.11 it
# stops with an interpreter error of its own ("AST constructor recursion depth mismatch"), not one of ours.
MAX_EXAMPLES = 80
MIN_CASES = 2000


@pytest.mark.slow
def test_schemathesis_finds_no_server_error_and_no_schema_violation(committed_db, world, jwks_server):
    world.consent(world.patient_a)
    token = world.token(sub=f"patient-{world.patient_a}", patient_id=world.patient_a,
                        scope="memory:read memory:write workflow:read workflow:write consent:read consent:write "
                              "audit:read grant:write workflow:reconcile organization:admin", exp_in=3600)
    embeddings = FakeEmbeddings()
    service = LiveService(jwks_server.url, workers=2, threads=4, extra_env={
        "API_RATE_LIMIT_PER_SUBJECT": "0", "API_RATE_LIMIT_PER_ORGANIZATION": "0", "LOG_LEVEL": "WARNING",
        "EMBEDDING_BASE_URL": embeddings.url, "EMBEDDING_MODEL": "fake-16"})
    report = Path(tempfile.mkdtemp(prefix="schemathesis-")) / "run.json"
    try:
        result = subprocess.run(
            [str(Path(sys.executable).parent / "schemathesis"), "--config-file",
             str(Path(__file__).parent / "schemathesis.toml"), "run", f"{service.url}/v1/schema",
             "--url", service.url, "--checks", "all", "--header", f"Authorization: Bearer {token}",
             "--max-examples", str(MAX_EXAMPLES), "--seed", "11", "--no-color", "--workers", "2",
             "--request-timeout", "30", "--phases", "examples,fuzzing",
             "--report", "ndjson", "--report-ndjson-path", str(report)],
            cwd=BASE_DIR, capture_output=True, text=True, timeout=1800)
    finally:
        service.stop()
        embeddings.stop()
    output = result.stdout + result.stderr
    server_log = service.logs()
    service.close()
    print(output[-4000:])
    if "Traceback" in server_log:
        Path("/tmp/schemathesis-server.log").write_text(server_log)
    assert "Traceback" not in server_log, server_log[-3000:]
    assert result.returncode == 0, output[-6000:]
    cases = _generated_cases(output)
    assert cases >= MIN_CASES, f"only {cases} generated cases:\n{output[-3000:]}"
    assert "FAILURES" not in output and "Server error" not in output
    print(f"schemathesis: {cases} generated cases, 0 failures")


def _generated_cases(output: str) -> int:
    match = re.search(r"Test cases:\s*\n?\s*([\d,]+)\s+generated", output) or re.search(
        r"([\d,]+)\s+generated", output)
    return int(match.group(1).replace(",", "")) if match else 0
