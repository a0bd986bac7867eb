"""Lifecycle invariants in the database.

* memory state moves only along the transition table (a trigger refuses any other move, and new rows start as
  proposed or active);
* lifecycle events are append-only (UPDATE, DELETE, TRUNCATE refused even for the owner);
* RLS on lifecycle events, representations and deletion receipts;
* a narrow discovery policy for the retention sweep: when app.maintenance = 'memory_sweep' a SELECT sees only
  rows that are due (past validity or retention); the sweep then processes each one under a service identity.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION memory_state_transition_allowed(p_from text, p_to text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT (p_from, p_to) IN (
    ('proposed', 'active'), ('proposed', 'deleted'), ('proposed', 'expired'),
    ('active', 'superseded'), ('active', 'expired'), ('active', 'quarantined'), ('active', 'deleted'),
    ('quarantined', 'superseded'), ('quarantined', 'expired'), ('quarantined', 'deleted'),
    ('superseded', 'deleted'),
    ('expired', 'deleted'))
$$;

CREATE FUNCTION memory_enforce_state_transition() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.state NOT IN ('proposed', 'active') THEN
      RAISE EXCEPTION 'a memory starts as proposed or active, not %', NEW.state USING ERRCODE = 'check_violation';
    END IF;
  ELSIF NEW.state IS DISTINCT FROM OLD.state
        AND NOT memory_state_transition_allowed(OLD.state, NEW.state) THEN
    RAISE EXCEPTION 'illegal memory state transition % -> %', OLD.state, NEW.state
      USING ERRCODE = 'check_violation';
  ELSIF OLD.state = 'deleted' AND NEW IS DISTINCT FROM OLD THEN
    RAISE EXCEPTION 'a deleted memory is a tombstone' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER memory_state_transition BEFORE INSERT OR UPDATE ON patient_memory
  FOR EACH ROW EXECUTE FUNCTION memory_enforce_state_transition();

CREATE POLICY memory_sweep_discovery ON patient_memory FOR SELECT
  USING (app_setting('app.maintenance') = 'memory_sweep'
         AND state <> 'deleted'
         AND (expires_at <= statement_timestamp()
              OR (state IN ('active', 'proposed', 'quarantined') AND valid_until <= statement_timestamp())));

-- Key rotation discovers ciphertexts under any key other than the active one (ids only are used).
CREATE POLICY memory_key_rotation_discovery ON patient_memory FOR SELECT
  USING (app_setting('app.maintenance') = 'key_rotation'
         AND fact_ciphertext IS NOT NULL AND fact_key_id IS DISTINCT FROM app_setting('app.active_key_id'));

CREATE TRIGGER lifecycle_event_append_only BEFORE UPDATE OR DELETE ON memory_lifecycle_event
  FOR EACH ROW EXECUTE FUNCTION reject_append_only_mutation();
CREATE TRIGGER lifecycle_event_no_truncate BEFORE UPDATE OR DELETE OR TRUNCATE ON memory_lifecycle_event
  FOR EACH STATEMENT EXECUTE FUNCTION reject_append_only_mutation();
REVOKE UPDATE, DELETE, TRUNCATE ON memory_lifecycle_event FROM anamnesis_runtime;
ALTER TABLE memory_lifecycle_event ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_lifecycle_event FORCE ROW LEVEL SECURITY;
CREATE POLICY lifecycle_event_read ON memory_lifecycle_event FOR SELECT
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose));
CREATE POLICY lifecycle_event_append ON memory_lifecycle_event FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose)
              AND actor_sub = (SELECT app_actor_sub()));

ALTER TABLE memory_representation ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_representation FORCE ROW LEVEL SECURITY;
CREATE POLICY representation_scope ON memory_representation
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose));
REVOKE DELETE, TRUNCATE ON memory_representation FROM anamnesis_runtime;

ALTER TABLE memory_deletion ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_deletion FORCE ROW LEVEL SECURITY;
CREATE POLICY deletion_scope ON memory_deletion
  USING (organization_id = (SELECT app_org_id())
         AND (patient_id = (SELECT app_patient_self_id()) OR requested_by = (SELECT app_actor_sub())))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND requested_by = (SELECT app_actor_sub()));
REVOKE DELETE, TRUNCATE ON memory_deletion FROM anamnesis_runtime;
"""

REVERSE = r"""
GRANT DELETE ON memory_deletion TO anamnesis_runtime;
DROP POLICY IF EXISTS deletion_scope ON memory_deletion;
ALTER TABLE memory_deletion NO FORCE ROW LEVEL SECURITY;
ALTER TABLE memory_deletion DISABLE ROW LEVEL SECURITY;
GRANT DELETE ON memory_representation TO anamnesis_runtime;
DROP POLICY IF EXISTS representation_scope ON memory_representation;
ALTER TABLE memory_representation NO FORCE ROW LEVEL SECURITY;
ALTER TABLE memory_representation DISABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS lifecycle_event_append ON memory_lifecycle_event;
DROP POLICY IF EXISTS lifecycle_event_read ON memory_lifecycle_event;
ALTER TABLE memory_lifecycle_event NO FORCE ROW LEVEL SECURITY;
ALTER TABLE memory_lifecycle_event DISABLE ROW LEVEL SECURITY;
GRANT UPDATE, DELETE ON memory_lifecycle_event TO anamnesis_runtime;
DROP TRIGGER IF EXISTS lifecycle_event_no_truncate ON memory_lifecycle_event;
DROP TRIGGER IF EXISTS lifecycle_event_append_only ON memory_lifecycle_event;
DROP POLICY IF EXISTS memory_key_rotation_discovery ON patient_memory;
DROP POLICY IF EXISTS memory_sweep_discovery ON patient_memory;
DROP TRIGGER IF EXISTS memory_state_transition ON patient_memory;
DROP FUNCTION IF EXISTS memory_enforce_state_transition();
DROP FUNCTION IF EXISTS memory_state_transition_allowed(text, text);
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0003_lifecycle_tables"), ("core", "0004_service_identity")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
