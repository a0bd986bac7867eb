"""Service identities: a worker acting for one workflow gets access to exactly that workflow's patient and
purpose (app.service_patient_id, app.service_purpose), and nothing else; these are their readers. The access rule
that uses them is consent/sql/access_rule.sql."""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION app_service_patient_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT app_setting('app.service_patient_id')::uuid $$;

CREATE FUNCTION app_service_purpose() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT app_setting('app.service_purpose') $$;
"""

REVERSE = r"""
DROP FUNCTION IF EXISTS app_service_purpose();
DROP FUNCTION IF EXISTS app_service_patient_id();
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0003_audit_append_only_and_rls")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
