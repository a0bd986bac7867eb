"""The audit trail becomes a table range-partitioned by ``occurred_at``, one partition per calendar month (UTC), so
its reads prune to the months they ask about and retention drops whole months instead of deleting rows
(issue 38; docs/scaling.md, "Audit retention").

What stays the same: the columns, the two read indexes (``audit_org_patient_time``, ``audit_org_time``, now
partitioned indexes that end with ``id``: measured at 1M rows, a page newest-first sorted every row of the
patient's history across the months without it, since no month's index gave the ``-occurred_at, -id`` order), row-level security with the same two policies, ENABLEd and FORCEd on the parent, the
runtime role's SELECT and INSERT on the parent only, and append-only: the row triggers that refuse UPDATE and
DELETE and check the coded columns are defined on the parent, so PostgreSQL clones them onto every partition;
the statement trigger that also refuses TRUNCATE is not cloned, so each partition gets its own.

What changes: the primary key is ``(id, organization_id, occurred_at)``. A partitioned table's unique keys must
include the partition key; ``organization_id`` is there for Citus (``core.0010``). The model keeps ``id`` as its
Django primary key: the ORM only ever inserts and reads audit rows (never updates one by pk), ids are random
UUIDs, and ``CompositePrimaryKey`` would turn ``AuditEvent.pk`` into a tuple for every reader (cursors, FHIR
AuditEvent ids, the admin) for nothing the database does not already enforce.

Partitions: ``audit_event_yYYYYmMM``, created by ``audit_event_add_partitions(from, to)`` for every month from the
oldest existing row to three months ahead, and kept ahead by ``manage.py audit_partitions`` (which ``migrate`` also
runs: ``core.apps``). A DEFAULT partition, ``audit_event_default``, catches any row whose month has no partition,
so no insert can ever fail for want of one. Partitions are reachable only through the parent: RLS is enabled and
forced on each with no policy (no rows for anyone but a superuser), and the runtime role's default grants on them
are revoked. ``audit_event_retention_census`` lets the owner role alone count a month's rows per organisation
while ``app.maintenance = 'audit_retention'``, so the retention command can audit what it drops in each
organisation's own trail.

The existing rows are copied in the same transaction (before the triggers and policies exist, so they are not
checked twice or hidden from the copy), then the old table is dropped. The copy holds an exclusive lock on the
audit trail for its duration: on a large trail, run it in a maintenance window (about 10 s per million rows here).
"""

from django.db import migrations, models

FUNCTIONS = r"""
CREATE FUNCTION audit_event_partition_name(p_month date) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'audit_event_y' || to_char(p_month, 'YYYY') || 'm' || to_char(p_month, 'MM') $$;

-- Only through the parent: no rows for the runtime role (no grants) or the owner (forced RLS, no policy).
CREATE FUNCTION audit_event_seal_partition(p_name text) RETURNS void
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
BEGIN
  EXECUTE format('REVOKE ALL ON %I FROM PUBLIC, anamnesis_runtime', p_name);
  EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', p_name);
  EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', p_name);
  EXECUTE format('CREATE TRIGGER audit_event_no_truncate BEFORE UPDATE OR DELETE OR TRUNCATE ON %I '
                 'FOR EACH STATEMENT EXECUTE FUNCTION reject_append_only_mutation()', p_name);
END $$;

-- One partition per month from p_from's month to p_to's month (UTC), those missing only; returns the names made.
-- A month whose rows already sit in the default partition is left there (with a warning): creating its partition
-- would fail, and no row may be lost or rewritten.
CREATE FUNCTION audit_event_add_partitions(p_from timestamptz, p_to timestamptz) RETURNS SETOF text
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
DECLARE
  v_month date := date_trunc('month', p_from AT TIME ZONE 'UTC')::date;
  v_last date := date_trunc('month', p_to AT TIME ZONE 'UTC')::date;
  v_name text;
BEGIN
  WHILE v_month <= v_last LOOP
    v_name := audit_event_partition_name(v_month);
    IF to_regclass(v_name) IS NULL THEN
      BEGIN
        EXECUTE format('CREATE TABLE %I PARTITION OF audit_event FOR VALUES FROM (%L) TO (%L)', v_name,
                       to_char(v_month, 'YYYY-MM-DD') || ' 00:00:00+00',
                       to_char(v_month + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00');
        PERFORM audit_event_seal_partition(v_name);
        RETURN NEXT v_name;
      EXCEPTION WHEN check_violation THEN
        RAISE WARNING 'audit_event: rows of % are in the default partition; % not created', v_month, v_name;
      END;
    END IF;
    v_month := v_month + interval '1 month';
  END LOOP;
END $$;
REVOKE EXECUTE ON FUNCTION audit_event_partition_name(date), audit_event_seal_partition(text),
  audit_event_add_partitions(timestamptz, timestamptz) FROM PUBLIC, anamnesis_runtime;
"""

