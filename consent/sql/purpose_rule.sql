-- The purpose-of-use rule of a read: the caller may read this patient's records for this purpose. The patient in
-- person always may (their own record); an agent acting in a patient's context only while the patient's consent for
-- that purpose is in force; staff while they hold a grant for it; a service identity for its one purpose. Anything
-- else is refused by raising SQLSTATE 'AP403' (the API's 403 ``purpose_not_permitted``), so a read that carries
-- this call in its audit row's outcome stops before it returns a row, in the same statement and round trip.
--
-- This file is the current definition. Migrations apply it (consent 0006_purpose_rule); a test checks that the
-- database's live function matches it. To change the rule: edit this file and add a migration that applies it.
--
-- p_consent: the caller acts in a patient's context as an agent (the application knows; the database does not).
-- The consent sub-query runs under RLS as the caller, who sees their own patient's consents.

CREATE OR REPLACE FUNCTION app_require_purpose(p_org uuid, p_patient uuid, p_purpose text, p_consent boolean)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
BEGIN
  IF COALESCE(app_may_access(p_org, p_patient, p_purpose), false)
     AND (NOT p_consent OR EXISTS (
           SELECT 1 FROM patient_consent c
            WHERE c.organization_id = p_org
              AND c.patient_id = p_patient
              AND c.purpose = p_purpose
              AND c.status = 'granted'
              AND c.revoked_at IS NULL
              AND (c.expires_at IS NULL OR c.expires_at > now()))) THEN
    RETURN 'success';
  END IF;
  RAISE EXCEPTION 'purpose of use not permitted' USING ERRCODE = 'AP403';
END
$$;
