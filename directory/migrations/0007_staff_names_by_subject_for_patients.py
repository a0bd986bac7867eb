"""A patient's session no longer reads the staff directory as a list: since 0005 everyone the organisation admits,
patients included, could read every staff member's name and subject (a patient's pages name who recorded their
preferences and consents). Now the table's read policy admits the organisation's staff sessions (and a subject's
own entry), and a patient's pages resolve the names of the subjects they already show through
``app_staff_names(subjects)``: SECURITY DEFINER, the caller's organisation only, the subjects asked for only, so
no list of the organisation's staff can be read from a patient's session, even by a view that forgets a filter.
Reversed: 0005's policy, without the function."""

from django.db import migrations

FORWARD = r"""
DROP POLICY IF EXISTS staff_directory_read ON staff_directory;
CREATE POLICY staff_directory_read ON staff_directory FOR SELECT
  USING (organization_id = (SELECT app_org_id())
         AND (actor_sub = (SELECT app_actor_sub()) OR (SELECT app_patient_self_id()) IS NULL));

-- the owner reads through the function below (the table forces row-level security on its owner too)
DO $$ BEGIN
  EXECUTE format('CREATE POLICY staff_directory_owner_read ON staff_directory FOR SELECT TO %I USING (true)',
                 current_user);
END $$;

CREATE FUNCTION app_staff_names(p_subjects text[]) RETURNS TABLE (actor_sub text, display_name text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
AS $$ SELECT s.actor_sub::text, s.display_name::text FROM staff_directory s
      WHERE s.organization_id = app_org_id() AND s.actor_sub = ANY (p_subjects) $$;
REVOKE EXECUTE ON FUNCTION app_staff_names(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app_staff_names(text[]) TO anamnesis_runtime;
"""

REVERSE = r"""
DROP FUNCTION IF EXISTS app_staff_names(text[]);
DROP POLICY IF EXISTS staff_directory_owner_read ON staff_directory;
DROP POLICY IF EXISTS staff_directory_read ON staff_directory;
CREATE POLICY staff_directory_read ON staff_directory FOR SELECT
  USING (organization_id = (SELECT app_org_id()));
"""


class Migration(migrations.Migration):
    dependencies = [("directory", "0006_visibility_rule_reads_identity_once")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
