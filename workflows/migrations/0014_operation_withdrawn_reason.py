"""An operation withdrawn while it may already have arrived (its consent withdrawn, its patient erased) is marked, so
the worker only asks the outside system about it and never sends it again."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('workflows', '0013_reconciliation_parked_after_cancel'),
    ]

    operations = [
        migrations.AddField(
            model_name='operation',
            name='withdrawn_reason',
            field=models.CharField(blank=True, max_length=40, null=True),
        ),
        migrations.AddConstraint(
            model_name='operation',
            constraint=models.CheckConstraint(condition=models.Q(('withdrawn_reason__isnull', True), ('withdrawn_reason__in', ['consent_revoked', 'patient_erasure']), _connector='OR'), name='operation_withdrawn_reason_valid'),
        ),
    ]
