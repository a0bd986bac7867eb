"""Row-level security on memory_type: an organisation sees only its own types; only its administrators
(memory_type:write, not acting as a patient) add versions, in their own name. Rows never change: a revision is
a new row, so the runtime role has neither UPDATE nor DELETE.

A narrow discovery policy lets the administrator's revision check read the current memories of exactly the type
being revised, in their own organisation, while ``app.maintenance = 'type_revision'`` (set by the check for its
statement only). The check validates those values in the process and answers with ids and paths, never values.
"""

from django.db import migrations

FORWARD = r"""
ALTER TABLE memory_type ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_type FORCE ROW LEVEL SECURITY;
CREATE POLICY memory_type_read ON memory_type FOR SELECT
  USING (organization_id = (SELECT app_org_id()));
CREATE POLICY memory_type_insert ON memory_type FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id())
              AND (SELECT app_patient_self_id()) IS NULL
              AND (SELECT app_has_scope('memory_type:write'))
              AND created_by = (SELECT app_actor_sub()));
REVOKE UPDATE, DELETE, TRUNCATE ON memory_type FROM anamnesis_runtime;

CREATE POLICY memory_type_revision_discovery ON patient_memory FOR SELECT
  USING ((SELECT app_setting('app.maintenance')) = 'type_revision'
         AND organization_id = (SELECT app_org_id())
         AND (SELECT app_patient_self_id()) IS NULL
         AND (SELECT app_has_scope('memory_type:write'))
         AND memory_type = (SELECT app_setting('app.type_revision'))
         AND state IN ('proposed', 'active', 'quarantined'));
"""

REVERSE = r"""
DROP POLICY IF EXISTS memory_type_revision_discovery ON patient_memory;
GRANT UPDATE, DELETE ON memory_type TO anamnesis_runtime;
DROP POLICY IF EXISTS memory_type_insert ON memory_type;
DROP POLICY IF EXISTS memory_type_read ON memory_type;
ALTER TABLE memory_type NO FORCE ROW LEVEL SECURITY;
ALTER TABLE memory_type DISABLE ROW LEVEL SECURITY;
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0008_memory_type_registry_i13")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
