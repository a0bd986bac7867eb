"""Audit events name the agent that acted and the patient it acted for (issue 11: agents are not patients)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("core", "0005_portal_identity")]

    operations = [
        migrations.AddField(
            model_name="auditevent", name="agent_client_id",
            field=models.CharField(blank=True, max_length=255, null=True),
        ),
        migrations.AddField(
            model_name="auditevent", name="on_behalf_of",
            field=models.UUIDField(blank=True, null=True),
        ),
    ]
