"""Who started a conversation, wrote a turn, created or moved a workflow when an AI agent did: its client id beside the
subject its token named (the person it acted for), as a memory and an audit row record it."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('conversations', '0005_citus_keys_i12'),
    ]

    operations = [
        migrations.AddField(
            model_name='conversationsession',
            name='agent_client_id',
            field=models.CharField(blank=True, max_length=255, null=True),
        ),
        migrations.AddField(
            model_name='conversationturn',
            name='agent_client_id',
            field=models.CharField(blank=True, max_length=255, null=True),
        ),
    ]
