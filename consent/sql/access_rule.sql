-- The access rule, shared by every patient-scoped policy: the patient themself, a service identity acting for
-- exactly this patient and purpose, or a staff subject with an active, unexpired, unrevoked grant for exactly this
-- purpose; always inside the caller's organisation. Grants are staff's: an identity acting as a patient (a
-- patient's token, or an agent's in a patient's context) reaches that patient only, whatever grants its subject
-- holds, as in the directory's rule (directory/sql/visibility_rule.sql).
--
-- This file is the current definition. Migrations apply it (consent 0003_access_rule_current); a test checks that
-- the database's live functions match it. To change the rule: edit this file and add a migration that applies it.
--
-- * parameters are prefixed (p_*) so they never resolve to a column of the same name;
-- * app_may_access has no sub-query of its own, so the planner inlines it into each policy; policies put the
--   organisation test first as a scalar sub-select, evaluated once per statement (an InitPlan) and used as an
--   index condition, before the per-row part of the rule;
-- * app_has_grant holds the sub-query (not inlinable), so it is reached only for rows already in the caller's
--   organisation that are neither the caller's own nor the service identity's. It is PL/pgSQL so that the session
--   keeps its query's plan: as an SQL function that PostgreSQL cannot inline, its body was planned again in every
--   statement that asked it (about 100 us of the database's CPU each time: a staff list of 20 memories, its consents
--   and its audit row cost 2.5 ms of backend CPU, 1.5 ms since; consent 0007).

CREATE OR REPLACE FUNCTION app_has_grant(p_org uuid, p_patient uuid, p_purpose text) RETURNS boolean
LANGUAGE plpgsql STABLE
AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM patient_access_grants g
                  WHERE g.organization_id = p_org
                    AND g.patient_id = p_patient
                    AND g.actor_sub = app_actor_sub()
                    AND g.purpose = p_purpose
                    AND g.revoked_at IS NULL
                    AND (g.expires_at IS NULL OR g.expires_at > now()));
END
$$;

CREATE OR REPLACE FUNCTION app_may_access(p_org uuid, p_patient uuid, p_purpose text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT p_org = app_org_id()
     AND (p_patient = app_patient_self_id()
          OR (p_patient = app_service_patient_id() AND p_purpose = app_service_purpose())
          OR (app_patient_self_id() IS NULL AND app_has_grant(p_org, p_patient, p_purpose)))
$$;
