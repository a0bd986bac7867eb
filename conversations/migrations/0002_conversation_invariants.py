"""Conversation invariants in the database.

* ``expires_at`` is computed by trigger (sliding idle expiry, capped by the absolute limit), so no code path can
  extend a session past its limit or forget to slide it;
* a session never changes organisation, patient, purpose, creator or limits; it leaves ``active`` once, for
  ``completed`` or ``abandoned``; an ended session is frozen;
* a turn belongs to a session of the same organisation, patient and purpose (composite foreign key), goes only
  into an active, unexpired session, and is never rewritten: the one update allowed clears a tool turn's result;
* hard size bounds on turn content and tool results (the API applies stricter, configurable ones).
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION conversation_session_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'active' THEN
      RAISE EXCEPTION 'a conversation starts active' USING ERRCODE = 'check_violation';
    END IF;
  ELSE
    IF (NEW.session_id, NEW.organization_id, NEW.patient_id, NEW.purpose, NEW.created_by, NEW.created_at,
        NEW.idle_timeout, NEW.absolute_expires_at)
       IS DISTINCT FROM
       (OLD.session_id, OLD.organization_id, OLD.patient_id, OLD.purpose, OLD.created_by, OLD.created_at,
        OLD.idle_timeout, OLD.absolute_expires_at) THEN
      RAISE EXCEPTION 'a conversation keeps its patient, purpose and limits' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> 'active' THEN
      RAISE EXCEPTION 'an ended conversation is frozen' USING ERRCODE = 'check_violation';
    END IF;
  END IF;
  IF NEW.idle_timeout <= interval '0' THEN
    RAISE EXCEPTION 'idle timeout must be positive' USING ERRCODE = 'check_violation';
  END IF;
  NEW.expires_at := LEAST(NEW.last_activity_at + NEW.idle_timeout, NEW.absolute_expires_at);
  RETURN NEW;
END $$;

CREATE TRIGGER conversation_session_guard BEFORE INSERT OR UPDATE ON conversation_session
  FOR EACH ROW EXECUTE FUNCTION conversation_session_guard();

ALTER TABLE conversation_session
  ADD CONSTRAINT conversation_session_scope_key UNIQUE (session_id, organization_id, patient_id, purpose);
ALTER TABLE conversation_turn
  ADD CONSTRAINT conversation_turn_same_scope FOREIGN KEY (session_id, organization_id, patient_id, purpose)
  REFERENCES conversation_session (session_id, organization_id, patient_id, purpose);
ALTER TABLE conversation_turn
  ADD CONSTRAINT conversation_turn_content_bounded CHECK (char_length(content) <= 32000),
  ADD CONSTRAINT conversation_turn_tool_result_bounded
    CHECK (tool_result IS NULL OR octet_length(tool_result::text) <= 65536);

CREATE FUNCTION conversation_turn_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT EXISTS (SELECT 1 FROM conversation_session s
                    WHERE s.session_id = NEW.session_id AND s.status = 'active'
                      AND s.expires_at > statement_timestamp()) THEN
      RAISE EXCEPTION 'turns go only into an active, unexpired conversation' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  -- The only update: a tool turn's result is cleared (on completion, abandonment or expiry).
  IF OLD.role <> 'tool' OR NEW.tool_result IS NOT NULL OR NEW.content <> ''
     OR (NEW.turn_id, NEW.session_id, NEW.organization_id, NEW.patient_id, NEW.purpose, NEW.seq, NEW.role,
         NEW.tool_name, NEW.parsed, NEW.token_count, NEW.created_by, NEW.created_at)
        IS DISTINCT FROM
        (OLD.turn_id, OLD.session_id, OLD.organization_id, OLD.patient_id, OLD.purpose, OLD.seq, OLD.role,
         OLD.tool_name, OLD.parsed, OLD.token_count, OLD.created_by, OLD.created_at) THEN
    RAISE EXCEPTION 'conversation turns are not rewritten; only tool results are cleared'
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER conversation_turn_guard BEFORE INSERT OR UPDATE ON conversation_turn
  FOR EACH ROW EXECUTE FUNCTION conversation_turn_guard();
"""

REVERSE = r"""
DROP TRIGGER IF EXISTS conversation_turn_guard ON conversation_turn;
DROP FUNCTION IF EXISTS conversation_turn_guard();
ALTER TABLE conversation_turn DROP CONSTRAINT IF EXISTS conversation_turn_tool_result_bounded;
ALTER TABLE conversation_turn DROP CONSTRAINT IF EXISTS conversation_turn_content_bounded;
ALTER TABLE conversation_turn DROP CONSTRAINT IF EXISTS conversation_turn_same_scope;
ALTER TABLE conversation_session DROP CONSTRAINT IF EXISTS conversation_session_scope_key;
DROP TRIGGER IF EXISTS conversation_session_guard ON conversation_session;
DROP FUNCTION IF EXISTS conversation_session_guard();
"""


class Migration(migrations.Migration):
    dependencies = [("conversations", "0001_initial")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
