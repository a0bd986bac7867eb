"""An operation records what kind of caller asked for it (patient, staff, agent, service), and the reconciliation
queue shows it beside the operation (the view of 0013 with the column added at its end; reversing restores 0013's
view and its grant). Operations requested before are NULL: not recorded."""

from django.db import migrations, models

_VIEW = r"""
CREATE OR REPLACE VIEW workflow_reconciliation_queue AS
  SELECT w.workflow_id, w.organization_id, w.patient_id, w.workflow_type, w.purpose, w.current_step, w.version,
         w.updated_at, o.operation_id, o.kind, o.system, o.status AS operation_status, o.attempts,
         o.next_attempt_at, o.last_error_code{outer}
    FROM agent_workflow w
    LEFT JOIN LATERAL (
      SELECT op.operation_id, op.kind, op.system, op.status, op.attempts, op.next_attempt_at, op.last_error_code{inner}
        FROM workflow_operation op
       WHERE op.workflow_id = w.workflow_id AND op.status IN ('pending', 'in_flight', 'outcome_unknown')
       ORDER BY op.created_at DESC
       LIMIT 1) o ON true
   WHERE w.current_step = 'needs_reconciliation'
      OR (w.current_step = 'cancelled' AND o.status = 'outcome_unknown' AND o.next_attempt_at IS NULL);
"""

FORWARD = _VIEW.format(outer=", o.requested_by_kind", inner=", op.requested_by_kind")
# CREATE OR REPLACE cannot drop a column: the view is made again, with its grant
REVERSE = ("DROP VIEW workflow_reconciliation_queue;\n" + _VIEW.format(outer="", inner="")
           + "REVOKE ALL ON workflow_reconciliation_queue FROM anamnesis_runtime;\n"
           "GRANT SELECT ON workflow_reconciliation_queue TO anamnesis_runtime;\n")


class Migration(migrations.Migration):
    dependencies = [("workflows", "0014_operation_withdrawn_reason")]

    operations = [
        migrations.AddField(
            model_name="operation",
            name="requested_by_kind",
            field=models.CharField(blank=True, max_length=12, null=True),
        ),
        migrations.AddConstraint(
            model_name="operation",
            constraint=models.CheckConstraint(
                condition=models.Q(("requested_by_kind__isnull", True),
                                   ("requested_by_kind__in", ["patient", "staff", "agent", "service"]),
                                   _connector="OR"),
                name="operation_requested_by_kind_valid"),
        ),
        migrations.RunSQL(FORWARD, REVERSE),
    ]
