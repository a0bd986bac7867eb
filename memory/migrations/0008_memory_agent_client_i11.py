"""A memory written by an agent records the agent's client id (issue 11: agents are not patients)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("memory", "0007_state_transition_current")]

    operations = [
        migrations.AddField(
            model_name="memory", name="agent_client_id",
            field=models.CharField(blank=True, max_length=255, null=True),
        ),
    ]
