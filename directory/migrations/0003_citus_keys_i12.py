"""Ready for Citus (docs/scaling.md section 2): the directory tables' primary keys include organization_id, the
distribution column, as (id, organization_id). Their unique rules already lead with it; nothing references them."""

from django.db import migrations

FORWARD = """
ALTER TABLE patient_directory DROP CONSTRAINT patient_directory_pkey,
  ADD CONSTRAINT patient_directory_pkey PRIMARY KEY (id, organization_id);
ALTER TABLE patient_identifier DROP CONSTRAINT patient_identifier_pkey,
  ADD CONSTRAINT patient_identifier_pkey PRIMARY KEY (id, organization_id);
ALTER TABLE staff_directory DROP CONSTRAINT staff_directory_pkey,
  ADD CONSTRAINT staff_directory_pkey PRIMARY KEY (id, organization_id);
"""

REVERSE = """
ALTER TABLE staff_directory DROP CONSTRAINT staff_directory_pkey,
  ADD CONSTRAINT staff_directory_pkey PRIMARY KEY (id);
ALTER TABLE patient_identifier DROP CONSTRAINT patient_identifier_pkey,
  ADD CONSTRAINT patient_identifier_pkey PRIMARY KEY (id);
ALTER TABLE patient_directory DROP CONSTRAINT patient_directory_pkey,
  ADD CONSTRAINT patient_directory_pkey PRIMARY KEY (id);
"""


class Migration(migrations.Migration):
    dependencies = [("directory", "0002_directory_rls_i13")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
