"""The circuit breakers: one row per outside system, created here. Not patient data, but still behind RLS so that a
connection without any context sees nothing: anyone with an identity or the worker setting reads them (the resume
answer says whether a system is known to be down), only the worker (``app.worker``) changes them. Rows are never
inserted or removed at run time."""

from django.db import migrations

FORWARD = r"""
INSERT INTO workflow_circuit (system, state, consecutive_failures, updated_at)
VALUES ('insurer', 'closed', 0, now()), ('scheduling', 'closed', 0, now())
ON CONFLICT (system) DO NOTHING;

ALTER TABLE workflow_circuit ENABLE ROW LEVEL SECURITY;
ALTER TABLE workflow_circuit FORCE ROW LEVEL SECURITY;
CREATE POLICY circuit_read ON workflow_circuit FOR SELECT
  USING ((SELECT app_org_id()) IS NOT NULL OR (SELECT app_setting('app.worker')) IS NOT NULL);
CREATE POLICY circuit_worker_update ON workflow_circuit FOR UPDATE
  USING ((SELECT app_setting('app.worker')) IS NOT NULL)
  WITH CHECK ((SELECT app_setting('app.worker')) IS NOT NULL);
REVOKE INSERT, DELETE, TRUNCATE ON workflow_circuit FROM anamnesis_runtime;
"""

REVERSE = r"""
GRANT INSERT, DELETE ON workflow_circuit TO anamnesis_runtime;
DROP POLICY IF EXISTS circuit_worker_update ON workflow_circuit;
DROP POLICY IF EXISTS circuit_read ON workflow_circuit;
ALTER TABLE workflow_circuit NO FORCE ROW LEVEL SECURITY;
ALTER TABLE workflow_circuit DISABLE ROW LEVEL SECURITY;
DELETE FROM workflow_circuit WHERE system IN ('insurer', 'scheduling');
"""


class Migration(migrations.Migration):
    dependencies = [("workflows", "0005_operation_rls")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
