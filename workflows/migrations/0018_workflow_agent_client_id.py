"""Who started a conversation, wrote a turn, created or moved a workflow when an AI agent did: its client id beside the
subject its token named (the person it acted for), as a memory and an audit row record it."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('workflows', '0017_operation_withdrawn_reason_consent_expired'),
    ]

    operations = [
        migrations.AddField(
            model_name='workflow',
            name='agent_client_id',
            field=models.CharField(blank=True, max_length=255, null=True),
        ),
        migrations.AddField(
            model_name='workflowtransition',
            name='agent_client_id',
            field=models.CharField(blank=True, max_length=255, null=True),
        ),
    ]
