"""Staff names are read inside the organisation by everyone it admits, patients included: the pages name who
recorded a patient's preferences and consents (a nurse, an agent) by the directory's name, where they showed the
bare token subject. A name and a subject are no patient's data; which patients a staff member cares for stays in
the grants, under their own rules. Writes are unchanged (administrators only). Before: the subject themself and
the organisation's administrators (grant:write) only."""

from django.db import migrations

FORWARD = r"""
DROP POLICY IF EXISTS staff_directory_read ON staff_directory;
CREATE POLICY staff_directory_read ON staff_directory FOR SELECT
  USING (organization_id = (SELECT app_org_id()));
"""

REVERSE = r"""
DROP POLICY IF EXISTS staff_directory_read ON staff_directory;
CREATE POLICY staff_directory_read ON staff_directory FOR SELECT
  USING (organization_id = (SELECT app_org_id())
         AND (actor_sub = (SELECT app_actor_sub())
              OR ((SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('grant:write')))));
"""


class Migration(migrations.Migration):
    dependencies = [("directory", "0004_identifier_unique_any_case")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
