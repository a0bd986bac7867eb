"""The audit trail's read policy says the same thing in a form the planner can estimate, so the organisation's
auditor list reads one page, not the whole trail, however long the trail grows (issue 38; docs/scaling.md, "The
audit trail, growing tenfold").

Before: ``patient_id = self OR (self IS NULL AND audit:read)``. The planner cannot know at plan time which branch
holds (both depend on the request's identity), so it multiplied the two branches' guesses into a fraction of a
percent of the organisation's rows, chose to fetch them all and sort them, and the auditor's newest-100 page
sorted every row of the organisation's history (about 100,000 at 1,000,000 rows: p50 196 ms, against 30 ms at
100,000 rows). Now: ``CASE WHEN self IS NULL THEN audit:read ELSE patient_id = self END``, the same rows for every
identity (a patient or an agent acting for one sees their own rows; anyone else sees the organisation's rows only
with audit:read; a NULL is no row, as before). A CASE is estimated as half of the rows, so the auditor's page
merges the months' backward index scans (``audit_org_time``) and stops after one page: 0.4 ms at 1,000,000 rows.

A patient's reads name their patient (``core.audit.patient_history``, ``GET /v1/audit-events`` in a patient's
context, the export), so they keep using ``audit_org_patient_time``; the policy alone no longer narrows them.
"""

from django.db import migrations

BEFORE = """
CREATE POLICY audit_event_read ON audit_event FOR SELECT
  USING (organization_id = (SELECT app_org_id())
         AND (patient_id = (SELECT app_patient_self_id())
              OR ((SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('audit:read')))));
"""

AFTER = """
CREATE POLICY audit_event_read ON audit_event FOR SELECT
  USING (organization_id = (SELECT app_org_id())
         AND CASE WHEN (SELECT app_patient_self_id()) IS NULL THEN (SELECT app_has_scope('audit:read'))
                  ELSE patient_id = (SELECT app_patient_self_id()) END);
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0016_audit_partitioned_by_month_i38")]
    operations = [
        migrations.RunSQL("DROP POLICY audit_event_read ON audit_event;" + AFTER,
                          "DROP POLICY audit_event_read ON audit_event;" + BEFORE),
    ]
