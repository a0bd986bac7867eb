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
-- * app_may_access_as is the rule's part for one row of the caller's organisation, given the caller's identity (the
--   patient it acts as, the service identity's patient and purpose); app_may_access tests the organisation and asks
--   it with the settings. Neither has a sub-query of its own, so the planner inlines them. Every policy tests the
--   organisation first, as a scalar sub-select used as an index condition, then calls app_may_access_as with each
--   setting as a scalar sub-select, evaluated once per statement (an InitPlan): through app_may_access, every row
--   read its settings again (current_setting and a uuid cast, four or five times a row), about a fifth of the
--   database's CPU for a list of 100 memories. Each identity argument is used once in the body (PostgreSQL does not
--   inline a call whose sub-select argument it would copy), which is why it reads COALESCE(p_patient = p_self,
--   grant): the patient's own row when the caller acts as a patient (p_self set; then never a grant), the grant
--   when it does not (p_self NULL), asked after the service identity's row. An InitPlan costs the planner more
--   than reading a setting for one row, so there are as few as the rule needs: three;
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

CREATE OR REPLACE FUNCTION app_may_access_as(p_org uuid, p_patient uuid, p_purpose text, p_self uuid,
                                             p_service_patient uuid, p_service_purpose text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT (p_patient = p_service_patient AND p_purpose = p_service_purpose)
      OR COALESCE(p_patient = p_self, app_has_grant(p_org, p_patient, p_purpose))
$$;

CREATE OR REPLACE FUNCTION app_may_access(p_org uuid, p_patient uuid, p_purpose text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT p_org = app_org_id()
     AND app_may_access_as(p_org, p_patient, p_purpose, app_patient_self_id(), app_service_patient_id(),
                           app_service_purpose())
$$;
