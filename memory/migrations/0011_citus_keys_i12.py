"""Ready for Citus (docs/scaling.md section 2, core/distribution.py): every primary key, unique constraint and foreign
key among the memory tables includes organization_id, the distribution column.

* Primary keys become (<id>, organization_id). The id leads, so every lookup by id alone keeps its index.
* representation_unique, embedding_one_per_model and release_member_unique gain organization_id (last, for the same
  reason).
* Django's single-column foreign keys are dropped (``db_constraint=False`` in the models: Django keeps the relation
  for the ORM) and replaced by composite ones on (<id>, organization_id). Like Django's they are DEFERRABLE
  INITIALLY DEFERRED with no ON DELETE action (deletes are PROTECTed in the application, refused at commit here).
  Every child already carries organization_id (NOT NULL, written from its parent): adding a key checks every
  existing row, so a row whose organisation differs from its parent's stops the migration, which rolls back whole.
* patient_memory -> patient_consent needs consent's new key: 0012_consent_key_org_i12, after consent's 0004.
"""

import django.db.models.deletion
from django.db import migrations, models

PRIMARY_KEYS = """
ALTER TABLE patient_memory DROP CONSTRAINT patient_memory_pkey,
  ADD CONSTRAINT patient_memory_pkey PRIMARY KEY (memory_id, organization_id);
ALTER TABLE memory_lifecycle_event DROP CONSTRAINT memory_lifecycle_event_pkey,
  ADD CONSTRAINT memory_lifecycle_event_pkey PRIMARY KEY (event_id, organization_id);
ALTER TABLE memory_representation DROP CONSTRAINT memory_representation_pkey,
  ADD CONSTRAINT memory_representation_pkey PRIMARY KEY (id, organization_id);
ALTER TABLE memory_embedding DROP CONSTRAINT memory_embedding_pkey,
  ADD CONSTRAINT memory_embedding_pkey PRIMARY KEY (id, organization_id);
ALTER TABLE memory_release DROP CONSTRAINT memory_release_pkey,
  ADD CONSTRAINT memory_release_pkey PRIMARY KEY (release_id, organization_id);
ALTER TABLE memory_release_member DROP CONSTRAINT memory_release_member_pkey,
  ADD CONSTRAINT memory_release_member_pkey PRIMARY KEY (id, organization_id);
ALTER TABLE memory_deletion DROP CONSTRAINT memory_deletion_pkey,
  ADD CONSTRAINT memory_deletion_pkey PRIMARY KEY (deletion_id, organization_id);
ALTER TABLE memory_type DROP CONSTRAINT memory_type_pkey,
  ADD CONSTRAINT memory_type_pkey PRIMARY KEY (type_id, organization_id);
"""

PRIMARY_KEYS_REVERSE = """
ALTER TABLE memory_type DROP CONSTRAINT memory_type_pkey,
  ADD CONSTRAINT memory_type_pkey PRIMARY KEY (type_id);
ALTER TABLE memory_deletion DROP CONSTRAINT memory_deletion_pkey,
  ADD CONSTRAINT memory_deletion_pkey PRIMARY KEY (deletion_id);
ALTER TABLE memory_release_member DROP CONSTRAINT memory_release_member_pkey,
  ADD CONSTRAINT memory_release_member_pkey PRIMARY KEY (id);
ALTER TABLE memory_release DROP CONSTRAINT memory_release_pkey,
  ADD CONSTRAINT memory_release_pkey PRIMARY KEY (release_id);
ALTER TABLE memory_embedding DROP CONSTRAINT memory_embedding_pkey,
  ADD CONSTRAINT memory_embedding_pkey PRIMARY KEY (id);
ALTER TABLE memory_representation DROP CONSTRAINT memory_representation_pkey,
  ADD CONSTRAINT memory_representation_pkey PRIMARY KEY (id);
ALTER TABLE memory_lifecycle_event DROP CONSTRAINT memory_lifecycle_event_pkey,
  ADD CONSTRAINT memory_lifecycle_event_pkey PRIMARY KEY (event_id);
ALTER TABLE patient_memory DROP CONSTRAINT patient_memory_pkey,
  ADD CONSTRAINT patient_memory_pkey PRIMARY KEY (memory_id);
"""

