"""The access rule, and row-level security on consents and access grants.

Grants are readable by the staff subject they name, by the patient they concern, and by organisation
administrators (grant:write, not acting as a patient); only administrators write them, in their own name.
Consents follow the common access rule for their purpose. Neither table allows DELETE: history is kept.
"""

from django.db import migrations

FORWARD = r"""
-- The access rule as first defined (its current definition: consent/sql/access_rule.sql).
CREATE FUNCTION app_has_grant(p_org uuid, p_patient uuid, p_purpose text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT EXISTS (SELECT 1 FROM patient_access_grants g
                  WHERE g.organization_id = p_org
                    AND g.patient_id = p_patient
                    AND g.actor_sub = app_actor_sub()
                    AND g.purpose = p_purpose
                    AND g.revoked_at IS NULL
                    AND (g.expires_at IS NULL OR g.expires_at > now()))
$$;

CREATE FUNCTION app_may_access(p_org uuid, p_patient uuid, p_purpose text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT p_org = app_org_id()
     AND (p_patient = app_patient_self_id()
          OR (p_patient = app_service_patient_id() AND p_purpose = app_service_purpose())
          OR app_has_grant(p_org, p_patient, p_purpose))
$$;

ALTER TABLE patient_access_grants ENABLE ROW LEVEL SECURITY;
ALTER TABLE patient_access_grants FORCE ROW LEVEL SECURITY;
CREATE POLICY grants_read ON patient_access_grants FOR SELECT
  USING (organization_id = (SELECT app_org_id())
         AND (actor_sub = (SELECT app_actor_sub())
              OR patient_id = (SELECT app_patient_self_id())
              OR ((SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('grant:write')))));
CREATE POLICY grants_insert ON patient_access_grants FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id())
              AND (SELECT app_patient_self_id()) IS NULL
              AND (SELECT app_has_scope('grant:write'))
              AND granted_by = (SELECT app_actor_sub()));
CREATE POLICY grants_update ON patient_access_grants FOR UPDATE
  USING (organization_id = (SELECT app_org_id())
         AND (SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('grant:write')))
  WITH CHECK (organization_id = (SELECT app_org_id())
              AND (SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('grant:write')));
REVOKE DELETE, TRUNCATE ON patient_access_grants FROM anamnesis_runtime;

ALTER TABLE patient_consent ENABLE ROW LEVEL SECURITY;
ALTER TABLE patient_consent FORCE ROW LEVEL SECURITY;
CREATE POLICY consent_scope ON patient_consent
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose));
REVOKE DELETE, TRUNCATE ON patient_consent FROM anamnesis_runtime;
"""

REVERSE = r"""
GRANT DELETE ON patient_consent TO anamnesis_runtime;
DROP POLICY IF EXISTS consent_scope ON patient_consent;
ALTER TABLE patient_consent NO FORCE ROW LEVEL SECURITY;
ALTER TABLE patient_consent DISABLE ROW LEVEL SECURITY;
GRANT DELETE ON patient_access_grants TO anamnesis_runtime;
DROP POLICY IF EXISTS grants_update ON patient_access_grants;
DROP POLICY IF EXISTS grants_insert ON patient_access_grants;
DROP POLICY IF EXISTS grants_read ON patient_access_grants;
ALTER TABLE patient_access_grants NO FORCE ROW LEVEL SECURITY;
ALTER TABLE patient_access_grants DISABLE ROW LEVEL SECURITY;
DROP FUNCTION IF EXISTS app_may_access(uuid, uuid, text);
DROP FUNCTION IF EXISTS app_has_grant(uuid, uuid, text);
"""


class Migration(migrations.Migration):
    dependencies = [("consent", "0001_initial"), ("core", "0004_service_identity")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
