-- The memory lifecycle's transition table in the database, the twin of memory.lifecycle.TRANSITIONS.
--
-- This file is the current definition. Migrations apply it (memory 0007_state_transition_current); tests check that
-- the live functions match this file and that the live table allows exactly the moves TRANSITIONS allows.
-- To change it: edit TRANSITIONS and this file together, and add a migration that applies the file.

CREATE OR REPLACE FUNCTION memory_state_transition_allowed(p_from text, p_to text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT (p_from, p_to) IN (
    ('proposed', 'active'), ('proposed', 'deleted'), ('proposed', 'expired'),
    ('active', 'superseded'), ('active', 'expired'), ('active', 'quarantined'), ('active', 'deleted'),
    ('quarantined', 'active'), ('quarantined', 'superseded'), ('quarantined', 'expired'), ('quarantined', 'deleted'),
    ('superseded', 'active'), ('superseded', 'deleted'),
    ('expired', 'deleted'))
$$;

CREATE OR REPLACE FUNCTION memory_enforce_state_transition() RETURNS trigger
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
