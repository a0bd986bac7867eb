"""Applies consent/sql/access_rule.sql again, and every policy that asks the access rule reads the caller's identity
once per statement.

The rule for a row of the caller's organisation is now ``app_may_access_as``, given the identity; ``app_may_access``
tests the organisation and asks it with the settings. The policies (consents, memories and what hangs off them,
workflows, conversations), which test the organisation first, ask ``app_may_access_as`` with each setting as a
scalar sub-select (an InitPlan, evaluated once per statement), and the maintenance discovery policies read
``app.maintenance`` the same way. Through ``app_may_access``, and with ``app_setting(...)`` called bare, every row read
the settings again (``current_setting`` and a uuid cast, four or five times a row): about a fifth of the database's
CPU for a list of 100 memories. One migration, since the rule and the policies that ask it change together. Whom the
rule admits is unchanged (where it answered NULL, which denies, it answers false). Reversed, the policies are as
before; the functions stay, as in 0007: they decide as before."""

from pathlib import Path

from django.db import migrations

SQL = (Path(__file__).resolve().parent.parent / "sql" / "access_rule.sql").read_text()

# The caller's identity for app_may_access_as, each setting a scalar sub-select: an InitPlan, read once per statement.
IDENTITY = "(SELECT app_patient_self_id()), (SELECT app_service_patient_id()), (SELECT app_service_purpose())"

FORWARD = f"""
ALTER POLICY consent_scope ON patient_consent
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
ALTER POLICY embedding_scope ON memory_embedding
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
ALTER POLICY lifecycle_event_append ON memory_lifecycle_event
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY}) AND ((actor_sub)::text = ( SELECT app_actor_sub() AS app_actor_sub))));
ALTER POLICY lifecycle_event_read ON memory_lifecycle_event
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
ALTER POLICY release_scope ON memory_release
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY}) AND ((actor_sub)::text = ( SELECT app_actor_sub() AS app_actor_sub))));
ALTER POLICY release_member_scope ON memory_release_member
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
ALTER POLICY representation_scope ON memory_representation
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
ALTER POLICY memory_key_rotation_discovery ON patient_memory
  USING ((((SELECT app_setting('app.maintenance')) = 'key_rotation'::text) AND (fact_ciphertext IS NOT NULL) AND ((fact_key_id)::text IS DISTINCT FROM (SELECT app_setting('app.active_key_id')))));
ALTER POLICY memory_reindex_discovery ON patient_memory
  USING ((((SELECT app_setting('app.maintenance')) = 'reindex'::text) AND ((state)::text = ANY ((ARRAY['active'::character varying, 'proposed'::character varying, 'quarantined'::character varying])::text[]))));
ALTER POLICY memory_scope ON patient_memory
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (consent_purpose)::text, {IDENTITY})))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (consent_purpose)::text, {IDENTITY})));
ALTER POLICY memory_sweep_discovery ON patient_memory
  USING ((((SELECT app_setting('app.maintenance')) = 'memory_sweep'::text) AND ((state)::text <> 'deleted'::text) AND ((expires_at <= statement_timestamp()) OR (((state)::text = ANY ((ARRAY['active'::character varying, 'proposed'::character varying, 'quarantined'::character varying])::text[])) AND (valid_until <= statement_timestamp())))));
ALTER POLICY workflow_scope ON agent_workflow
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
ALTER POLICY workflow_sweep_discovery ON agent_workflow
  USING ((((SELECT app_setting('app.maintenance')) = 'workflow_sweep'::text) AND ((current_step)::text = ANY ((ARRAY['completed'::character varying, 'cancelled'::character varying])::text[])) AND (NOT (state ? '_redacted'::text))));
ALTER POLICY workflow_transition_append ON agent_workflow_transition
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY}) AND ((actor_sub)::text = ( SELECT app_actor_sub() AS app_actor_sub))));
ALTER POLICY workflow_transition_read ON agent_workflow_transition
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
ALTER POLICY consent_lapse_discovery ON patient_consent
  USING ((((SELECT app_setting('app.maintenance')) = 'workflow_sweep'::text) AND (((status)::text = 'revoked'::text) OR (expires_at IS NOT NULL))));
ALTER POLICY operation_lapse_discovery ON workflow_operation
  USING ((((SELECT app_setting('app.maintenance')) = 'workflow_sweep'::text) AND ((status)::text = ANY ((ARRAY['pending'::character varying, 'outcome_unknown'::character varying])::text[])) AND (withdrawn_reason IS NULL)));
ALTER POLICY operation_scope ON workflow_operation
  USING (((( SELECT app_org_id() AS app_org_id) IS NOT NULL) AND (organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})))
  WITH CHECK (((( SELECT app_org_id() AS app_org_id) IS NOT NULL) AND (organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
ALTER POLICY operation_sweep_discovery ON workflow_operation
  USING ((((SELECT app_setting('app.maintenance')) = 'workflow_sweep'::text) AND ((status)::text = ANY ((ARRAY['succeeded'::character varying, 'failed'::character varying, 'cancelled'::character varying])::text[])) AND (payload <> '{{"_redacted": true}}'::jsonb)));
ALTER POLICY conversation_session_erase ON conversation_session
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY}) AND ((patient_id)::text = ( SELECT app_setting('app.erasure_patient'::text) AS app_setting))));
ALTER POLICY conversation_session_purge ON conversation_session
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY}) AND conversation_session_due((status)::text, expires_at, retain_until)));
ALTER POLICY conversation_session_read ON conversation_session
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
ALTER POLICY conversation_session_start ON conversation_session
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY}) AND ((created_by)::text = ( SELECT app_actor_sub() AS app_actor_sub))));
ALTER POLICY conversation_session_sweep_discovery ON conversation_session
  USING ((((SELECT app_setting('app.maintenance')) = 'session_sweep'::text) AND conversation_session_due((status)::text, expires_at, retain_until)));
ALTER POLICY conversation_session_write ON conversation_session
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
ALTER POLICY conversation_turn_append ON conversation_turn
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY}) AND ((created_by)::text = ( SELECT app_actor_sub() AS app_actor_sub))));
ALTER POLICY conversation_turn_clear ON conversation_turn
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
ALTER POLICY conversation_turn_erase ON conversation_turn
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY}) AND ((patient_id)::text = ( SELECT app_setting('app.erasure_patient'::text) AS app_setting))));
ALTER POLICY conversation_turn_purge ON conversation_turn
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY}) AND (EXISTS ( SELECT 1
   FROM conversation_session s
  WHERE ((s.session_id = conversation_turn.session_id) AND conversation_session_due((s.status)::text, s.expires_at, s.retain_until))))));
ALTER POLICY conversation_turn_read ON conversation_turn
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(organization_id, patient_id, (purpose)::text, {IDENTITY})));
"""

