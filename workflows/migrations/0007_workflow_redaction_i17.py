"""Personal values leave finished workflows: erasure and the retention sweep redact them.

* the outbox guard (``0004_operation_invariants``) is replaced by one that also lets a *settled* operation's
  payload be replaced by the redaction marker ``{"_redacted": true}`` and nothing else: key, hash, status, result
  and scope stay, so an insurer reconciliation still matches the idempotency key and the sha256 of what was sent;
* narrow discovery policies for ``manage.py sweep_workflows`` (``app.maintenance = 'workflow_sweep'``): a SELECT
  sees only finished, unredacted workflows and settled, unredacted operations; each is then processed under a
  service identity scoped to its patient and purpose.
"""

from django.db import migrations

GUARD_BODY = r"""
BEGIN
  IF OLD.status IN ('succeeded', 'failed', 'cancelled')
     AND NEW.payload = '{"_redacted": true}'::jsonb
     AND (to_jsonb(NEW) - 'payload' - 'updated_at') = (to_jsonb(OLD) - 'payload' - 'updated_at') THEN
    RETURN NEW;  -- redaction of a settled operation's payload: the only change a settled operation allows
  END IF;
  IF NEW.operation_id <> OLD.operation_id OR NEW.workflow_id <> OLD.workflow_id
     OR NEW.organization_id <> OLD.organization_id OR NEW.patient_id <> OLD.patient_id
     OR NEW.purpose <> OLD.purpose OR NEW.kind <> OLD.kind OR NEW.system <> OLD.system
     OR NEW.idempotency_key <> OLD.idempotency_key OR NEW.payload_hash <> OLD.payload_hash
     OR NEW.payload IS DISTINCT FROM OLD.payload OR NEW.request_key IS DISTINCT FROM OLD.request_key
     OR NEW.requested_by <> OLD.requested_by OR NEW.requested_at_version <> OLD.requested_at_version
     OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'workflow_operation: the key, payload and scope of an operation never change'
      USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.status IN ('succeeded', 'failed', 'cancelled') THEN
    RAISE EXCEPTION 'workflow_operation: a settled operation is final' USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.outcome_uncertain AND NOT NEW.outcome_uncertain AND NEW.status NOT IN ('succeeded', 'failed') THEN
    RAISE EXCEPTION 'workflow_operation: an unknown outcome is cleared only by a result or a refusal'
      USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.attempts < OLD.attempts THEN
    RAISE EXCEPTION 'workflow_operation: attempts only grow' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
"""

# The guard of 0004_operation_invariants: everything after the redaction clause.
ORIGINAL_BODY = GUARD_BODY.split("  END IF;\n", 1)[1]

FORWARD = (
    "CREATE OR REPLACE FUNCTION workflow_operation_guard() RETURNS trigger LANGUAGE plpgsql AS $$"
    + GUARD_BODY + "$$;\n"
    + r"""
CREATE POLICY workflow_sweep_discovery ON agent_workflow FOR SELECT
  USING (app_setting('app.maintenance') = 'workflow_sweep'
         AND current_step IN ('completed', 'cancelled') AND NOT (state ? '_redacted'));
CREATE POLICY operation_sweep_discovery ON workflow_operation FOR SELECT
  USING (app_setting('app.maintenance') = 'workflow_sweep'
         AND status IN ('succeeded', 'failed', 'cancelled') AND payload <> '{"_redacted": true}'::jsonb);
""")

REVERSE = (
    "DROP POLICY IF EXISTS operation_sweep_discovery ON workflow_operation;\n"
    "DROP POLICY IF EXISTS workflow_sweep_discovery ON agent_workflow;\n"
    "CREATE OR REPLACE FUNCTION workflow_operation_guard() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n"
    + ORIGINAL_BODY + "$$;\n")


class Migration(migrations.Migration):
    dependencies = [("workflows", "0006_circuit_rls")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
