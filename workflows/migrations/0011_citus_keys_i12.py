"""Ready for Citus (docs/scaling.md section 2, core/distribution.py): every primary key, unique constraint and foreign
key among the workflow tables includes organization_id, the distribution column.

* Primary keys become (<id>, organization_id); the id leads, so every lookup by id alone keeps its index.
* The transition version, the three outbox rules and the idempotency key gain organization_id (last). The key was
  unique across organisations; it is made from the operation's UUID (workflows.services.new_idempotency_key), so
  uniqueness within the organisation loses nothing.
* Django's single-column foreign keys are dropped (``db_constraint=False`` in the models). An operation's workflow is
  already bound by operation_workflow_scope_fk (0004: workflow, organisation, patient, purpose); a transition's
  workflow and operation get composite keys on (<id>, organization_id), DEFERRABLE INITIALLY DEFERRED with no ON
  DELETE action, as Django's were. Every existing row is checked when they are added.
"""

import django.db.models.deletion
from django.db import migrations, models

PRIMARY_KEYS = """
ALTER TABLE agent_workflow DROP CONSTRAINT agent_workflow_pkey,
  ADD CONSTRAINT agent_workflow_pkey PRIMARY KEY (workflow_id, organization_id);
ALTER TABLE workflow_operation DROP CONSTRAINT workflow_operation_pkey,
  ADD CONSTRAINT workflow_operation_pkey PRIMARY KEY (operation_id, organization_id);
ALTER TABLE agent_workflow_transition DROP CONSTRAINT agent_workflow_transition_pkey,
  ADD CONSTRAINT agent_workflow_transition_pkey PRIMARY KEY (id, organization_id);
"""

PRIMARY_KEYS_REVERSE = """
ALTER TABLE agent_workflow_transition DROP CONSTRAINT agent_workflow_transition_pkey,
  ADD CONSTRAINT agent_workflow_transition_pkey PRIMARY KEY (id);
ALTER TABLE workflow_operation DROP CONSTRAINT workflow_operation_pkey,
  ADD CONSTRAINT workflow_operation_pkey PRIMARY KEY (operation_id);
ALTER TABLE agent_workflow DROP CONSTRAINT agent_workflow_pkey,
  ADD CONSTRAINT agent_workflow_pkey PRIMARY KEY (workflow_id);
"""

FOREIGN_KEYS = """
ALTER TABLE agent_workflow_transition ADD CONSTRAINT workflow_transition_workflow_fk
  FOREIGN KEY (workflow_id, organization_id) REFERENCES agent_workflow (workflow_id, organization_id)
  DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE agent_workflow_transition ADD CONSTRAINT workflow_transition_operation_fk
  FOREIGN KEY (operation_id, organization_id) REFERENCES workflow_operation (operation_id, organization_id)
  DEFERRABLE INITIALLY DEFERRED;
"""

FOREIGN_KEYS_REVERSE = """
ALTER TABLE agent_workflow_transition DROP CONSTRAINT workflow_transition_operation_fk;
ALTER TABLE agent_workflow_transition DROP CONSTRAINT workflow_transition_workflow_fk;
"""

STATUSES_UNSETTLED = ["pending", "in_flight", "outcome_unknown"]


class Migration(migrations.Migration):
    dependencies = [("workflows", "0010_outbox_metrics_i17")]
    operations = [
        migrations.RemoveConstraint(model_name="operation", name="operation_one_per_payload"),
        migrations.RemoveConstraint(model_name="operation", name="operation_one_active_per_kind"),
        migrations.RemoveConstraint(model_name="operation", name="operation_request_key"),
        migrations.RemoveConstraint(model_name="workflowtransition", name="workflow_transition_version"),
        migrations.AlterField(model_name="operation", name="idempotency_key", field=models.CharField(max_length=100)),
        migrations.AlterField(
            model_name="operation", name="workflow",
            field=models.ForeignKey(db_column="workflow_id", db_constraint=False,
                                    on_delete=django.db.models.deletion.PROTECT, related_name="operations",
                                    to="workflows.workflow")),
        migrations.AlterField(
            model_name="workflowtransition", name="operation",
            field=models.ForeignKey(blank=True, db_column="operation_id", db_constraint=False, null=True,
                                    on_delete=django.db.models.deletion.PROTECT, related_name="+",
                                    to="workflows.operation")),
        migrations.AlterField(
            model_name="workflowtransition", name="workflow",
            field=models.ForeignKey(db_column="workflow_id", db_constraint=False,
                                    on_delete=django.db.models.deletion.PROTECT, related_name="transitions",
                                    to="workflows.workflow")),
        migrations.AddConstraint(
            model_name="operation",
            constraint=models.UniqueConstraint(condition=~models.Q(status__in=["failed", "cancelled"]),
                                               fields=("workflow", "kind", "payload_hash", "organization_id"),
                                               name="operation_one_per_payload")),
        migrations.AddConstraint(
            model_name="operation",
            constraint=models.UniqueConstraint(condition=models.Q(status__in=STATUSES_UNSETTLED),
                                               fields=("workflow", "kind", "organization_id"),
                                               name="operation_one_active_per_kind")),
        migrations.AddConstraint(
            model_name="operation",
            constraint=models.UniqueConstraint(condition=models.Q(request_key__isnull=False),
                                               fields=("workflow", "request_key", "organization_id"),
                                               name="operation_request_key")),
        migrations.AddConstraint(
            model_name="operation",
            constraint=models.UniqueConstraint(fields=("idempotency_key", "organization_id"),
                                               name="operation_idempotency_key")),
        migrations.AddConstraint(
            model_name="workflowtransition",
            constraint=models.UniqueConstraint(fields=("workflow", "version", "organization_id"),
                                               name="workflow_transition_version")),
        migrations.RunSQL(PRIMARY_KEYS, PRIMARY_KEYS_REVERSE),
        migrations.RunSQL(FOREIGN_KEYS, FOREIGN_KEYS_REVERSE),
    ]
