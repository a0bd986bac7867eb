"""Applies directory/sql/visibility_rule.sql again: the rule for a row of the caller's organisation is
``app_may_see_patient_as``, given the caller's identity, which the directory's read policies (testing the
organisation first) ask with each setting as a scalar sub-select (an InitPlan, read once per statement; through
``app_may_see_patient`` every row read the settings again), and ``app_has_any_grant`` is PL/pgSQL, so a session
keeps its plan instead of planning its body in every statement that asks it. Whom the rule admits is unchanged
(where it answered NULL, which denies, it answers false). Reversed, the policies ask ``app_may_see_patient`` again; the functions stay: they decide as before."""

from pathlib import Path

from django.db import migrations

RULE = (Path(__file__).resolve().parent.parent / "sql" / "visibility_rule.sql").read_text()

# The caller's identity for app_may_see_patient_as, each setting a scalar sub-select (an InitPlan).
IDENTITY = "(SELECT app_patient_self_id()), (SELECT app_has_scope('grant:write') OR app_has_scope('patient:write'))"

FORWARD = f"""
ALTER POLICY patient_directory_read ON patient_directory
  USING (organization_id = (SELECT app_org_id()) AND app_may_see_patient_as(organization_id, patient_id, {IDENTITY}));
ALTER POLICY patient_identifier_read ON patient_identifier
  USING (organization_id = (SELECT app_org_id()) AND app_may_see_patient_as(organization_id, patient_id, {IDENTITY}));
"""

REVERSE = """
ALTER POLICY patient_directory_read ON patient_directory
  USING (organization_id = (SELECT app_org_id()) AND app_may_see_patient(organization_id, patient_id));
ALTER POLICY patient_identifier_read ON patient_identifier
  USING (organization_id = (SELECT app_org_id()) AND app_may_see_patient(organization_id, patient_id));
"""


class Migration(migrations.Migration):
    dependencies = [("directory", "0005_staff_names_in_organization")]
    operations = [migrations.RunSQL(RULE, migrations.RunSQL.noop), migrations.RunSQL(FORWARD, REVERSE)]
