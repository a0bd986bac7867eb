"""Ready for Citus (docs/scaling.md section 2): the audit trail's primary key includes organization_id, the
distribution column, as (id, organization_id). No other key or constraint changes; nothing references it. The
idempotency records' key already leads with organization_id."""

from django.db import migrations

FORWARD = """
ALTER TABLE audit_event DROP CONSTRAINT audit_event_pkey,
  ADD CONSTRAINT audit_event_pkey PRIMARY KEY (id, organization_id);
"""

REVERSE = """
ALTER TABLE audit_event DROP CONSTRAINT audit_event_pkey,
  ADD CONSTRAINT audit_event_pkey PRIMARY KEY (id);
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0008_sweep_run_i17")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
