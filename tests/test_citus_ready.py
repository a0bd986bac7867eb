"""The schema is ready to be distributed by organisation with Citus (docs/scaling.md section 2), read from pg_catalog as
the migrations leave it.

Every table is on exactly one of core.distribution's lists. A table holding a patient's data, or referencing one
that does, is distributed by organization_id: the column is NOT NULL, and every primary key, unique index and
foreign key among distributed tables includes it (on both sides of a foreign key, matched to each other). Reference
tables never point at distributed or coordinator-local ones, and ``citus_statements`` creates each table after the
tables it references.
"""

from __future__ import annotations

import psycopg
import pytest

from core.distribution import (
    COORDINATOR_TABLES,
    DISTRIBUTED_TABLES,
    DISTRIBUTION_COLUMN,
    REFERENCE_TABLES,
    citus_statements,
)

pytestmark = pytest.mark.django_db

TABLES = """
SELECT c.relname,
       bool_or(a.attname = 'patient_id') AS has_patient,
       bool_or(a.attname = %(column)s AND a.attnotnull) AS has_column
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
 GROUP BY c.relname
"""

# Unique indexes (primary keys among them) and whether the distribution column is one of their key columns.
UNIQUE_INDEXES = """
SELECT t.relname, i.relname, x.indisprimary,
       EXISTS (SELECT FROM pg_attribute a
                WHERE a.attrelid = t.oid AND a.attname = %(column)s
                  AND a.attnum = ANY ((x.indkey::int2[])[0:x.indnkeyatts - 1])) AS has_column
  FROM pg_index x
  JOIN pg_class i ON i.oid = x.indexrelid
  JOIN pg_class t ON t.oid = x.indrelid
  JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
 WHERE x.indisunique
"""

# Foreign keys, and whether the child's distribution column is matched to the parent's in the same position.
FOREIGN_KEYS = """
SELECT k.conname, child.relname, parent.relname,
       EXISTS (SELECT FROM unnest(k.conkey, k.confkey) AS p(child_att, parent_att)
                 JOIN pg_attribute ca ON ca.attrelid = k.conrelid AND ca.attnum = p.child_att
                 JOIN pg_attribute pa ON pa.attrelid = k.confrelid AND pa.attnum = p.parent_att
                WHERE ca.attname = %(column)s AND pa.attname = %(column)s) AS matched
  FROM pg_constraint k
  JOIN pg_class child ON child.oid = k.conrelid
  JOIN pg_class parent ON parent.oid = k.confrelid
 WHERE k.contype = 'f' AND k.connamespace = 'public'::regnamespace
"""


def citus_readiness_problems(conn: psycopg.Connection) -> list[str]:
    """Everything in the live catalog that would stop core.distribution's plan; empty when the schema is ready."""
    params = {"column": DISTRIBUTION_COLUMN}
    distributed, reference, local = set(DISTRIBUTED_TABLES), set(REFERENCE_TABLES), set(COORDINATOR_TABLES)
    listed = distributed | reference | local
    problems = []
    tables = {name: (has_patient, has_column) for name, has_patient, has_column in conn.execute(TABLES, params)}
    for name in sorted(set(tables) - listed):
        problems.append(f"{name}: on no list in core/distribution.py")
    for name in sorted(listed - set(tables)):
        problems.append(f"{name}: listed in core/distribution.py but not in the database")
    every_entry = DISTRIBUTED_TABLES + REFERENCE_TABLES + COORDINATOR_TABLES
    if len(distributed) + len(reference) + len(local) != len(every_entry):
        problems.append("a table is listed twice in core/distribution.py")
    for name, (has_patient, has_column) in sorted(tables.items()):
        if has_patient and name not in distributed:
            problems.append(f"{name}: holds patient data but is not distributed")
        if name in distributed and not has_column:
            problems.append(f"{name}: distributed without a NOT NULL {DISTRIBUTION_COLUMN}")

    primary = set()
    for table, index, is_primary, has_column in conn.execute(UNIQUE_INDEXES, params):
        if table not in distributed:
            continue
        if is_primary:
            primary.add(table)
        if not has_column:
            problems.append(f"{table}: unique index {index} lacks {DISTRIBUTION_COLUMN}")
    for name in sorted(distributed & set(tables) - primary):
        problems.append(f"{name}: distributed without a primary key")

    order = {name: position for position, name in enumerate(REFERENCE_TABLES + DISTRIBUTED_TABLES)}
    for constraint, child, parent, matched in conn.execute(FOREIGN_KEYS, params):
        if parent in distributed and child not in distributed:
            problems.append(f"{child}: references the distributed table {parent} ({constraint}) but is not distributed")
        if child in distributed and parent in distributed and not matched:
            problems.append(f"{child}: foreign key {constraint} onto {parent} does not match {DISTRIBUTION_COLUMN}")
        if child in distributed | reference and parent in local:
            problems.append(f"{child}: references the coordinator-local table {parent} ({constraint})")
        if child != parent and child in order and parent in order and order[parent] > order[child]:
            problems.append(f"{child}: created before {parent}, which its foreign key {constraint} references")
    return problems


