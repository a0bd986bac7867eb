"""Ready for Citus (docs/scaling.md section 2, core/distribution.py): the event tables are distributed by
organization_id like every other per-organisation table, so every primary key, unique constraint and foreign key
among them includes it.

* Primary keys become (<id>, organization_id); the id leads, so every lookup by id alone keeps its index.
* One delivery per event and subscription becomes one per (event, subscription, organisation): ids are random
  UUIDs of the same organisation, so the rule loses nothing.
* Django's single-column foreign keys from a delivery to its event and subscription are dropped
  (``db_constraint=False`` in the models) for composite keys on (<id>, organization_id), DEFERRABLE INITIALLY
  DEFERRED with no ON DELETE action, as Django's were (the ORM deletes a subscription's deliveries first).
  Every existing row is checked when they are added.
"""

import django.db.models.deletion
from django.db import migrations, models

PRIMARY_KEYS = """
ALTER TABLE event_subscription DROP CONSTRAINT event_subscription_pkey,
  ADD CONSTRAINT event_subscription_pkey PRIMARY KEY (subscription_id, organization_id);
ALTER TABLE event_outbox DROP CONSTRAINT event_outbox_pkey,
  ADD CONSTRAINT event_outbox_pkey PRIMARY KEY (event_id, organization_id);
ALTER TABLE event_delivery DROP CONSTRAINT event_delivery_pkey,
  ADD CONSTRAINT event_delivery_pkey PRIMARY KEY (delivery_id, organization_id);
"""

PRIMARY_KEYS_REVERSE = """
ALTER TABLE event_delivery DROP CONSTRAINT event_delivery_pkey,
  ADD CONSTRAINT event_delivery_pkey PRIMARY KEY (delivery_id);
ALTER TABLE event_outbox DROP CONSTRAINT event_outbox_pkey,
  ADD CONSTRAINT event_outbox_pkey PRIMARY KEY (event_id);
ALTER TABLE event_subscription DROP CONSTRAINT event_subscription_pkey,
  ADD CONSTRAINT event_subscription_pkey PRIMARY KEY (subscription_id);
"""

FOREIGN_KEYS = """
ALTER TABLE event_delivery ADD CONSTRAINT event_delivery_event_fk
  FOREIGN KEY (event_id, organization_id) REFERENCES event_outbox (event_id, organization_id)
  DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE event_delivery ADD CONSTRAINT event_delivery_subscription_fk
  FOREIGN KEY (subscription_id, organization_id) REFERENCES event_subscription (subscription_id, organization_id)
  DEFERRABLE INITIALLY DEFERRED;
"""

FOREIGN_KEYS_REVERSE = """
ALTER TABLE event_delivery DROP CONSTRAINT event_delivery_subscription_fk;
ALTER TABLE event_delivery DROP CONSTRAINT event_delivery_event_fk;
"""


class Migration(migrations.Migration):
    dependencies = [("events", "0002_event_rls")]
    operations = [
        migrations.RemoveConstraint(model_name="delivery", name="event_delivery_once"),
        migrations.AlterField(
            model_name="delivery", name="event",
            field=models.ForeignKey(db_column="event_id", db_constraint=False,
                                    on_delete=django.db.models.deletion.CASCADE, related_name="deliveries",
                                    to="events.event")),
        migrations.AlterField(
            model_name="delivery", name="subscription",
            field=models.ForeignKey(db_column="subscription_id", db_constraint=False,
                                    on_delete=django.db.models.deletion.CASCADE, related_name="deliveries",
                                    to="events.subscription")),
        migrations.RunSQL(PRIMARY_KEYS, PRIMARY_KEYS_REVERSE),
        migrations.AddConstraint(
            model_name="delivery",
            constraint=models.UniqueConstraint(fields=("event", "subscription", "organization_id"),
                                               name="event_delivery_once")),
        migrations.RunSQL(FOREIGN_KEYS, FOREIGN_KEYS_REVERSE),
    ]
