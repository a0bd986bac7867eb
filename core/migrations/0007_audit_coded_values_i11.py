"""audit_event holds only coded values: the database refuses free text in every column a request could reach.

Purposes and actor kinds come from closed sets; actions, resource types and reasons match a code pattern; resource
ids and correlation ids a short id pattern; subjects and agent client ids carry no control characters. The
constraints are NOT VALID: the table is append-only, so rows written before them cannot be rewritten, and every
new row is checked. Mirrored by ``core.audit`` (which refuses the same values before the insert).
"""

from django.db import migrations

FORWARD = r"""
ALTER TABLE audit_event ADD CONSTRAINT audit_purpose_code CHECK (
  purpose IS NULL OR purpose IN ('appointment_scheduling', 'communication', 'prior_authorization',
                                 'care_coordination')) NOT VALID;
ALTER TABLE audit_event ADD CONSTRAINT audit_actor_kind_code CHECK (
  actor_kind IN ('patient', 'staff', 'service', 'agent')) NOT VALID;
ALTER TABLE audit_event ADD CONSTRAINT audit_action_code CHECK (
  action ~ '^[A-Za-z][A-Za-z0-9_.]{0,79}$') NOT VALID;
ALTER TABLE audit_event ADD CONSTRAINT audit_resource_type_code CHECK (
  resource_type ~ '^[A-Za-z][A-Za-z0-9_.]{0,79}$') NOT VALID;
ALTER TABLE audit_event ADD CONSTRAINT audit_reason_code CHECK (
  reason IS NULL OR reason ~ '^[A-Za-z][A-Za-z0-9_.]{0,79}$') NOT VALID;
ALTER TABLE audit_event ADD CONSTRAINT audit_resource_id_code CHECK (
  resource_id IS NULL OR resource_id ~ '^[A-Za-z0-9_.:-]{1,80}$') NOT VALID;
ALTER TABLE audit_event ADD CONSTRAINT audit_correlation_id_code CHECK (
  correlation_id ~ '^[A-Za-z0-9_.:-]{1,128}$') NOT VALID;
ALTER TABLE audit_event ADD CONSTRAINT audit_actor_sub_printable CHECK (
  actor_sub <> '' AND actor_sub !~ '[[:cntrl:]]') NOT VALID;
ALTER TABLE audit_event ADD CONSTRAINT audit_agent_client_id_code CHECK (
  agent_client_id IS NULL OR agent_client_id ~ '^[\x21-\x7e]{1,255}$') NOT VALID;
"""

REVERSE = r"""
ALTER TABLE audit_event DROP CONSTRAINT IF EXISTS audit_agent_client_id_code;
ALTER TABLE audit_event DROP CONSTRAINT IF EXISTS audit_actor_sub_printable;
ALTER TABLE audit_event DROP CONSTRAINT IF EXISTS audit_correlation_id_code;
ALTER TABLE audit_event DROP CONSTRAINT IF EXISTS audit_resource_id_code;
ALTER TABLE audit_event DROP CONSTRAINT IF EXISTS audit_reason_code;
ALTER TABLE audit_event DROP CONSTRAINT IF EXISTS audit_resource_type_code;
ALTER TABLE audit_event DROP CONSTRAINT IF EXISTS audit_action_code;
ALTER TABLE audit_event DROP CONSTRAINT IF EXISTS audit_actor_kind_code;
ALTER TABLE audit_event DROP CONSTRAINT IF EXISTS audit_purpose_code;
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0006_audit_agent_columns_i11")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
