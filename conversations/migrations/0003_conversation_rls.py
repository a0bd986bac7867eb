"""Row-level security on conversations and their turns: the common access rule for the session's purpose.

* reads and writes: the patient themself, or staff with a grant for exactly that purpose, in the caller's
  organisation (``app_may_access``); rows are created only in the caller's own name;
* DELETE only of rows that are due (an expired session, or an ended one past its retention), and with their turns:
  nobody deletes a live conversation, whatever the code does; no TRUNCATE for the runtime role;
* a narrow discovery policy for the sweep: when ``app.maintenance = 'session_sweep'`` a SELECT sees only due
  sessions; the sweep then processes each under a service identity scoped to its patient and purpose.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION conversation_session_due(p_status text, p_expires_at timestamptz, p_retain_until timestamptz)
RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN p_status = 'active' THEN p_expires_at <= statement_timestamp()
              ELSE p_retain_until <= statement_timestamp() END
$$;

ALTER TABLE conversation_session ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_session FORCE ROW LEVEL SECURITY;
CREATE POLICY conversation_session_read ON conversation_session FOR SELECT
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose));
CREATE POLICY conversation_session_start ON conversation_session FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose)
              AND created_by = (SELECT app_actor_sub()));
CREATE POLICY conversation_session_write ON conversation_session FOR UPDATE
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose));
CREATE POLICY conversation_session_purge ON conversation_session FOR DELETE
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose)
         AND conversation_session_due(status, expires_at, retain_until));
CREATE POLICY conversation_session_sweep_discovery ON conversation_session FOR SELECT
  USING (app_setting('app.maintenance') = 'session_sweep'
         AND conversation_session_due(status, expires_at, retain_until));
REVOKE TRUNCATE ON conversation_session FROM anamnesis_runtime;

ALTER TABLE conversation_turn ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_turn FORCE ROW LEVEL SECURITY;
CREATE POLICY conversation_turn_read ON conversation_turn FOR SELECT
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose));
CREATE POLICY conversation_turn_append ON conversation_turn FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose)
              AND created_by = (SELECT app_actor_sub()));
CREATE POLICY conversation_turn_clear ON conversation_turn FOR UPDATE
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose));
CREATE POLICY conversation_turn_purge ON conversation_turn FOR DELETE
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose)
         AND EXISTS (SELECT 1 FROM conversation_session s
                      WHERE s.session_id = conversation_turn.session_id
                        AND conversation_session_due(s.status, s.expires_at, s.retain_until)));
REVOKE TRUNCATE ON conversation_turn FROM anamnesis_runtime;
"""

REVERSE = r"""
DROP POLICY IF EXISTS conversation_turn_purge ON conversation_turn;
DROP POLICY IF EXISTS conversation_turn_clear ON conversation_turn;
DROP POLICY IF EXISTS conversation_turn_append ON conversation_turn;
DROP POLICY IF EXISTS conversation_turn_read ON conversation_turn;
ALTER TABLE conversation_turn NO FORCE ROW LEVEL SECURITY;
ALTER TABLE conversation_turn DISABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS conversation_session_sweep_discovery ON conversation_session;
DROP POLICY IF EXISTS conversation_session_purge ON conversation_session;
DROP POLICY IF EXISTS conversation_session_write ON conversation_session;
DROP POLICY IF EXISTS conversation_session_start ON conversation_session;
DROP POLICY IF EXISTS conversation_session_read ON conversation_session;
ALTER TABLE conversation_session NO FORCE ROW LEVEL SECURITY;
ALTER TABLE conversation_session DISABLE ROW LEVEL SECURITY;
DROP FUNCTION IF EXISTS conversation_session_due(text, timestamptz, timestamptz);
"""


class Migration(migrations.Migration):
    dependencies = [("conversations", "0002_conversation_invariants"), ("core", "0004_service_identity"), ("consent", "0002_enable_rls")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
