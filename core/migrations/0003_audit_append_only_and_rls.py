"""audit_event is append-only (UPDATE, DELETE and TRUNCATE refused by trigger, even for the owner) and, like
organization, scoped by row-level security. The runtime role also loses write access to django_migrations."""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION reject_append_only_mutation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER audit_event_append_only BEFORE UPDATE OR DELETE ON audit_event
  FOR EACH ROW EXECUTE FUNCTION reject_append_only_mutation();
-- Statement-level too: an UPDATE or DELETE that RLS narrows to zero rows is still refused loudly.
CREATE TRIGGER audit_event_no_truncate BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_event
  FOR EACH STATEMENT EXECUTE FUNCTION reject_append_only_mutation();
REVOKE UPDATE, DELETE, TRUNCATE ON audit_event FROM anamnesis_runtime;

ALTER TABLE audit_event ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit_event FORCE ROW LEVEL SECURITY;
-- A patient reads their own history; an auditor (audit:read, not acting as a patient) reads the organisation's.
CREATE POLICY audit_event_read ON audit_event FOR SELECT
  USING (organization_id = (SELECT app_org_id())
         AND (patient_id = (SELECT app_patient_self_id())
              OR ((SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('audit:read')))));
-- Nobody can write an event in another organisation's name or another actor's.
CREATE POLICY audit_event_append ON audit_event FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id()) AND actor_sub = (SELECT app_actor_sub()));

ALTER TABLE organization ENABLE ROW LEVEL SECURITY;
ALTER TABLE organization FORCE ROW LEVEL SECURITY;
CREATE POLICY organization_own ON organization
  USING (id = (SELECT app_org_id())) WITH CHECK (id = (SELECT app_org_id()));
REVOKE DELETE, TRUNCATE ON organization FROM anamnesis_runtime;

REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON django_migrations FROM anamnesis_runtime;
"""

REVERSE = r"""
GRANT INSERT, UPDATE, DELETE ON django_migrations TO anamnesis_runtime;
GRANT DELETE ON organization TO anamnesis_runtime;
DROP POLICY IF EXISTS organization_own ON organization;
ALTER TABLE organization NO FORCE ROW LEVEL SECURITY;
ALTER TABLE organization DISABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS audit_event_append ON audit_event;
DROP POLICY IF EXISTS audit_event_read ON audit_event;
ALTER TABLE audit_event NO FORCE ROW LEVEL SECURITY;
ALTER TABLE audit_event DISABLE ROW LEVEL SECURITY;
GRANT UPDATE, DELETE ON audit_event TO anamnesis_runtime;
DROP TRIGGER IF EXISTS audit_event_no_truncate ON audit_event;
DROP TRIGGER IF EXISTS audit_event_append_only ON audit_event;
DROP FUNCTION IF EXISTS reject_append_only_mutation();
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0002_access_functions")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
