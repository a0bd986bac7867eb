"""An operation may also be withdrawn because the consent it was asked under ran out (consent_expired), as when it
is withdrawn (consent_revoked) or its patient erased."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('workflows', '0016_operation_guard_requester_and_withdrawal'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='operation',
            name='operation_withdrawn_reason_valid',
        ),
        migrations.AddConstraint(
            model_name='operation',
            constraint=models.CheckConstraint(condition=models.Q(('withdrawn_reason__isnull', True), ('withdrawn_reason__in', ['consent_revoked', 'consent_expired', 'patient_erasure']), _connector='OR'), name='operation_withdrawn_reason_valid'),
        ),
    ]
