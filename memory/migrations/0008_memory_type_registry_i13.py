"""The organisation memory type registry (one row per version; built-in types ship as data, not rows)."""

import uuid

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("core", "0005_portal_identity"), ("memory", "0008_memory_agent_client_i11")]

    operations = [
        migrations.CreateModel(
            name="MemoryType",
            fields=[
                ("type_id", models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ("name", models.CharField(max_length=50)),
                ("version", models.PositiveIntegerField()),
                ("memory_class", models.CharField(choices=[("working", "Working"), ("preference", "Preference"),
                                                           ("account_fact", "Account Fact"),
                                                           ("care_context", "Care Context")], max_length=20)),
                ("definition", models.JSONField()),
                ("created_by", models.CharField(max_length=255)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("organization", models.ForeignKey(db_column="organization_id",
                                                   on_delete=django.db.models.deletion.PROTECT,
                                                   to="core.organization")),
            ],
            options={
                "db_table": "memory_type",
                "constraints": [
                    models.UniqueConstraint(fields=("organization", "name", "version"),
                                            name="memory_type_version_unique"),
                    models.CheckConstraint(condition=models.Q(("version__gte", 1)),
                                           name="memory_type_version_positive"),
                    models.CheckConstraint(condition=models.Q(("memory_class__in", ["working", "preference",
                                                                                    "account_fact",
                                                                                    "care_context"])),
                                           name="memory_type_class_valid"),
                ],
            },
        ),
    ]
