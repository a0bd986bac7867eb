"""Idempotency-Key records: the first successful response to a creating POST, bound to the caller (organisation
and subject) and to a hash of the request, written in the creation's own transaction. Under RLS: a caller reads
and writes only their own keys. Responses are stored encrypted (they can hold a memory's value) and removed by
``manage.py sweep_idempotency_keys`` once older than IDEMPOTENCY_KEY_RETENTION_HOURS."""

from django.db import migrations

FORWARD = r"""
CREATE TABLE idempotency_record (
  organization_id uuid NOT NULL,
  actor_sub text NOT NULL,
  idempotency_key text NOT NULL CHECK (idempotency_key ~ '^[A-Za-z0-9._:-]{1,100}$'),
  request_hash text NOT NULL CHECK (length(request_hash) = 64),
  response_status smallint NOT NULL CHECK (response_status BETWEEN 200 AND 299),
  response_body bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, actor_sub, idempotency_key)
);
CREATE INDEX idempotency_record_created ON idempotency_record (created_at);
ALTER TABLE idempotency_record ENABLE ROW LEVEL SECURITY;
ALTER TABLE idempotency_record FORCE ROW LEVEL SECURITY;
CREATE POLICY idempotency_record_own ON idempotency_record
  USING (organization_id = (SELECT app_org_id()) AND actor_sub = (SELECT app_actor_sub()))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND actor_sub = (SELECT app_actor_sub()));
-- The sweep (a maintenance identity, app.maintenance = 'idempotency') removes expired records of every caller.
CREATE POLICY idempotency_record_sweep_read ON idempotency_record FOR SELECT
  USING ((SELECT app_setting('app.maintenance')) = 'idempotency');
CREATE POLICY idempotency_record_sweep ON idempotency_record FOR DELETE
  USING ((SELECT app_setting('app.maintenance')) = 'idempotency');
REVOKE UPDATE, TRUNCATE ON idempotency_record FROM anamnesis_runtime;
GRANT SELECT, INSERT, DELETE ON idempotency_record TO anamnesis_runtime;
"""

REVERSE = r"""
DROP TABLE IF EXISTS idempotency_record;
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0008_api_rate_counter_i11b")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
