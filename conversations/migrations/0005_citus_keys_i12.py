"""Ready for Citus (docs/scaling.md section 2, core/distribution.py): the conversation tables' primary keys and the
turn sequence include organization_id, the distribution column, last, so lookups by id keep their index.

Django's single-column foreign key from a turn to its session is dropped (``db_constraint=False`` in the model): the
turn is already bound to its session, organisation, patient and purpose by conversation_turn_same_scope (0002).
"""

import django.db.models.deletion
from django.db import migrations, models

PRIMARY_KEYS = """
ALTER TABLE conversation_session DROP CONSTRAINT conversation_session_pkey,
  ADD CONSTRAINT conversation_session_pkey PRIMARY KEY (session_id, organization_id);
ALTER TABLE conversation_turn DROP CONSTRAINT conversation_turn_pkey,
  ADD CONSTRAINT conversation_turn_pkey PRIMARY KEY (turn_id, organization_id);
"""

PRIMARY_KEYS_REVERSE = """
ALTER TABLE conversation_turn DROP CONSTRAINT conversation_turn_pkey,
  ADD CONSTRAINT conversation_turn_pkey PRIMARY KEY (turn_id);
ALTER TABLE conversation_session DROP CONSTRAINT conversation_session_pkey,
  ADD CONSTRAINT conversation_session_pkey PRIMARY KEY (session_id);
"""


class Migration(migrations.Migration):
    dependencies = [("conversations", "0004_conversation_erasure_i17")]
    operations = [
        migrations.RemoveConstraint(model_name="conversationturn", name="conversation_turn_seq_unique"),
        migrations.AlterField(
            model_name="conversationturn", name="session",
            field=models.ForeignKey(db_column="session_id", db_constraint=False,
                                    on_delete=django.db.models.deletion.PROTECT, related_name="turns",
                                    to="conversations.conversationsession")),
        migrations.AddConstraint(
            model_name="conversationturn",
            constraint=models.UniqueConstraint(fields=("session", "seq", "organization_id"),
                                               name="conversation_turn_seq_unique")),
        migrations.RunSQL(PRIMARY_KEYS, PRIMARY_KEYS_REVERSE),
    ]
