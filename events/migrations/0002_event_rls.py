"""Row-level security on the event tables, and the one way events are written: ``app_events_emit``.

* Subscriptions: an organisation's administrators (``webhook:admin``, not acting as a patient) read and write their
  own organisation's, and nobody else sees them.
* Events and deliveries are written only by ``app_events_emit`` (SECURITY DEFINER, fixed ``search_path``), called in
  the transaction of the change: for the caller's organisation (``app.org_id``) only, one event and one delivery per
  enabled subscription to its type, nothing when nobody subscribed. Its policies are granted TO the migrating role
  (the function's owner), so they apply only inside the function; FORCE ROW LEVEL SECURITY holds the owner to them.
  The runtime role may not insert into either table itself.
* The delivery worker has no organisation: while ``app.event_worker`` is set for its transaction it reads what it
  delivers (subscription, event, delivery) and updates deliveries. Administrators read their organisation's
  deliveries (status, attempts, last HTTP status) and delete them with a subscription.
"""

from django.db import migrations

FORWARD = r"""
ALTER TABLE event_subscription ENABLE ROW LEVEL SECURITY;
ALTER TABLE event_subscription FORCE ROW LEVEL SECURITY;
ALTER TABLE event_outbox ENABLE ROW LEVEL SECURITY;
ALTER TABLE event_outbox FORCE ROW LEVEL SECURITY;
ALTER TABLE event_delivery ENABLE ROW LEVEL SECURITY;
ALTER TABLE event_delivery FORCE ROW LEVEL SECURITY;

CREATE POLICY event_subscription_admin ON event_subscription
  USING ((SELECT app_org_id()) IS NOT NULL AND organization_id = (SELECT app_org_id())
         AND (SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('webhook:admin')))
  WITH CHECK ((SELECT app_org_id()) IS NOT NULL AND organization_id = (SELECT app_org_id())
              AND (SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('webhook:admin')));
CREATE POLICY event_subscription_emit ON event_subscription FOR SELECT TO CURRENT_USER
  USING ((SELECT app_org_id()) IS NOT NULL AND organization_id = (SELECT app_org_id()) AND enabled);
CREATE POLICY event_subscription_worker ON event_subscription FOR SELECT
  USING ((SELECT app_setting('app.event_worker')) IS NOT NULL);

CREATE POLICY event_outbox_emit ON event_outbox FOR INSERT TO CURRENT_USER
  WITH CHECK ((SELECT app_org_id()) IS NOT NULL AND organization_id = (SELECT app_org_id()));
CREATE POLICY event_outbox_admin ON event_outbox FOR SELECT
  USING ((SELECT app_org_id()) IS NOT NULL AND organization_id = (SELECT app_org_id())
         AND (SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('webhook:admin')));
CREATE POLICY event_outbox_worker ON event_outbox FOR SELECT
  USING ((SELECT app_setting('app.event_worker')) IS NOT NULL);
REVOKE INSERT, UPDATE, DELETE ON event_outbox FROM anamnesis_runtime;

CREATE POLICY event_delivery_emit ON event_delivery FOR INSERT TO CURRENT_USER
  WITH CHECK ((SELECT app_org_id()) IS NOT NULL AND organization_id = (SELECT app_org_id()));
CREATE POLICY event_delivery_admin_read ON event_delivery FOR SELECT
  USING ((SELECT app_org_id()) IS NOT NULL AND organization_id = (SELECT app_org_id())
         AND (SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('webhook:admin')));
CREATE POLICY event_delivery_admin_delete ON event_delivery FOR DELETE
  USING ((SELECT app_org_id()) IS NOT NULL AND organization_id = (SELECT app_org_id())
         AND (SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('webhook:admin')));
CREATE POLICY event_delivery_worker_read ON event_delivery FOR SELECT
  USING ((SELECT app_setting('app.event_worker')) IS NOT NULL);
CREATE POLICY event_delivery_worker_update ON event_delivery FOR UPDATE
  USING ((SELECT app_setting('app.event_worker')) IS NOT NULL)
  WITH CHECK ((SELECT app_setting('app.event_worker')) IS NOT NULL);
REVOKE INSERT ON event_delivery FROM anamnesis_runtime;

-- One event per (type, data) pair, for the caller's organisation, with a delivery per enabled subscription to
-- the type; nothing at all when no subscription wants the type. Returns the number of deliveries queued.
-- PL/pgSQL, so its statements' plans are kept for the session; the common case (nobody subscribed) is one indexed
-- look-up.
CREATE OR REPLACE FUNCTION app_events_emit(p_types text[], p_data jsonb[]) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
  v_org uuid := app_org_id();
  v_queued integer;
BEGIN
  IF v_org IS NULL THEN
    RAISE EXCEPTION 'events are emitted for the organisation of an identity context' USING ERRCODE = '42501';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM event_subscription s
                  WHERE s.organization_id = v_org AND s.enabled AND s.event_types::text[] && p_types) THEN
    RETURN 0;
  END IF;
  WITH wanted AS MATERIALIZED (
    SELECT gen_random_uuid() AS event_id, t.event_type, t.data
      FROM unnest(p_types, p_data) AS t(event_type, data)
     WHERE EXISTS (SELECT 1 FROM event_subscription s
                    WHERE s.organization_id = v_org AND s.enabled AND t.event_type = ANY (s.event_types))),
  stored AS (
    INSERT INTO event_outbox (event_id, organization_id, event_type, data, occurred_at)
    SELECT event_id, v_org, event_type, data, now() FROM wanted),
  queued AS (
    INSERT INTO event_delivery (delivery_id, event_id, subscription_id, organization_id, status, attempts,
                                next_attempt_at, created_at, updated_at)
    SELECT gen_random_uuid(), w.event_id, s.subscription_id, s.organization_id, 'pending', 0, now(), now(), now()
      FROM wanted w
      JOIN event_subscription s ON s.organization_id = v_org AND s.enabled AND w.event_type = ANY (s.event_types)
    RETURNING 1)
  SELECT count(*)::integer INTO v_queued FROM queued;
  RETURN v_queued;
END
$$;
REVOKE EXECUTE ON FUNCTION app_events_emit(text[], jsonb[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app_events_emit(text[], jsonb[]) TO anamnesis_runtime;
"""

