"""A stored response can name the resource it created, when that resource is not a patient's (a webhook
subscription): deleting the resource withdraws the response, as deleting a patient's data withdraws the responses
about them (0012). The deleting transaction names the resource in ``app.withdraw_resource`` (set by the deletion
service after it has decided access); that opens the organisation's records naming this resource, of every caller,
to the withdrawal (the three columns granted in 0012), nothing else."""

from django.db import migrations

FORWARD = r"""
ALTER TABLE idempotency_record ADD COLUMN resource_id uuid;
CREATE INDEX idempotency_record_resource ON idempotency_record (organization_id, resource_id)
  WHERE resource_id IS NOT NULL;
CREATE POLICY idempotency_record_withdraw_resource_read ON idempotency_record FOR SELECT
  USING (organization_id = (SELECT app_org_id()) AND resource_id IS NOT NULL
         AND resource_id::text = (SELECT app_setting('app.withdraw_resource')));
CREATE POLICY idempotency_record_withdraw_resource ON idempotency_record FOR UPDATE
  USING (organization_id = (SELECT app_org_id()) AND resource_id IS NOT NULL
         AND resource_id::text = (SELECT app_setting('app.withdraw_resource')))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND resource_id IS NOT NULL
              AND resource_id::text = (SELECT app_setting('app.withdraw_resource')) AND withdrawn_at IS NOT NULL);
"""

REVERSE = r"""
DROP POLICY IF EXISTS idempotency_record_withdraw_resource ON idempotency_record;
DROP POLICY IF EXISTS idempotency_record_withdraw_resource_read ON idempotency_record;
DROP INDEX IF EXISTS idempotency_record_resource;
ALTER TABLE idempotency_record DROP COLUMN IF EXISTS resource_id;
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0017_audit_read_policy_one_branch_i38")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
