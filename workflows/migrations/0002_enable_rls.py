"""Row-level security on workflows and their transition history (the access rule for the workflow's purpose);
the history is append-only."""

from django.db import migrations

FORWARD = r"""
ALTER TABLE agent_workflow ENABLE ROW LEVEL SECURITY;
ALTER TABLE agent_workflow FORCE ROW LEVEL SECURITY;
CREATE POLICY workflow_scope ON agent_workflow
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose));
REVOKE DELETE, TRUNCATE ON agent_workflow FROM anamnesis_runtime;

ALTER TABLE agent_workflow_transition ENABLE ROW LEVEL SECURITY;
ALTER TABLE agent_workflow_transition FORCE ROW LEVEL SECURITY;
CREATE POLICY workflow_transition_read ON agent_workflow_transition FOR SELECT
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose));
CREATE POLICY workflow_transition_append ON agent_workflow_transition FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose) AND actor_sub = (SELECT app_actor_sub()));
CREATE TRIGGER workflow_transition_append_only BEFORE UPDATE OR DELETE ON agent_workflow_transition
  FOR EACH ROW EXECUTE FUNCTION reject_append_only_mutation();
CREATE TRIGGER workflow_transition_no_truncate BEFORE UPDATE OR DELETE OR TRUNCATE ON agent_workflow_transition
  FOR EACH STATEMENT EXECUTE FUNCTION reject_append_only_mutation();
REVOKE UPDATE, DELETE, TRUNCATE ON agent_workflow_transition FROM anamnesis_runtime;
"""

REVERSE = r"""
GRANT UPDATE, DELETE ON agent_workflow_transition TO anamnesis_runtime;
DROP TRIGGER IF EXISTS workflow_transition_no_truncate ON agent_workflow_transition;
DROP TRIGGER IF EXISTS workflow_transition_append_only ON agent_workflow_transition;
DROP POLICY IF EXISTS workflow_transition_append ON agent_workflow_transition;
DROP POLICY IF EXISTS workflow_transition_read ON agent_workflow_transition;
ALTER TABLE agent_workflow_transition NO FORCE ROW LEVEL SECURITY;
ALTER TABLE agent_workflow_transition DISABLE ROW LEVEL SECURITY;
GRANT DELETE ON agent_workflow TO anamnesis_runtime;
DROP POLICY IF EXISTS workflow_scope ON agent_workflow;
ALTER TABLE agent_workflow NO FORCE ROW LEVEL SECURITY;
ALTER TABLE agent_workflow DISABLE ROW LEVEL SECURITY;
"""


class Migration(migrations.Migration):
    dependencies = [("workflows", "0001_initial"), ("core", "0003_audit_append_only_and_rls"), ("consent", "0002_enable_rls")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