def test_the_schema_is_ready_to_be_distributed_by_organisation():
    """Every table is classified, every patient table is distributed, and every key among distributed tables
    includes organization_id: the catalog has nothing Citus would refuse."""
    from tests.conftest import admin_connect

    with admin_connect() as conn:
        assert citus_readiness_problems(conn) == []
        patient_tables = {name for name, has_patient, _ in conn.execute(TABLES, {"column": DISTRIBUTION_COLUMN})
                          if has_patient}
    assert len(patient_tables) >= 17 and patient_tables < set(DISTRIBUTED_TABLES)


def test_a_new_patient_table_without_the_organisation_is_caught():
    """The check above is not vacuous: a patient table added without organization_id, a unique index or primary key
    without it, a child whose foreign key skips it, or an unlisted table, each show up (in a rolled-back
    transaction)."""
    from tests.conftest import admin_connect

    with admin_connect() as conn:
        with conn.transaction(force_rollback=True):
            conn.execute("CREATE TABLE scratch_note (note_id uuid PRIMARY KEY, patient_id uuid NOT NULL)")
            conn.execute("ALTER TABLE memory_deletion ADD CONSTRAINT scratch_unique UNIQUE (deletion_id)")
            conn.execute("CREATE TABLE scratch_link (id bigint, organization_id uuid NOT NULL, memory_id uuid, "
                         "PRIMARY KEY (id, organization_id))")
            conn.execute("CREATE UNIQUE INDEX scratch_memory_key ON patient_memory (memory_id)")
            conn.execute("ALTER TABLE scratch_link ADD CONSTRAINT scratch_link_memory FOREIGN KEY (memory_id) "
                         "REFERENCES patient_memory (memory_id)")
            conn.execute("ALTER TABLE memory_embedding ADD CONSTRAINT scratch_embedding_memory "
                         "FOREIGN KEY (memory_id) REFERENCES patient_memory (memory_id)")
            problems = citus_readiness_problems(conn)
    assert "scratch_note: on no list in core/distribution.py" in problems
    assert "scratch_note: holds patient data but is not distributed" in problems
    assert "memory_deletion: unique index scratch_unique lacks organization_id" in problems
    assert "patient_memory: unique index scratch_memory_key lacks organization_id" in problems
    assert ("scratch_link: references the distributed table patient_memory (scratch_link_memory) but is not "
            "distributed") in problems
    assert ("memory_embedding: foreign key scratch_embedding_memory onto patient_memory does not match "
            "organization_id") in problems


def test_citus_statements_create_reference_tables_first_then_co_locate_the_rest():
    statements = citus_statements()
    assert len(statements) == len(REFERENCE_TABLES) + len(DISTRIBUTED_TABLES)
    assert statements[0] == "SELECT create_reference_table('organization');"
    assert statements[len(REFERENCE_TABLES)] == (
        f"SELECT create_distributed_table('{DISTRIBUTED_TABLES[0]}', 'organization_id');")
    assert all(f"colocate_with => '{DISTRIBUTED_TABLES[0]}'" in s for s in statements[len(REFERENCE_TABLES) + 1:])
