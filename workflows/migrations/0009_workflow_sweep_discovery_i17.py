"""Narrow discovery policies for ``manage.py sweep_workflows`` (``app.maintenance = 'workflow_sweep'``): a SELECT
sees only finished, unredacted workflows and settled, unredacted operations; the sweep then redacts each under a
service identity scoped to its patient and purpose (workflows.retention)."""

from django.db import migrations

FORWARD = r"""
CREATE POLICY workflow_sweep_discovery ON agent_workflow FOR SELECT
  USING (app_setting('app.maintenance') = 'workflow_sweep'
         AND current_step IN ('completed', 'cancelled') AND NOT (state ? '_redacted'));
CREATE POLICY operation_sweep_discovery ON workflow_operation FOR SELECT
  USING (app_setting('app.maintenance') = 'workflow_sweep'
         AND status IN ('succeeded', 'failed', 'cancelled') AND payload <> '{"_redacted": true}'::jsonb);
"""

REVERSE = r"""
DROP POLICY IF EXISTS operation_sweep_discovery ON workflow_operation;
DROP POLICY IF EXISTS workflow_sweep_discovery ON agent_workflow;
"""


class Migration(migrations.Migration):
    dependencies = [("workflows", "0008_operation_guard_current")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
