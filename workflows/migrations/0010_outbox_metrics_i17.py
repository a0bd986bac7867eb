"""Outbox depth and age for /metrics, across organisations, as aggregates only.

``workflow_outbox_stats`` (owned by the migrating role, like ``workflow_operation_dispatch``) counts unsettled
operations per outside system and status, with the age of the oldest. Its policy is granted TO the view's owner, so
it applies only through the view, and only in a transaction that set ``app.metrics = 'outbox'``: the runtime role
sees counts and ages, never a row, an id or a payload.
"""

from django.db import migrations

FORWARD = r"""
CREATE POLICY operation_metrics_read ON workflow_operation FOR SELECT TO CURRENT_USER
  USING ((SELECT app_setting('app.metrics')) = 'outbox'
         AND status IN ('pending', 'in_flight', 'outcome_unknown'));
CREATE VIEW workflow_outbox_stats AS
  SELECT system, status, count(*) AS depth,
         COALESCE(EXTRACT(EPOCH FROM statement_timestamp() - min(created_at)), 0)::double precision
           AS oldest_age_seconds
    FROM workflow_operation
   WHERE status IN ('pending', 'in_flight', 'outcome_unknown')
   GROUP BY system, status;
REVOKE ALL ON workflow_outbox_stats FROM anamnesis_runtime;
GRANT SELECT ON workflow_outbox_stats TO anamnesis_runtime;
"""

REVERSE = r"""
DROP VIEW IF EXISTS workflow_outbox_stats;
DROP POLICY IF EXISTS operation_metrics_read ON workflow_operation;
"""


class Migration(migrations.Migration):
    dependencies = [("workflows", "0009_workflow_sweep_discovery_i17")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