FOREIGN_KEYS = """
ALTER TABLE patient_memory ADD CONSTRAINT patient_memory_superseded_by_fk
  FOREIGN KEY (superseded_by, organization_id) REFERENCES patient_memory (memory_id, organization_id)
  DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE memory_lifecycle_event ADD CONSTRAINT lifecycle_event_memory_fk
  FOREIGN KEY (memory_id, organization_id) REFERENCES patient_memory (memory_id, organization_id)
  DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE memory_representation ADD CONSTRAINT representation_memory_fk
  FOREIGN KEY (memory_id, organization_id) REFERENCES patient_memory (memory_id, organization_id)
  DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE memory_embedding ADD CONSTRAINT embedding_memory_fk
  FOREIGN KEY (memory_id, organization_id) REFERENCES patient_memory (memory_id, organization_id)
  DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE memory_release_member ADD CONSTRAINT release_member_release_fk
  FOREIGN KEY (release_id, organization_id) REFERENCES memory_release (release_id, organization_id)
  DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE memory_release_member ADD CONSTRAINT release_member_memory_fk
  FOREIGN KEY (memory_id, organization_id) REFERENCES patient_memory (memory_id, organization_id)
  DEFERRABLE INITIALLY DEFERRED;
"""

FOREIGN_KEYS_REVERSE = """
ALTER TABLE memory_release_member DROP CONSTRAINT release_member_memory_fk;
ALTER TABLE memory_release_member DROP CONSTRAINT release_member_release_fk;
ALTER TABLE memory_embedding DROP CONSTRAINT embedding_memory_fk;
ALTER TABLE memory_representation DROP CONSTRAINT representation_memory_fk;
ALTER TABLE memory_lifecycle_event DROP CONSTRAINT lifecycle_event_memory_fk;
ALTER TABLE patient_memory DROP CONSTRAINT patient_memory_superseded_by_fk;
"""


def _memory_fk(related_name: str, **kwargs) -> models.ForeignKey:
    return models.ForeignKey(db_column="memory_id", db_constraint=False, on_delete=django.db.models.deletion.PROTECT,
                             related_name=related_name, to="memory.memory", **kwargs)


class Migration(migrations.Migration):
    dependencies = [("consent", "0003_access_rule_current"), ("memory", "0010_memory_type_version_i13")]
    operations = [
        migrations.RemoveConstraint(model_name="memoryembedding", name="embedding_one_per_model"),
        migrations.RemoveConstraint(model_name="releasemember", name="release_member_unique"),
        migrations.RemoveConstraint(model_name="representation", name="representation_unique"),
        migrations.AlterField(model_name="lifecycleevent", name="memory", field=_memory_fk("events")),
        migrations.AlterField(
            model_name="memory", name="consent_record",
            field=models.ForeignKey(blank=True, db_column="consent_record_id", db_constraint=False, null=True,
                                    on_delete=django.db.models.deletion.PROTECT, related_name="memories",
                                    to="consent.consentrecord")),
        migrations.AlterField(
            model_name="memory", name="superseded_by",
            field=models.ForeignKey(blank=True, db_column="superseded_by", db_constraint=False, null=True,
                                    on_delete=django.db.models.deletion.PROTECT, related_name="supersedes",
                                    to="memory.memory")),
        migrations.AlterField(model_name="memoryembedding", name="memory", field=_memory_fk("embeddings")),
        migrations.AlterField(model_name="releasemember", name="memory", field=_memory_fk("releases")),
        migrations.AlterField(
            model_name="releasemember", name="release",
            field=models.ForeignKey(db_column="release_id", db_constraint=False,
                                    on_delete=django.db.models.deletion.PROTECT, related_name="members",
                                    to="memory.release")),
        migrations.AlterField(model_name="representation", name="memory", field=_memory_fk("representations")),
        migrations.AddConstraint(
            model_name="memoryembedding",
            constraint=models.UniqueConstraint(fields=("memory", "model", "organization_id"),
                                               name="embedding_one_per_model")),
        migrations.AddConstraint(
            model_name="releasemember",
            constraint=models.UniqueConstraint(fields=("release", "memory", "organization_id"),
                                               name="release_member_unique")),
        migrations.AddConstraint(
            model_name="representation",
            constraint=models.UniqueConstraint(fields=("memory", "target", "external_id", "organization_id"),
                                               name="representation_unique")),
        migrations.RunSQL(PRIMARY_KEYS, PRIMARY_KEYS_REVERSE),
        migrations.RunSQL(FOREIGN_KEYS, FOREIGN_KEYS_REVERSE),
    ]
