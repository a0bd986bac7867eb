"""A quarantined value can be released (quarantined -> active), and the value it had superseded is made current
again while it is set aside (superseded -> active): memory/sql/state_transition.sql applied again, and the lifecycle
events that record them (``reinstated``, ``released``). Reversing restores the earlier table and event types."""

from pathlib import Path

from django.db import migrations, models

SQL = (Path(__file__).resolve().parent.parent / "sql" / "state_transition.sql").read_text()

EARLIER_TABLE = r"""
CREATE OR REPLACE FUNCTION memory_state_transition_allowed(p_from text, p_to text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT (p_from, p_to) IN (
    ('proposed', 'active'), ('proposed', 'deleted'), ('proposed', 'expired'),
    ('active', 'superseded'), ('active', 'expired'), ('active', 'quarantined'), ('active', 'deleted'),
    ('quarantined', 'superseded'), ('quarantined', 'expired'), ('quarantined', 'deleted'),
    ('superseded', 'deleted'),
    ('expired', 'deleted'))
$$;
"""

EVENT_TYPES = ["proposed", "confirmed", "rejected", "corrected", "superseded", "expired", "quarantined",
               "reinstated", "released", "consent_revoked", "deletion_requested", "deleted"]
EARLIER_EVENT_TYPES = [t for t in EVENT_TYPES if t not in ("reinstated", "released")]


class Migration(migrations.Migration):
    dependencies = [("memory", "0014_memory_type_serves")]
    operations = [
        migrations.RunSQL(SQL, EARLIER_TABLE),
        migrations.AlterField(
            model_name="lifecycleevent", name="event_type",
            field=models.CharField(choices=[(t, t.replace("_", " ").title()) for t in EVENT_TYPES],
                                   max_length=30)),
        migrations.RemoveConstraint(model_name="lifecycleevent", name="lifecycle_event_type_valid"),
        migrations.AddConstraint(
            model_name="lifecycleevent",
            constraint=models.CheckConstraint(condition=models.Q(event_type__in=EVENT_TYPES),
                                              name="lifecycle_event_type_valid")),
    ]
