-- Who may see a patient's directory entry (name, date of birth, identifiers): the patient themself; staff holding
-- any active grant for the patient (the directory is how they recognise whom they care for, whatever the
-- purpose); the organisation's administrators (grant:write or patient:write, never acting as a patient), who choose
-- patients when granting access. Always inside the caller's organisation.
--
-- This file is the current definition. Migrations apply it (directory 0002_directory_rls_i13); a test checks that
-- the database's live functions match it. To change the rule: edit this file and add a migration that applies it.
--
-- As the access rule (consent/sql/access_rule.sql): app_may_see_patient_as is the rule for a row of the caller's
-- organisation, given the caller's identity, which the policies (testing the organisation first) pass as scalar
-- sub-selects, read once per statement (InitPlans), not once per row; app_may_see_patient tests the organisation
-- and asks it with the settings. app_has_any_grant is PL/pgSQL so that the session keeps its query's plan: as an
-- SQL function with a sub-query, which PostgreSQL cannot inline, its body was planned again in every statement that
-- asked it (a staff directory read, for each row of another patient).

CREATE OR REPLACE FUNCTION app_has_any_grant(p_org uuid, p_patient uuid) RETURNS boolean
LANGUAGE plpgsql STABLE
AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM patient_access_grants g
                  WHERE g.organization_id = p_org
                    AND g.patient_id = p_patient
                    AND g.actor_sub = app_actor_sub()
                    AND g.revoked_at IS NULL
                    AND (g.expires_at IS NULL OR g.expires_at > now()));
END
$$;

CREATE OR REPLACE FUNCTION app_may_see_patient_as(p_org uuid, p_patient uuid, p_self uuid,
                                                  p_administrator boolean) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT COALESCE(p_patient = p_self, p_administrator OR app_has_any_grant(p_org, p_patient))
$$;

CREATE OR REPLACE FUNCTION app_may_see_patient(p_org uuid, p_patient uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT p_org = app_org_id()
     AND app_may_see_patient_as(p_org, p_patient, app_patient_self_id(),
                                app_has_scope('grant:write') OR app_has_scope('patient:write'))
$$;