# What the audit trail has either way, partitioned or not: its read indexes, append-only triggers, grants, RLS.
TABLE_RULES = r"""
CREATE TRIGGER audit_event_append_only BEFORE UPDATE OR DELETE ON audit_event
  FOR EACH ROW EXECUTE FUNCTION reject_append_only_mutation();
CREATE TRIGGER audit_event_no_truncate BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_event
  FOR EACH STATEMENT EXECUTE FUNCTION reject_append_only_mutation();
CREATE TRIGGER audit_event_check_codes BEFORE INSERT ON audit_event
  FOR EACH ROW EXECUTE FUNCTION audit_event_check_codes();
REVOKE ALL ON audit_event FROM PUBLIC, anamnesis_runtime;
GRANT SELECT, INSERT ON audit_event TO anamnesis_runtime;
ALTER TABLE audit_event ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit_event FORCE ROW LEVEL SECURITY;
CREATE POLICY audit_event_read ON audit_event FOR SELECT
  USING (organization_id = (SELECT app_org_id())
         AND (patient_id = (SELECT app_patient_self_id())
              OR ((SELECT app_patient_self_id()) IS NULL AND (SELECT app_has_scope('audit:read')))));
CREATE POLICY audit_event_append ON audit_event FOR INSERT
  WITH CHECK (organization_id = (SELECT app_org_id()) AND actor_sub = (SELECT app_actor_sub()));
"""

FORWARD = r"""
LOCK TABLE audit_event IN ACCESS EXCLUSIVE MODE;
ALTER TABLE audit_event RENAME TO audit_event_unpartitioned;
ALTER TABLE audit_event_unpartitioned RENAME CONSTRAINT audit_event_pkey TO audit_event_unpartitioned_pkey;
ALTER INDEX audit_org_patient_time RENAME TO audit_unpartitioned_org_patient_time;
ALTER INDEX audit_org_time RENAME TO audit_unpartitioned_org_time;
-- The owner reads every row it copies: the old table's RLS is forced, and its policies need an identity.
CREATE POLICY audit_event_copy ON audit_event_unpartitioned FOR SELECT TO CURRENT_USER USING (true);

CREATE TABLE audit_event (LIKE audit_event_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (occurred_at);
CREATE TABLE audit_event_default PARTITION OF audit_event DEFAULT;
""" + FUNCTIONS + r"""
SELECT audit_event_seal_partition('audit_event_default');
SELECT count(*) FROM audit_event_add_partitions(
  LEAST(now(), (SELECT min(occurred_at) FROM audit_event_unpartitioned)), now() + interval '3 months');

INSERT INTO audit_event SELECT * FROM audit_event_unpartitioned;
DROP TABLE audit_event_unpartitioned;

ALTER TABLE audit_event ADD CONSTRAINT audit_event_pkey PRIMARY KEY (id, organization_id, occurred_at);
-- The pages' whole order (newest first, then id): each month's index hands its rows over already sorted, so a
-- page merges the months' index scans and stops after a page of rows, however long the history.
CREATE INDEX audit_org_patient_time ON audit_event (organization_id, patient_id, occurred_at, id);
CREATE INDEX audit_org_time ON audit_event (organization_id, occurred_at, id);
""" + TABLE_RULES + r"""-- The retention command's census (owner role only, while it names itself): which organisations a month it is
-- about to drop holds rows of, so each organisation's trail records the drop.
CREATE POLICY audit_event_retention_census ON audit_event FOR SELECT TO CURRENT_USER
  USING ((SELECT current_setting('app.maintenance', true)) = 'audit_retention');
ANALYZE audit_event;
"""

REVERSE = r"""
LOCK TABLE audit_event IN ACCESS EXCLUSIVE MODE;
ALTER TABLE audit_event RENAME TO audit_event_partitioned;
ALTER TABLE audit_event_partitioned RENAME CONSTRAINT audit_event_pkey TO audit_event_partitioned_pkey;
ALTER INDEX audit_org_patient_time RENAME TO audit_partitioned_org_patient_time;
ALTER INDEX audit_org_time RENAME TO audit_partitioned_org_time;
CREATE TABLE audit_event (LIKE audit_event_partitioned INCLUDING DEFAULTS);
-- The owner reads every row it copies back (forced RLS; the census policy needs app.maintenance).
CREATE POLICY audit_event_copy_back ON audit_event_partitioned FOR SELECT TO CURRENT_USER USING (true);
INSERT INTO audit_event SELECT * FROM audit_event_partitioned;
DROP TABLE audit_event_partitioned;
DROP FUNCTION audit_event_add_partitions(timestamptz, timestamptz);
DROP FUNCTION audit_event_seal_partition(text);
DROP FUNCTION audit_event_partition_name(date);
ALTER TABLE audit_event ADD CONSTRAINT audit_event_pkey PRIMARY KEY (id, organization_id);
CREATE INDEX audit_org_patient_time ON audit_event (organization_id, patient_id, occurred_at);
CREATE INDEX audit_org_time ON audit_event (organization_id, occurred_at);
""" + TABLE_RULES


class Migration(migrations.Migration):
    dependencies = [("core", "0015_audit_codes_in_one_check_i12")]
    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, REVERSE)],
            state_operations=[
                migrations.RemoveIndex(model_name="auditevent", name="audit_org_patient_time"),
                migrations.RemoveIndex(model_name="auditevent", name="audit_org_time"),
                migrations.AddIndex(model_name="auditevent", index=models.Index(
                    fields=["organization_id", "patient_id", "occurred_at", "id"], name="audit_org_patient_time")),
                migrations.AddIndex(model_name="auditevent", index=models.Index(
                    fields=["organization_id", "occurred_at", "id"], name="audit_org_time")),
            ],
        ),
    ]
