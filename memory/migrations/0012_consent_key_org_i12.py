"""A memory's consent record, by the consent table's new key (consent_record_id, organization_id): the composite
replacement of the foreign key 0011_citus_keys_i12 dropped, with Django's semantics (DEFERRABLE INITIALLY DEFERRED,
no ON DELETE action). It checks every existing row."""

from django.db import migrations

FORWARD = """
ALTER TABLE patient_memory ADD CONSTRAINT patient_memory_consent_fk
  FOREIGN KEY (consent_record_id, organization_id) REFERENCES patient_consent (consent_record_id, organization_id)
  DEFERRABLE INITIALLY DEFERRED;
"""

REVERSE = "ALTER TABLE patient_memory DROP CONSTRAINT patient_memory_consent_fk;"


class Migration(migrations.Migration):
    dependencies = [("memory", "0011_citus_keys_i12"), ("consent", "0004_citus_keys_i12")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
