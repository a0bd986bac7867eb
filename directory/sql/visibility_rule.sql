-- Who may see a patient's directory entry (name, date of birth, identifiers): the patient themself; staff holding
-- any active grant for the patient (the directory is how they recognise whom they care for, whatever the
-- purpose); the organisation's administrators (grant:write or patient:write, never acting as a patient), who choose
-- patients when granting access. Always inside the caller's organisation.
--
-- This file is the current definition. Migrations apply it (directory 0002_directory_rls_i13); a test checks that
-- the database's live functions match it. To change the rule: edit this file and add a migration that applies it.

CREATE OR REPLACE FUNCTION app_has_any_grant(p_org uuid, p_patient uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT EXISTS (SELECT 1 FROM patient_access_grants g
                  WHERE g.organization_id = p_org
                    AND g.patient_id = p_patient
                    AND g.actor_sub = app_actor_sub()
                    AND g.revoked_at IS NULL
                    AND (g.expires_at IS NULL OR g.expires_at > now()))
$$;

CREATE OR REPLACE FUNCTION app_may_see_patient(p_org uuid, p_patient uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT p_org = app_org_id()
     AND (p_patient = app_patient_self_id()
          OR (app_patient_self_id() IS NULL
              AND (app_has_scope('grant:write') OR app_has_scope('patient:write')
                   OR app_has_any_grant(p_org, p_patient))))
$$;
