"""Proposals made before proposals lapsed (MEMORY_PROPOSAL_LAPSE_DAYS) kept the deadline of a confirmed value (their
type's retention, two years for a preference): they never lapsed, held their place in their proposer's bound, and
an unreviewed extraction was kept as long as a confirmed fact. Each waiting proposal now lapses as one made today
would: MEMORY_PROPOSAL_LAPSE_DAYS after it was made, within its retention (memory.services._proposal_lapse). One
older than that reads as expired from now on and the sweep erases it (``proposal_lapsed``).

The owner role runs this; row-level security is forced on the table, so it is lifted for this transaction only.
Reversing keeps the deadlines: the retention they had is not recorded anywhere else."""

from django.conf import settings
from django.db import migrations

LAPSE = (
    "UPDATE patient_memory SET expires_at = created_at + make_interval(days => %s), updated_at = now() "
    "WHERE state = 'proposed' AND expires_at > created_at + make_interval(days => %s)")


def statements(days: int) -> list:
    return ["ALTER TABLE patient_memory NO FORCE ROW LEVEL SECURITY", (LAPSE, [days, days]),
            "ALTER TABLE patient_memory FORCE ROW LEVEL SECURITY"]


class Migration(migrations.Migration):
    dependencies = [("memory", "0016_expired_values_linked")]
    operations = [migrations.RunSQL(statements(settings.MEMORY_PROPOSAL_LAPSE_DAYS), migrations.RunSQL.noop)]
