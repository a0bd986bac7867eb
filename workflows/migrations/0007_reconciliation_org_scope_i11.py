"""The organisation-wide reconciliation queue needs its own scope, ``workflow:reconcile:org``.

``0005_operation_rls`` let any staff token with ``workflow:reconcile`` read every needs_reconciliation workflow of
the organisation through ``workflow_reconciliation_queue``. Staff without the organisation scope now see, through
the same view, only what the ordinary access rule shows them (patients and purposes they hold grants for).
"""

from django.db import migrations

FORWARD = r"""
DROP POLICY workflow_reconciliation_read ON agent_workflow;
CREATE POLICY workflow_reconciliation_read ON agent_workflow FOR SELECT TO CURRENT_USER
  USING (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
         AND (SELECT app_has_scope('workflow:reconcile')) AND (SELECT app_has_scope('workflow:reconcile:org'))
         AND current_step = 'needs_reconciliation');
DROP POLICY operation_reconciliation_read ON workflow_operation;
CREATE POLICY operation_reconciliation_read ON workflow_operation FOR SELECT TO CURRENT_USER
  USING (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
         AND (SELECT app_has_scope('workflow:reconcile')) AND (SELECT app_has_scope('workflow:reconcile:org'))
         AND status IN ('pending', 'in_flight', 'outcome_unknown'));
"""

REVERSE = r"""
DROP POLICY operation_reconciliation_read ON workflow_operation;
CREATE POLICY operation_reconciliation_read ON workflow_operation FOR SELECT TO CURRENT_USER
  USING (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
         AND (SELECT app_has_scope('workflow:reconcile'))
         AND status IN ('pending', 'in_flight', 'outcome_unknown'));
DROP POLICY workflow_reconciliation_read ON agent_workflow;
CREATE POLICY workflow_reconciliation_read ON agent_workflow FOR SELECT TO CURRENT_USER
  USING (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
         AND (SELECT app_has_scope('workflow:reconcile')) AND current_step = 'needs_reconciliation');
"""


class Migration(migrations.Migration):
    dependencies = [("workflows", "0006_circuit_rls")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
