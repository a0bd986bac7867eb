"""A stored response can be withdrawn, leaving its key behind: deleting the data it held or ending the access under
which it was given (a consent withdrawn, a grant revoked) empties the record instead of removing it. A retry with
that key is then told the request was carried out and its answer withdrawn (409), rather than the key acting as a
new one: a retry after a deletion would otherwise write the deleted value again. The withdrawing transaction names
the patient in ``app.erase_patient``, as deletion does; that opens this patient's records of every caller to the
withdrawal (the three columns below), nothing else.

``under_access``: the caller could access the patient when the response was given (a nurse's context pack, not an
administrator's new grant); such a response is replayed only while they still can."""

from django.db import migrations

FORWARD = r"""
ALTER TABLE idempotency_record ALTER COLUMN response_status DROP NOT NULL;
ALTER TABLE idempotency_record ALTER COLUMN response_body DROP NOT NULL;
ALTER TABLE idempotency_record ADD COLUMN withdrawn_at timestamptz;
ALTER TABLE idempotency_record ADD COLUMN under_access boolean NOT NULL DEFAULT false;
ALTER TABLE idempotency_record ADD CONSTRAINT idempotency_record_withdrawn_empty CHECK (
  (withdrawn_at IS NULL AND response_status IS NOT NULL AND response_body IS NOT NULL)
  OR (withdrawn_at IS NOT NULL AND response_status IS NULL AND response_body IS NULL));
CREATE POLICY idempotency_record_withdraw ON idempotency_record FOR UPDATE
  USING (organization_id = (SELECT app_org_id()) AND patient_id IS NOT NULL
         AND patient_id::text = (SELECT app_setting('app.erase_patient')))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND patient_id IS NOT NULL
              AND patient_id::text = (SELECT app_setting('app.erase_patient')) AND withdrawn_at IS NOT NULL);
GRANT UPDATE (response_status, response_body, withdrawn_at) ON idempotency_record TO anamnesis_runtime;
"""

REVERSE = r"""
REVOKE UPDATE (response_status, response_body, withdrawn_at) ON idempotency_record FROM anamnesis_runtime;
DROP POLICY IF EXISTS idempotency_record_withdraw ON idempotency_record;
DELETE FROM idempotency_record WHERE withdrawn_at IS NOT NULL;
ALTER TABLE idempotency_record DROP CONSTRAINT IF EXISTS idempotency_record_withdrawn_empty;
ALTER TABLE idempotency_record DROP COLUMN IF EXISTS withdrawn_at;
ALTER TABLE idempotency_record DROP COLUMN IF EXISTS under_access;
ALTER TABLE idempotency_record ALTER COLUMN response_body SET NOT NULL;
ALTER TABLE idempotency_record ALTER COLUMN response_status SET NOT NULL;
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0011_idempotency_patient_i12")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
