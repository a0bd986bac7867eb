"""Retention of the event outbox: ``manage.py sweep_events`` removes events past ``EVENT_RETENTION_DAYS`` whose
deliveries are all settled, with those deliveries.

Events keep ids, not values, but a patient's id stays in ``event_outbox`` until they go: without a sweep it stayed
after the patient's erasure for ever. The sweep is a maintenance identity (``app.maintenance = 'event_retention'``,
no organisation): these policies let it see and delete events past the retention, and their deliveries that no
longer wait for an attempt, and nothing else. The database's clock decides what is due, not the caller's.
"""

from django.db import migrations

FORWARD = r"""
CREATE INDEX event_outbox_occurred ON event_outbox (occurred_at);

CREATE POLICY event_outbox_retention_read ON event_outbox FOR SELECT
  USING ((SELECT app_setting('app.maintenance')) = 'event_retention');
CREATE POLICY event_outbox_retention ON event_outbox FOR DELETE
  USING ((SELECT app_setting('app.maintenance')) = 'event_retention'
         AND occurred_at < now() - make_interval(days => 1));
GRANT DELETE ON event_outbox TO anamnesis_runtime;

CREATE POLICY event_delivery_retention_read ON event_delivery FOR SELECT
  USING ((SELECT app_setting('app.maintenance')) = 'event_retention');
CREATE POLICY event_delivery_retention ON event_delivery FOR DELETE
  USING ((SELECT app_setting('app.maintenance')) = 'event_retention' AND status IN ('delivered', 'failed'));
"""

REVERSE = r"""
DROP POLICY IF EXISTS event_delivery_retention ON event_delivery;
DROP POLICY IF EXISTS event_delivery_retention_read ON event_delivery;
REVOKE DELETE ON event_outbox FROM anamnesis_runtime;
DROP POLICY IF EXISTS event_outbox_retention ON event_outbox;
DROP POLICY IF EXISTS event_outbox_retention_read ON event_outbox;
DROP INDEX IF EXISTS event_outbox_occurred;
"""


class Migration(migrations.Migration):
    dependencies = [("events", "0003_citus_keys")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
