-- The outbox's guard in the database: what may change on a workflow_operation row.
--
-- This file is the current definition. Migrations apply it (workflows 0008_operation_guard_current, then 0016 for
-- the columns 0014 and 0015 added: plpgsql reads NEW's fields when it runs); tests check that the live function
-- matches this file. To change it: edit this file and add a migration that applies it.
--
-- * the key, payload, hash and scope of an operation, who asked for it, and its withdrawal once made never change
--   (a withdrawn operation is never sent again), except that a *settled* operation's payload may
--   be replaced by the redaction marker {"_redacted": true} (erase-all, manage.py sweep_workflows) with nothing else
--   changed: the idempotency key, the sha256 of what was sent, the status and the result stay for reconciliation;
-- * a settled operation (succeeded, failed, cancelled) is otherwise final;
-- * an unknown outcome is only cleared by a confirmed result or a definitive refusal, never forgotten;
-- * attempts only grow.

CREATE OR REPLACE FUNCTION workflow_operation_guard() RETURNS trigger
LANGUAGE plpgsql
AS $$
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
     OR NEW.requested_by_kind IS DISTINCT FROM OLD.requested_by_kind
     OR (OLD.withdrawn_reason IS NOT NULL AND NEW.withdrawn_reason IS DISTINCT FROM OLD.withdrawn_reason)
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
$$;
