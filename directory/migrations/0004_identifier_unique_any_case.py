"""A patient identifier is unique within the organisation in any letter case (``MRN-0001`` and ``mrn-0001`` are
one record number): the unique rule compares lower-cased system and value, which lookups use too. Identifiers that
already differ only in case are two patients under one number, which only people can sort out: the migration stops
and names how many, instead of failing on the index."""

import django.db.models.functions.text
from django.db import migrations, models

NO_CASE_TWINS = """
DO $$
DECLARE twins bigint;
BEGIN
  SELECT count(*) INTO twins FROM (
    SELECT 1 FROM patient_identifier
     GROUP BY organization_id, lower(system), lower(value) HAVING count(*) > 1) AS t;
  IF twins > 0 THEN
    RAISE EXCEPTION '% patient identifiers are registered more than once, differing only in letter case: '
                    'correct them, then migrate again', twins;
  END IF;
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("directory", "0003_citus_keys_i12")]
    operations = [
        migrations.RunSQL(NO_CASE_TWINS, migrations.RunSQL.noop),
        migrations.AddConstraint(
            model_name="patientidentifier",
            constraint=models.UniqueConstraint(
                models.F("organization"), django.db.models.functions.text.Lower("system"),
                django.db.models.functions.text.Lower("value"), name="patient_identifier_unique_any_case")),
        migrations.RemoveConstraint(model_name="patientidentifier", name="patient_identifier_unique"),
    ]
