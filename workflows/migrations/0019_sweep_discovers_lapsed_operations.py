"""Discovery for ``manage.py sweep_workflows`` (``app.maintenance = 'workflow_sweep'``) of operations still waiting
(pending, or parked with an unknown outcome, not withdrawn yet) and of the consents that may have lapsed (withdrawn,
or with an expiry: the sweep asks whether it passed), so the sweep finds what was asked for under a consent that no
longer stands and settles it as the send would (workflows.retention). SELECT only; each is then settled under a
service identity scoped to its patient and purpose."""

from django.db import migrations

FORWARD = r"""
CREATE POLICY operation_lapse_discovery ON workflow_operation FOR SELECT
  USING (app_setting('app.maintenance') = 'workflow_sweep'
         AND status IN ('pending', 'outcome_unknown') AND withdrawn_reason IS NULL);
CREATE POLICY consent_lapse_discovery ON patient_consent FOR SELECT
  USING (app_setting('app.maintenance') = 'workflow_sweep'
         AND (status = 'revoked' OR expires_at IS NOT NULL));
"""

REVERSE = r"""
DROP POLICY IF EXISTS consent_lapse_discovery ON patient_consent;
DROP POLICY IF EXISTS operation_lapse_discovery ON workflow_operation;
"""


class Migration(migrations.Migration):
    dependencies = [("workflows", "0018_workflow_agent_client_id"), ("consent", "0006_purpose_rule")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
