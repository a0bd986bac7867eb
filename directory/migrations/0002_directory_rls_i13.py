"""Row-level security on the directory.

Patient names and identifiers are patient data: visible to the patient themself, to staff who hold any active
grant for that patient (the directory is how they recognise whom they care for, whatever the purpose), and to the
organisation's administrators (grant:write or patient:write, never acting as a patient), who choose patients when
granting access. Only administrators with patient:write write them. No DELETE for the runtime role.

Staff entries are visible inside the organisation to administrators and to the subject themself; written by
administrators (grant:write).
"""

from pathlib import Path

from django.db import migrations

# The visibility rule's functions: the current definition lives in directory/sql/visibility_rule.sql.
RULE = (Path(__file__).resolve().parent.parent / "sql" / "visibility_rule.sql").read_text()

FORWARD = r"""
ALTER TABLE patient_directory ENABLE ROW LEVEL SECURITY;
ALTER TABLE patient_directory FORCE ROW LEVEL SECURITY;
CREATE POLICY patient_directory_read ON patient_directory FOR SELECT
  USING (organization_id = (SELECT app_org_id()) AND app_may_see_patient(organization_id, patient_id));
CREATE POLICY patient_directory_insert ON patient_directory FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
              AND (SELECT app_has_scope('patient:write')));
CREATE POLICY patient_directory_update ON patient_directory FOR UPDATE
  USING (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
         AND (SELECT app_has_scope('patient:write')))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
              AND (SELECT app_has_scope('patient:write')));
REVOKE DELETE, TRUNCATE ON patient_directory FROM anamnesis_runtime;

ALTER TABLE patient_identifier ENABLE ROW LEVEL SECURITY;
ALTER TABLE patient_identifier FORCE ROW LEVEL SECURITY;
CREATE POLICY patient_identifier_read ON patient_identifier FOR SELECT
  USING (organization_id = (SELECT app_org_id()) AND app_may_see_patient(organization_id, patient_id));
CREATE POLICY patient_identifier_insert ON patient_identifier FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
              AND (SELECT app_has_scope('patient:write')));
REVOKE UPDATE, DELETE, TRUNCATE ON patient_identifier FROM anamnesis_runtime;

ALTER TABLE staff_directory ENABLE ROW LEVEL SECURITY;
ALTER TABLE staff_directory FORCE ROW LEVEL SECURITY;
CREATE POLICY staff_directory_read ON staff_directory FOR SELECT
  USING (organization_id = (SELECT app_org_id())
         AND (actor_sub = (SELECT app_actor_sub())
              OR ((SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('grant:write')))));
CREATE POLICY staff_directory_write ON staff_directory FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id()) AND (SELECT app_patient_self_id()) IS NULL
              AND (SELECT app_has_scope('grant:write')));
REVOKE UPDATE, DELETE, TRUNCATE ON staff_directory FROM anamnesis_runtime;
"""

REVERSE = r"""
GRANT UPDATE, DELETE ON staff_directory TO anamnesis_runtime;
DROP POLICY IF EXISTS staff_directory_write ON staff_directory;
DROP POLICY IF EXISTS staff_directory_read ON staff_directory;
ALTER TABLE staff_directory NO FORCE ROW LEVEL SECURITY;
ALTER TABLE staff_directory DISABLE ROW LEVEL SECURITY;
GRANT UPDATE, DELETE ON patient_identifier TO anamnesis_runtime;
DROP POLICY IF EXISTS patient_identifier_insert ON patient_identifier;
DROP POLICY IF EXISTS patient_identifier_read ON patient_identifier;
ALTER TABLE patient_identifier NO FORCE ROW LEVEL SECURITY;
ALTER TABLE patient_identifier DISABLE ROW LEVEL SECURITY;
GRANT DELETE ON patient_directory TO anamnesis_runtime;
DROP POLICY IF EXISTS patient_directory_update ON patient_directory;
DROP POLICY IF EXISTS patient_directory_insert ON patient_directory;
DROP POLICY IF EXISTS patient_directory_read ON patient_directory;
ALTER TABLE patient_directory NO FORCE ROW LEVEL SECURITY;
ALTER TABLE patient_directory DISABLE ROW LEVEL SECURITY;
DROP FUNCTION IF EXISTS app_may_see_patient(uuid, uuid);
DROP FUNCTION IF EXISTS app_has_any_grant(uuid, uuid);
"""


class Migration(migrations.Migration):
    dependencies = [("directory", "0001_directory_tables_i13"), ("core", "0002_access_functions"),
                    ("consent", "0003_access_rule_current")]
    operations = [migrations.RunSQL(RULE + FORWARD, REVERSE)]
