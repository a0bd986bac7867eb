"""A release names the agent it was handed to (``agent_client_id``), beside the subject the agent acted for: an
agent's context pack read, to the patient, as given to themself."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("memory", "0012_consent_key_org_i12")]
    operations = [
        migrations.AddField(model_name="release", name="agent_client_id",
                            field=models.CharField(blank=True, max_length=255, null=True)),
    ]
