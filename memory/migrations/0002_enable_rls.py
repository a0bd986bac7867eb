"""Row-level security on patient_memory: the common access rule for the memory's consent purpose.
No DELETE for the runtime role: deletion erases the value and keeps a tombstone."""

from django.db import migrations

FORWARD = r"""
ALTER TABLE patient_memory ENABLE ROW LEVEL SECURITY;
ALTER TABLE patient_memory FORCE ROW LEVEL SECURITY;
CREATE POLICY memory_scope ON patient_memory
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, consent_purpose))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, consent_purpose));
REVOKE DELETE, TRUNCATE ON patient_memory FROM anamnesis_runtime;
"""

REVERSE = r"""
GRANT DELETE ON patient_memory TO anamnesis_runtime;
DROP POLICY IF EXISTS memory_scope ON patient_memory;
ALTER TABLE patient_memory NO FORCE ROW LEVEL SECURITY;
ALTER TABLE patient_memory DISABLE ROW LEVEL SECURITY;
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0001_initial"), ("consent", "0002_enable_rls")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
