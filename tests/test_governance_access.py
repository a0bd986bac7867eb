"""Access before any write: every write endpoint of the API, walked with outsiders' tokens (another patient of the
organisation, staff without a grant, another organisation), writes nothing but the audited refusal, and answers
exactly as it does for a patient or object that does not exist. The endpoints come from the OpenAPI schema, so a
new one cannot be forgotten: it fails here until the walk knows how to call it."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta

import psycopg.sql
import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.conftest import admin_connect, memory_body, settle_vector_writes
from tests.support import ALL_SCOPES, Api, mint

WRITE_METHODS = ("post", "put", "patch", "delete")
OUTSIDER_SCOPES = ALL_SCOPES.replace("grant:write", "") + " workflow:reconcile"
PAYLOAD = {"referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-1"}
CARE = {"memory_type": "care_context", "consent_purpose": "care_coordination",
        "fact": {"kind": "allergy", "substance": "penicillin", "reaction": "rash", "severity": "moderate"},
        "source": "ehr_import", "source_ref": "ehr:AllergyIntolerance/991"}


def write_operations() -> list[tuple[str, str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted((op["operationId"], method, path) for path, ops in schema["paths"].items()
                  for method, op in ops.items() if method in WRITE_METHODS)


def bodies(victim: dict) -> dict[str, dict | None]:
    """A body for every write operation that the victim (or their care team) could send successfully: only
    access stands between the outsider and the write."""
    later = (datetime.now(UTC) + timedelta(days=90)).isoformat()
    return {
        "grants_create": {"patient_id": victim["patient"], "actor_sub": "nurse-x", "purpose": "communication",
                          "expires_at": None},
        "grants_revoke": {"reason": "left"},
        "consents_create": {"purpose": "communication", "evidence_ref": "signed-form-1"},
        "consents_revoke": None,
        "memories_context_pack": {"question": "when can I come?", "purpose": "appointment_scheduling"},
        "memories_create": memory_body(victim["consent"], "latest_time", "17:00"),
        "memories_erase_all": None,
        "memories_delete": None,
        "memories_confirm": None,
        "memories_correct": {"fact": {"kind": "earliest_time", "time": "11:00"}},
        "memories_quarantine": {"reason_code": "disputed_by_patient"},
        "memories_release": {"reason_code": "confirmed_with_patient"},
        "memories_reject": None,
        "memories_propose": {**memory_body(victim["consent"], "latest_time", "16:00"), "source_ref": "turn:1"},
        "sessions_create": {"patient_id": victim["patient"], "purpose": "appointment_scheduling"},
        "sessions_end": {"outcome": "completed"},
        "sessions_offers_search": None,
        "sessions_turns_append": {"role": "user", "content": "mornings are fine"},
        "sessions_turns_propose": None,
        "workflows_create": {"workflow_type": "prior_authorization", "patient_id": victim["patient"]},
        "workflows_checkpoint": {"expected_version": 2, "next_step": "cancelled", "state_patch": {}},
        "workflow_operations_request": {"expected_version": 2, "kind": "submit_prior_authorization",
                                        "payload": PAYLOAD},
        "workflow_operations_retry": None,
        "workflow_operations_resolve": {"expected_version": 2, "outcome": "not_sent"},
        # organisation-level writes (administrators only): outsiders hold no such scope
        "memory_types_create": {"name": "mobility_note", "memory_class": "account_fact",
                                "label": "Mobility", "sentence": "Mobility: {aid}",
                                "schema": {"type": "object", "properties": {"aid": {"type": "string"}},
                                           "required": ["aid"], "additionalProperties": False}},
        "memory_types_revise": {"label": "Scheduling"},
        "memory_types_serves_set": {"serves": ["when the patient can come in"]},
        "patients_register": {"display_name": "Ann Other", "birth_date": "1970-01-01", "identifiers": []},
        "staff_register": {"actor_sub": "nurse-y", "display_name": "Nurse Y"},
        "organizations_register": {"name": "Elsewhere", "trusted_issuers": ["http://idp.test"]},
        "patient_fhir_import": {"review_by": later, "resource": {
            "resourceType": "AllergyIntolerance", "id": "ehr-allergy-9", "meta": {"versionId": "1"},
            "code": {"coding": [{"system": "http://snomed.info/sct", "code": "764146007", "display": "Penicillin"}]},
            "patient": {"reference": f"Patient/{victim['patient']}"}}},
        "event_subscriptions_create": {"url": "https://hooks.example.test/elsewhere",
                                       "event_types": ["memory.deleted"]},
        "event_subscriptions_update": {"enabled": False},
        "event_subscriptions_delete": None,
        "_care": {**CARE, "review_by": later},
    }


def arrange(world) -> dict:
    """Patient A's data: consents, an active memory and a proposal, a workflow with an operation, a
    conversation with a turn, a staff grant."""
    pid = world.patient_a
    me = world.patient(pid)
    consent = world.consent(pid)
    world.consent(pid, "prior_authorization")
    r = me.post(f"/v1/patients/{pid}/memories", memory_body(consent))
    assert r.status_code == 201, r.content
    memory = r.json()["memory_id"]
    world.grant(pid, "booking-agent", "appointment_scheduling")
    r = world.staff("booking-agent").post(f"/v1/patients/{pid}/memories/proposals",
                                          {**memory_body(consent, "latest_time", "15:00"), "source_ref": "turn:3"})
    assert r.status_code == 201, r.content
    proposal = r.json()["memory_id"]
    wf = me.post("/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(pid)}).json()
    r = me.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint",
                {"expected_version": 1, "next_step": "submit_prior_authorization", "state_patch": {},
                 "request_operation": {"kind": "submit_prior_authorization", "payload": PAYLOAD}})
    assert r.status_code == 200, r.content
    operation = me.get(f"/v1/workflows/{wf['workflow_id']}/operations").json()["items"][0]["operation_id"]
    session = me.post("/v1/sessions", {"patient_id": str(pid), "purpose": "appointment_scheduling"}).json()["session"]
    r = me.post(f"/v1/sessions/{session['session_id']}/turns", {"role": "user", "content": "not before 10:00"})
    assert r.status_code == 201, r.content
    grant = world.grant(pid, "nurse-granted", "communication")["grant_id"]
    webhook_admin = Api(mint(world.keyring, sub="webhook-admin", org_id=world.org, scope="webhook:admin"))
    r = webhook_admin.post("/v1/event-subscriptions", {"url": "https://hooks.example.test/anamnesis",
                                                       "event_types": ["consent.revoked"]})
    assert r.status_code == 201, r.content
    return {"patient": str(pid), "consent": consent, "memory": memory, "proposal": proposal,
            "workflow": wf["workflow_id"], "operation": operation, "session": session["session_id"],
            "grant": grant, "subscription": r.json()["subscription_id"]}


def fill(path: str, operation: str, ids: dict) -> str:
    memory = ids["proposal"] if operation in ("memories_confirm", "memories_reject") else ids["memory"]
    values = {"patient_id": ids["patient"], "memory_id": memory, "consent_id": ids["consent"],
              "workflow_id": ids["workflow"], "operation_id": ids["operation"], "session_id": ids["session"],
              "grant_id": ids["grant"], "seq": "1", "name": "scheduling_preference",
              "subscription_id": ids["subscription"]}
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)


def call(api: Api, method: str, path: str, body, headers: dict | None = None):
    if method == "delete":
        return api.client.delete(path, **api._headers(headers))
    if method in ("put", "patch"):
        return api.request(method.upper(), path, body, headers=headers)
    return api.post(path, body, headers=headers)


def table_counts() -> dict[str, int]:
    with admin_connect() as conn:
        tables = [t for (t,) in conn.execute(
            "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace "
            "AND relkind IN ('r', 'p') AND NOT relispartition ORDER BY relname")]  # audit_event's months: once
        query = psycopg.sql.SQL("SELECT ") + psycopg.sql.SQL(", ").join(
            psycopg.sql.SQL("(SELECT count(*) FROM {})").format(psycopg.sql.Identifier(t)) for t in tables)
        return dict(zip(tables, conn.execute(query).fetchone(), strict=True))


def audit_outcomes(request_id: str) -> list[str]:
    with admin_connect() as conn:
        return [o for (o,) in conn.execute("SELECT outcome FROM audit_event WHERE correlation_id = %s",
                                           [request_id])]


def refused_cleanly(api: Api, method: str, path: str, body) -> tuple[int, str]:
    """Send one request; prove it wrote nothing but refusal audit rows. Returns (status, code)."""
    before = table_counts()
    request_id = f"walk-{uuid.uuid4().hex}"
    r = call(api, method, path, body, headers={"X-Request-ID": request_id})
    after = table_counts()
    # the refusal's audit row, and its hit on the caller's rate-limit counters (refusals are throttled too)
    changed = {t: (before[t], after[t]) for t in before
               if before[t] != after[t] and t not in ("audit_event", "api_rate_counter")}
    assert not changed, f"{method.upper()} {path} -> {r.status_code}: rows written {changed}"
    assert r.status_code in (403, 404), f"{method.upper()} {path} -> {r.status_code} {r.content[:300]}"
    outcomes = audit_outcomes(request_id)
    assert after["audit_event"] - before["audit_event"] == len(outcomes) <= 1
    assert set(outcomes) <= {"denied"}, outcomes
    return r.status_code, r.json()["code"]


@pytest.fixture
def walk(committed_db, world):
    victim = arrange(world)
    settle_vector_writes()  # the arranged memories' vectors are in before the walk counts rows
    return world, victim


def test_the_walk_knows_every_write_operation(walk):
    world, victim = walk
    known = set(bodies(victim))
    missing = [op for op, _, _ in write_operations() if op not in known]
    assert not missing, f"teach the access walk these write operations: {missing}"


def test_outsiders_write_nothing_anywhere_and_get_the_answer_for_a_missing_target(walk):
    world, victim = walk
    outsiders = {
        "another patient of the organisation": world.patient(world.patient_b),
        "staff without a grant": world.staff("nurse-x", scope=OUTSIDER_SCOPES),
        "staff of another organisation": world.staff("nurse-x", org=world.other_org, scope=OUTSIDER_SCOPES),
        "an administrator of another organisation": world.staff("org-admin", org=world.other_org),
    }
    payloads = bodies(victim)
    walked = 0
    for who, api in outsiders.items():
        for operation, method, path in write_operations():
            if who == "an administrator of another organisation" and operation != "grants_revoke":
                continue  # elsewhere it holds the same powers as the staff above, in its own organisation
            body = payloads[operation]
            real = refused_cleanly(api, method, fill(path, operation, victim), body)
            ghost_ids = {k: str(uuid.uuid4()) for k in victim}
            ghost_ids["consent"] = victim["consent"]
            ghost_body = body
            if isinstance(body, dict) and "patient_id" in body:
                ghost_body = {**body, "patient_id": ghost_ids["patient"]}
            ghost = refused_cleanly(api, method, fill(path, operation, ghost_ids), ghost_body)
            assert real == ghost, f"{who}: {operation} tells {real} from a missing target's {ghost}"
            walked += 1
    assert walked >= 3 * 22


def test_the_victim_could_have_done_it(walk):
    """The bodies are valid: the patient's own erase-all succeeds where the outsiders' was refused."""
    world, victim = walk
    r = world.patient(world.patient_a).client.delete(
        f"/v1/patients/{world.patient_a}/memories",
        HTTP_AUTHORIZATION=f"Bearer {world.patient(world.patient_a).token}")
    assert r.status_code == 200 and r.json()["memory_ids"]
