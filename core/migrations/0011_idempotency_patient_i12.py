"""Idempotency records name the patient their response is about, so deleting a memory or erasing a patient also
removes the stored responses that could replay their values (a replayed context pack or turn would give back what
was deleted). The erasing transaction names the patient in ``app.erase_patient`` (set by the deletion service
after it has decided access); that opens this patient's records of every caller to DELETE, nothing else."""

from django.db import migrations

FORWARD = r"""
ALTER TABLE idempotency_record ADD COLUMN patient_id uuid;
CREATE INDEX idempotency_record_patient ON idempotency_record (organization_id, patient_id)
  WHERE patient_id IS NOT NULL;
CREATE POLICY idempotency_record_erase_read ON idempotency_record FOR SELECT
  USING (organization_id = (SELECT app_org_id()) AND patient_id IS NOT NULL
         AND patient_id::text = (SELECT app_setting('app.erase_patient')));
CREATE POLICY idempotency_record_erase ON idempotency_record FOR DELETE
  USING (organization_id = (SELECT app_org_id()) AND patient_id IS NOT NULL
         AND patient_id::text = (SELECT app_setting('app.erase_patient')));
"""

REVERSE = r"""
DROP POLICY IF EXISTS idempotency_record_erase ON idempotency_record;
DROP POLICY IF EXISTS idempotency_record_erase_read ON idempotency_record;
DROP INDEX IF EXISTS idempotency_record_patient;
ALTER TABLE idempotency_record DROP COLUMN IF EXISTS patient_id;
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0010_audit_key_org_i12")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
