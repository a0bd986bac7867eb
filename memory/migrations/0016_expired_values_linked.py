"""Earlier values that expired (their validity ended, recorded by the sweep or by the next write) and were followed by
a newer value of their attribute were left with no link to it (superseded_by): missing from its history, and kept
until their retention when it (or its attribute) was deleted. Each is linked to the next value written for its
attribute (any state but proposed), as a write now links them (memory.services._supersede). One whose next value was
deleted since should have gone with it: it is past its retention from now, and the sweep erases it with a receipt.

The owner role runs this; row-level security is forced on the table, so it is lifted for this transaction only.
Reversing leaves the links: they are true, and the code before this never reads them as more than a link."""

from django.db import migrations

NEXT_VALUE = (
    "SELECT n.memory_id FROM patient_memory n "
    "WHERE n.organization_id = e.organization_id AND n.patient_id = e.patient_id "
    "AND n.memory_type = e.memory_type AND n.attribute = e.attribute AND n.consent_purpose = e.consent_purpose "
    "AND n.state IN ('active', 'superseded', 'quarantined', 'expired', 'deleted') AND n.created_at > e.created_at "
    "ORDER BY n.created_at, n.memory_id LIMIT 1")

LINK_EXPIRED = f"""
ALTER TABLE patient_memory NO FORCE ROW LEVEL SECURITY;
UPDATE patient_memory e SET superseded_by = ({NEXT_VALUE}), updated_at = now()
WHERE e.state = 'expired' AND e.superseded_by IS NULL AND EXISTS ({NEXT_VALUE});
UPDATE patient_memory e SET expires_at = now(), updated_at = now()
WHERE e.state = 'expired' AND e.expires_at > now()
AND EXISTS (SELECT 1 FROM patient_memory n WHERE n.memory_id = e.superseded_by AND n.state = 'deleted');
SET CONSTRAINTS ALL IMMEDIATE;
ALTER TABLE patient_memory FORCE ROW LEVEL SECURITY;
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0015_quarantine_release")]
    operations = [migrations.RunSQL(LINK_EXPIRED, migrations.RunSQL.noop)]
