"""Row-level security on the outbox, and two narrow views for the callers that have no patient in hand.

* Normal access (API callers, and the worker once it has taken on the service identity of one operation's
  patient and purpose) is the usual rule: the caller's organisation and app_may_access for the row's purpose.
* The worker finds due operations across organisations through ``workflow_operation_dispatch``: only ids, scope,
  status and lease columns (never the payload or the result). Its policies are granted TO the view's owner (the
  migrating role), not to the runtime role, so they apply only through the view, and only in a transaction that
  set ``app.worker``. The runtime role may update only the lease columns through it, into ``in_flight`` only.
* Staff with the ``workflow:reconcile`` scope (not acting as a patient) list the organisation's workflows stuck in
  needs_reconciliation through ``workflow_reconciliation_queue``: step, version and the unsettled operation's
  status, never the workflow state or any payload. Acting on one still needs the normal access rule.

FORCE ROW LEVEL SECURITY applies to the owner too, so each view shows exactly what these policies allow. The runtime
role loses DELETE and TRUNCATE on the outbox: operations are settled, never removed.
"""

from django.db import migrations

FORWARD = r"""
ALTER TABLE workflow_operation ENABLE ROW LEVEL SECURITY;
ALTER TABLE workflow_operation FORCE ROW LEVEL SECURITY;
-- "(SELECT app_org_id()) IS NOT NULL" first: evaluated once per statement, it makes the rule false (not NULL)
-- when no organisation is set, so a worker's claim never evaluates the grant look-up row by row.
CREATE POLICY operation_scope ON workflow_operation
  USING ((SELECT app_org_id()) IS NOT NULL AND organization_id = (SELECT app_org_id())
         AND app_may_access(organization_id, patient_id, purpose))
  WITH CHECK ((SELECT app_org_id()) IS NOT NULL AND organization_id = (SELECT app_org_id())
              AND app_may_access(organization_id, patient_id, purpose));
REVOKE DELETE, TRUNCATE ON workflow_operation FROM anamnesis_runtime;

CREATE POLICY operation_dispatch_read ON workflow_operation FOR SELECT TO CURRENT_USER
  USING ((SELECT app_setting('app.worker')) IS NOT NULL
         AND status IN ('pending', 'in_flight', 'outcome_unknown'));
CREATE POLICY operation_dispatch_claim ON workflow_operation FOR UPDATE TO CURRENT_USER
  USING ((SELECT app_setting('app.worker')) IS NOT NULL
         AND status IN ('pending', 'in_flight', 'outcome_unknown'))
  WITH CHECK ((SELECT app_setting('app.worker')) IS NOT NULL AND status = 'in_flight');

CREATE VIEW workflow_operation_dispatch AS
  SELECT operation_id, organization_id, patient_id, purpose, workflow_id, kind, system, status,
         outcome_uncertain, attempts, next_attempt_at, claimed_by, claimed_until, updated_at
    FROM workflow_operation;
REVOKE ALL ON workflow_operation_dispatch FROM anamnesis_runtime;
GRANT SELECT ON workflow_operation_dispatch TO anamnesis_runtime;
GRANT UPDATE (status, outcome_uncertain, attempts, next_attempt_at, claimed_by, claimed_until, updated_at)
  ON workflow_operation_dispatch TO anamnesis_runtime;

CREATE POLICY workflow_reconciliation_read ON agent_workflow FOR SELECT TO CURRENT_USER
  USING (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
         AND (SELECT app_has_scope('workflow:reconcile')) AND current_step = 'needs_reconciliation');
CREATE POLICY operation_reconciliation_read ON workflow_operation FOR SELECT TO CURRENT_USER
  USING (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
         AND (SELECT app_has_scope('workflow:reconcile'))
         AND status IN ('pending', 'in_flight', 'outcome_unknown'));

CREATE VIEW workflow_reconciliation_queue AS
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
   WHERE w.current_step = 'needs_reconciliation';
REVOKE ALL ON workflow_reconciliation_queue FROM anamnesis_runtime;
GRANT SELECT ON workflow_reconciliation_queue TO anamnesis_runtime;
"""

REVERSE = r"""
DROP VIEW IF EXISTS workflow_reconciliation_queue;
DROP POLICY IF EXISTS operation_reconciliation_read ON workflow_operation;
DROP POLICY IF EXISTS workflow_reconciliation_read ON agent_workflow;
DROP VIEW IF EXISTS workflow_operation_dispatch;
DROP POLICY IF EXISTS operation_dispatch_claim ON workflow_operation;
DROP POLICY IF EXISTS operation_dispatch_read ON workflow_operation;
GRANT DELETE ON workflow_operation TO anamnesis_runtime;
DROP POLICY IF EXISTS operation_scope ON workflow_operation;
ALTER TABLE workflow_operation NO FORCE ROW LEVEL SECURITY;
ALTER TABLE workflow_operation DISABLE ROW LEVEL SECURITY;
"""


class Migration(migrations.Migration):
    dependencies = [("workflows", "0004_operation_invariants"), ("core", "0004_service_identity")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
