"""Invariants of the outbox that the database keeps, whatever the code does:

* an operation carries exactly its workflow's organisation, patient and purpose (the columns RLS checks it by):
  a composite foreign key onto a new unique key of agent_workflow;
* its idempotency key is bound to its payload for ever: the key, the payload, its hash and its scope never change;
* a settled operation (succeeded, failed, cancelled) is final;
* an unknown outcome is only cleared by a confirmed result or a definitive refusal, never forgotten;
* attempts only grow.
"""

from django.db import migrations

FORWARD = r"""
ALTER TABLE agent_workflow
  ADD CONSTRAINT workflow_scope_unique UNIQUE (workflow_id, organization_id, patient_id, purpose);
ALTER TABLE workflow_operation
  ADD CONSTRAINT operation_workflow_scope_fk FOREIGN KEY (workflow_id, organization_id, patient_id, purpose)
  REFERENCES agent_workflow (workflow_id, organization_id, patient_id, purpose);

CREATE FUNCTION workflow_operation_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
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
END $$;

CREATE TRIGGER workflow_operation_guard BEFORE UPDATE ON workflow_operation
  FOR EACH ROW EXECUTE FUNCTION workflow_operation_guard();
"""

REVERSE = r"""
DROP TRIGGER IF EXISTS workflow_operation_guard ON workflow_operation;
DROP FUNCTION IF EXISTS workflow_operation_guard();
ALTER TABLE workflow_operation DROP CONSTRAINT IF EXISTS operation_workflow_scope_fk;
ALTER TABLE agent_workflow DROP CONSTRAINT IF EXISTS workflow_scope_unique;
"""


class Migration(migrations.Migration):
    dependencies = [("workflows", "0003_operation_outbox_and_circuit")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
