"""How the schema would be spread over a Citus cluster: every table in exactly one of three lists.

* Distributed by ``organization_id`` and co-located: every table that holds a patient's data, every table that
  references one of them, and the per-organisation registries (memory types and their wording, staff,
  idempotency records). Each primary key, unique index and foreign key among them includes ``organization_id``, so
  a request, which always acts for one organisation, runs on one shard.
* Reference tables (one copy on every node): small, no patient data, read beside the distributed tables or
  referenced by them (the organisation registry, the outside systems' circuits, Django's users and sessions).
* Coordinator-local: bookkeeping never joined with patient data. The rate counter is written on every request;
  as a reference table each increment would be written on every node.

``tests/test_citus_ready.py`` checks these lists and the keys against the catalog; ``docs/scaling.md`` section 2
explains them. The order of each tuple is the order ``citus_statements`` creates them in: a table comes after
every table its foreign keys reference.
"""

from __future__ import annotations

DISTRIBUTION_COLUMN = "organization_id"

# The first one anchors the co-location group; the rest are co-located with it.
DISTRIBUTED_TABLES: tuple[str, ...] = (
    "patient_consent",
    "patient_access_grants",
    "patient_memory",  # -> patient_consent, patient_memory (superseded_by)
    "memory_lifecycle_event",  # -> patient_memory
    "memory_representation",  # -> patient_memory
    "memory_embedding",  # -> patient_memory
    "memory_release",
    "memory_release_member",  # -> memory_release, patient_memory
    "memory_deletion",
    "memory_type",
    "memory_type_serves",
    "conversation_session",
    "conversation_turn",  # -> conversation_session
    "agent_workflow",
    "workflow_operation",  # -> agent_workflow
    "agent_workflow_transition",  # -> agent_workflow, workflow_operation
    "audit_event",
    "patient_directory",
    "patient_identifier",
    "staff_directory",
    "idempotency_record",
    "event_subscription",
    "event_outbox",
    "event_delivery",  # -> event_outbox, event_subscription
)

REFERENCE_TABLES: tuple[str, ...] = (
    "organization",
    "workflow_circuit",
    "django_content_type",
    "auth_permission",  # -> django_content_type
    "auth_group",
    "auth_group_permissions",  # -> auth_group, auth_permission
    "auth_user",
    "auth_user_groups",  # -> auth_user, auth_group
    "auth_user_user_permissions",  # -> auth_user, auth_permission
    "django_admin_log",  # -> auth_user, django_content_type
    "portal_identity",  # -> auth_user
    "django_session",
)

COORDINATOR_TABLES: tuple[str, ...] = (
    "django_migrations",
    "api_rate_counter",
    "core_sweep_run",
)


def citus_statements() -> list[str]:
    """The statements that distribute an already migrated database, in an order the foreign keys accept."""
    statements = [f"SELECT create_reference_table('{table}');" for table in REFERENCE_TABLES]
    anchor, *others = DISTRIBUTED_TABLES
    statements.append(f"SELECT create_distributed_table('{anchor}', '{DISTRIBUTION_COLUMN}');")
    statements += [f"SELECT create_distributed_table('{table}', '{DISTRIBUTION_COLUMN}', colocate_with => '{anchor}');"
                   for table in others]
    return statements
