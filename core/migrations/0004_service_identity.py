"""Service identities: a worker acting for one workflow gets access to exactly that workflow's patient and
purpose (app.service_patient_id, app.service_purpose), and nothing else. The rule stays inlinable."""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION app_service_patient_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT app_setting('app.service_patient_id')::uuid $$;

CREATE FUNCTION app_service_purpose() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT app_setting('app.service_purpose') $$;

CREATE OR REPLACE FUNCTION app_may_access(p_org uuid, p_patient uuid, p_purpose text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT p_org = app_org_id()
     AND (p_patient = app_patient_self_id()
          OR (p_patient = app_service_patient_id() AND p_purpose = app_service_purpose())
          OR app_has_grant(p_org, p_patient, p_purpose))
$$;
"""

REVERSE = r"""
CREATE OR REPLACE FUNCTION app_may_access(p_org uuid, p_patient uuid, p_purpose text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT p_org = app_org_id()
     AND (p_patient = app_patient_self_id() OR app_has_grant(p_org, p_patient, p_purpose))
$$;
DROP FUNCTION IF EXISTS app_service_purpose();
DROP FUNCTION IF EXISTS app_service_patient_id();
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0003_audit_append_only_and_rls"), ("consent", "0002_enable_rls"),
                    ("memory", "0002_enable_rls"), ("workflows", "0002_enable_rls")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