REVERSE = r"""
DROP FUNCTION IF EXISTS app_events_emit(text[], jsonb[]);
GRANT INSERT ON event_delivery TO anamnesis_runtime;
DROP POLICY IF EXISTS event_delivery_worker_update ON event_delivery;
DROP POLICY IF EXISTS event_delivery_worker_read ON event_delivery;
DROP POLICY IF EXISTS event_delivery_admin_delete ON event_delivery;
DROP POLICY IF EXISTS event_delivery_admin_read ON event_delivery;
DROP POLICY IF EXISTS event_delivery_emit ON event_delivery;
GRANT INSERT, UPDATE, DELETE ON event_outbox TO anamnesis_runtime;
DROP POLICY IF EXISTS event_outbox_worker ON event_outbox;
DROP POLICY IF EXISTS event_outbox_admin ON event_outbox;
DROP POLICY IF EXISTS event_outbox_emit ON event_outbox;
DROP POLICY IF EXISTS event_subscription_worker ON event_subscription;
DROP POLICY IF EXISTS event_subscription_emit ON event_subscription;
DROP POLICY IF EXISTS event_subscription_admin ON event_subscription;
ALTER TABLE event_delivery NO FORCE ROW LEVEL SECURITY;
ALTER TABLE event_delivery DISABLE ROW LEVEL SECURITY;
ALTER TABLE event_outbox NO FORCE ROW LEVEL SECURITY;
ALTER TABLE event_outbox DISABLE ROW LEVEL SECURITY;
ALTER TABLE event_subscription NO FORCE ROW LEVEL SECURITY;
ALTER TABLE event_subscription DISABLE ROW LEVEL SECURITY;
"""


class Migration(migrations.Migration):
    dependencies = [("events", "0001_event_tables")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