REVERSE = """
ALTER POLICY consent_scope ON patient_consent
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
ALTER POLICY embedding_scope ON memory_embedding
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
ALTER POLICY lifecycle_event_append ON memory_lifecycle_event
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text) AND ((actor_sub)::text = ( SELECT app_actor_sub() AS app_actor_sub))));
ALTER POLICY lifecycle_event_read ON memory_lifecycle_event
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
ALTER POLICY release_scope ON memory_release
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text) AND ((actor_sub)::text = ( SELECT app_actor_sub() AS app_actor_sub))));
ALTER POLICY release_member_scope ON memory_release_member
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
ALTER POLICY representation_scope ON memory_representation
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
ALTER POLICY memory_key_rotation_discovery ON patient_memory
  USING (((app_setting('app.maintenance'::text) = 'key_rotation'::text) AND (fact_ciphertext IS NOT NULL) AND ((fact_key_id)::text IS DISTINCT FROM app_setting('app.active_key_id'::text))));
ALTER POLICY memory_reindex_discovery ON patient_memory
  USING (((app_setting('app.maintenance'::text) = 'reindex'::text) AND ((state)::text = ANY ((ARRAY['active'::character varying, 'proposed'::character varying, 'quarantined'::character varying])::text[]))));
ALTER POLICY memory_scope ON patient_memory
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (consent_purpose)::text)))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (consent_purpose)::text)));
ALTER POLICY memory_sweep_discovery ON patient_memory
  USING (((app_setting('app.maintenance'::text) = 'memory_sweep'::text) AND ((state)::text <> 'deleted'::text) AND ((expires_at <= statement_timestamp()) OR (((state)::text = ANY ((ARRAY['active'::character varying, 'proposed'::character varying, 'quarantined'::character varying])::text[])) AND (valid_until <= statement_timestamp())))));
ALTER POLICY workflow_scope ON agent_workflow
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
ALTER POLICY workflow_sweep_discovery ON agent_workflow
  USING (((app_setting('app.maintenance'::text) = 'workflow_sweep'::text) AND ((current_step)::text = ANY ((ARRAY['completed'::character varying, 'cancelled'::character varying])::text[])) AND (NOT (state ? '_redacted'::text))));
ALTER POLICY workflow_transition_append ON agent_workflow_transition
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text) AND ((actor_sub)::text = ( SELECT app_actor_sub() AS app_actor_sub))));
ALTER POLICY workflow_transition_read ON agent_workflow_transition
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
ALTER POLICY consent_lapse_discovery ON patient_consent
  USING (((app_setting('app.maintenance'::text) = 'workflow_sweep'::text) AND (((status)::text = 'revoked'::text) OR (expires_at IS NOT NULL))));
ALTER POLICY operation_lapse_discovery ON workflow_operation
  USING (((app_setting('app.maintenance'::text) = 'workflow_sweep'::text) AND ((status)::text = ANY ((ARRAY['pending'::character varying, 'outcome_unknown'::character varying])::text[])) AND (withdrawn_reason IS NULL)));
ALTER POLICY operation_scope ON workflow_operation
  USING (((( SELECT app_org_id() AS app_org_id) IS NOT NULL) AND (organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)))
  WITH CHECK (((( SELECT app_org_id() AS app_org_id) IS NOT NULL) AND (organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
ALTER POLICY operation_sweep_discovery ON workflow_operation
  USING (((app_setting('app.maintenance'::text) = 'workflow_sweep'::text) AND ((status)::text = ANY ((ARRAY['succeeded'::character varying, 'failed'::character varying, 'cancelled'::character varying])::text[])) AND (payload <> '{"_redacted": true}'::jsonb)));
ALTER POLICY conversation_session_erase ON conversation_session
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text) AND ((patient_id)::text = ( SELECT app_setting('app.erasure_patient'::text) AS app_setting))));
ALTER POLICY conversation_session_purge ON conversation_session
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text) AND conversation_session_due((status)::text, expires_at, retain_until)));
ALTER POLICY conversation_session_read ON conversation_session
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
ALTER POLICY conversation_session_start ON conversation_session
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text) AND ((created_by)::text = ( SELECT app_actor_sub() AS app_actor_sub))));
ALTER POLICY conversation_session_sweep_discovery ON conversation_session
  USING (((app_setting('app.maintenance'::text) = 'session_sweep'::text) AND conversation_session_due((status)::text, expires_at, retain_until)));
ALTER POLICY conversation_session_write ON conversation_session
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
ALTER POLICY conversation_turn_append ON conversation_turn
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text) AND ((created_by)::text = ( SELECT app_actor_sub() AS app_actor_sub))));
ALTER POLICY conversation_turn_clear ON conversation_turn
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)))
  WITH CHECK (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
ALTER POLICY conversation_turn_erase ON conversation_turn
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text) AND ((patient_id)::text = ( SELECT app_setting('app.erasure_patient'::text) AS app_setting))));
ALTER POLICY conversation_turn_purge ON conversation_turn
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text) AND (EXISTS ( SELECT 1
   FROM conversation_session s
  WHERE ((s.session_id = conversation_turn.session_id) AND conversation_session_due((s.status)::text, s.expires_at, s.retain_until))))));
ALTER POLICY conversation_turn_read ON conversation_turn
  USING (((organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access(organization_id, patient_id, (purpose)::text)));
"""


class Migration(migrations.Migration):
    dependencies = [("consent", "0007_grant_check_keeps_its_plan"), ("memory", "0017_proposals_made_before_lapse"),
                    ("workflows", "0019_sweep_discovers_lapsed_operations"),
                    ("conversations", "0006_session_turn_agent_client_id")]
    operations = [migrations.RunSQL(SQL, migrations.RunSQL.noop), migrations.RunSQL(FORWARD, REVERSE)]
