"""The reconciliation queue also lists a cancelled workflow whose operation is parked with an unknown outcome.

A workflow cancelled while an outside system's answer was unknown keeps its operation: the worker only asks the
outside system whether the request arrived. When those look-ups run out too, the operation is parked (still
outcome_unknown, never retried on its own) and only a person can settle it; but the queue showed workflows in
needs_reconciliation only, so an authorisation or a booking that may exist for a cancelled workflow was listed
nowhere. The staff's organisation-wide policy on agent_workflow now reaches cancelled workflows too, and the view
shows those (only those) whose newest unsettled operation is parked. The columns are unchanged.
"""

from django.db import migrations

_VIEW = r"""
CREATE OR REPLACE VIEW workflow_reconciliation_queue AS
  SELECT w.workflow_id, w.organization_id, w.patient_id, w.workflow_type, w.purpose, w.current_step, w.version,
         w.updated_at, o.operation_id, o.kind, o.system, o.status AS operation_status, o.attempts,
         o.next_attempt_at, o.last_error_code
    FROM agent_workflow w
    LEFT JOIN LATERAL (
      SELECT op.operation_id, op.kind, op.system, op.status, op.attempts, op.next_attempt_at, op.last_error_code
        FROM workflow_operation op
       WHERE op.workflow_id = w.workflow_id AND op.status IN ('pending', 'in_flight', 'outcome_unknown')
       ORDER BY op.created_at DESC
       LIMIT 1) o ON true
   WHERE {where};
"""

_POLICY = r"""
DROP POLICY workflow_reconciliation_read ON agent_workflow;
CREATE POLICY workflow_reconciliation_read ON agent_workflow FOR SELECT TO CURRENT_USER
  USING (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
         AND (SELECT app_has_scope('workflow:reconcile')) AND (SELECT app_has_scope('workflow:reconcile:org'))
         AND {steps});
"""

FORWARD = _POLICY.format(steps="current_step IN ('needs_reconciliation', 'cancelled')") + _VIEW.format(
    where="w.current_step = 'needs_reconciliation'\n"
          "      OR (w.current_step = 'cancelled' AND o.status = 'outcome_unknown' AND o.next_attempt_at IS NULL)")

REVERSE = _VIEW.format(where="w.current_step = 'needs_reconciliation'") + _POLICY.format(
    steps="current_step = 'needs_reconciliation'")


class Migration(migrations.Migration):
    dependencies = [("workflows", "0012_cheap_payload_hash_check_i12")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
