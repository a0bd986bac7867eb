"""What each memory type answers, in an organisation's own words: one row per organisation and type name (built-in
types included), replaced in place, so rewording what a type answers is no new version of it.

Row-level security as on memory_type: an organisation sees only its own rows; only its administrators
(memory_type:write, not acting as a patient) write them, in their own name. A row is replaced, never deleted
(``phrases`` NULL goes back to the type's own), so the runtime role has no DELETE. The primary key includes
``organization_id`` like every per-organisation table's (docs/scaling.md, Citus), and the phrases are a list of 1
to 8 when set (the service checks each phrase; the database keeps the shape).
"""

import uuid

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

FORWARD = r"""
ALTER TABLE memory_type_serves DROP CONSTRAINT memory_type_serves_pkey,
  ADD CONSTRAINT memory_type_serves_pkey PRIMARY KEY (serves_id, organization_id);
ALTER TABLE memory_type_serves ADD CONSTRAINT memory_type_serves_phrases_list
  CHECK (phrases IS NULL OR (jsonb_typeof(phrases) = 'array' AND jsonb_array_length(phrases) BETWEEN 1 AND 8));

ALTER TABLE memory_type_serves ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_type_serves FORCE ROW LEVEL SECURITY;
CREATE POLICY memory_type_serves_read ON memory_type_serves FOR SELECT
  USING (organization_id = (SELECT app_org_id()));
CREATE POLICY memory_type_serves_insert ON memory_type_serves FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id())
              AND (SELECT app_patient_self_id()) IS NULL
              AND (SELECT app_has_scope('memory_type:write'))
              AND updated_by = (SELECT app_actor_sub()));
CREATE POLICY memory_type_serves_update ON memory_type_serves FOR UPDATE
  USING (organization_id = (SELECT app_org_id())
         AND (SELECT app_patient_self_id()) IS NULL
         AND (SELECT app_has_scope('memory_type:write')))
  WITH CHECK (organization_id = (SELECT app_org_id())
              AND (SELECT app_patient_self_id()) IS NULL
              AND (SELECT app_has_scope('memory_type:write'))
              AND updated_by = (SELECT app_actor_sub()));
REVOKE DELETE, TRUNCATE ON memory_type_serves FROM anamnesis_runtime;
"""

REVERSE = r"""
GRANT DELETE ON memory_type_serves TO anamnesis_runtime;
DROP POLICY IF EXISTS memory_type_serves_update ON memory_type_serves;
DROP POLICY IF EXISTS memory_type_serves_insert ON memory_type_serves;
DROP POLICY IF EXISTS memory_type_serves_read ON memory_type_serves;
ALTER TABLE memory_type_serves NO FORCE ROW LEVEL SECURITY;
ALTER TABLE memory_type_serves DISABLE ROW LEVEL SECURITY;
ALTER TABLE memory_type_serves DROP CONSTRAINT memory_type_serves_phrases_list;
ALTER TABLE memory_type_serves DROP CONSTRAINT memory_type_serves_pkey,
  ADD CONSTRAINT memory_type_serves_pkey PRIMARY KEY (serves_id);
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0005_portal_identity"), ("memory", "0013_release_agent")]

    operations = [
        migrations.CreateModel(
            name="MemoryTypeServes",
            fields=[
                ("serves_id", models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ("name", models.CharField(max_length=50)),
                ("phrases", models.JSONField(null=True)),
                ("updated_by", models.CharField(max_length=255)),
                ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("organization", models.ForeignKey(db_column="organization_id",
                                                   on_delete=django.db.models.deletion.PROTECT,
                                                   to="core.organization")),
            ],
            options={
                "db_table": "memory_type_serves",
                "constraints": [
                    models.UniqueConstraint(fields=("organization", "name"), name="memory_type_serves_unique"),
                ],
            },
        ),
        migrations.RunSQL(FORWARD, REVERSE),
    ]
