"""Ready for Citus (docs/scaling.md section 2): the consent and grant tables' primary keys include organization_id,
the distribution column, as (<id>, organization_id) so a lookup by id alone keeps its index. Their unique rules
already lead with it. After memory's 0011, which dropped the only foreign key onto the old consent key; memory's
0012 then references the new one."""

from django.db import migrations

FORWARD = """
ALTER TABLE patient_consent DROP CONSTRAINT patient_consent_pkey,
  ADD CONSTRAINT patient_consent_pkey PRIMARY KEY (consent_record_id, organization_id);
ALTER TABLE patient_access_grants DROP CONSTRAINT patient_access_grants_pkey,
  ADD CONSTRAINT patient_access_grants_pkey PRIMARY KEY (grant_id, organization_id);
"""

REVERSE = """
ALTER TABLE patient_access_grants DROP CONSTRAINT patient_access_grants_pkey,
  ADD CONSTRAINT patient_access_grants_pkey PRIMARY KEY (grant_id);
ALTER TABLE patient_consent DROP CONSTRAINT patient_consent_pkey,
  ADD CONSTRAINT patient_consent_pkey PRIMARY KEY (consent_record_id);
"""


class Migration(migrations.Migration):
    dependencies = [("consent", "0003_access_rule_current"), ("memory", "0011_citus_keys_i12")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
