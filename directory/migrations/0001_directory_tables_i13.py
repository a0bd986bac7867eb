"""The patient and staff directory tables (row-level security in the next migration)."""

import django.db.models.deletion
import django.db.models.functions.text
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('core', '0005_portal_identity'),
    ]

    operations = [
        migrations.CreateModel(
            name='PatientIdentifier',
            fields=[
                ('id', models.BigAutoField(primary_key=True, serialize=False)),
                ('patient_id', models.UUIDField()),
                ('system', models.CharField(max_length=200)),
                ('value', models.CharField(max_length=100)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('organization', models.ForeignKey(db_column='organization_id', on_delete=django.db.models.deletion.PROTECT, to='core.organization')),
            ],
            options={
                'db_table': 'patient_identifier',
                'indexes': [models.Index(fields=['organization', 'patient_id'], name='patient_identifier_patient')],
                'constraints': [models.UniqueConstraint(fields=('organization', 'system', 'value'), name='patient_identifier_unique')],
            },
        ),
        migrations.CreateModel(
            name='PatientProfile',
            fields=[
                ('id', models.BigAutoField(primary_key=True, serialize=False)),
                ('patient_id', models.UUIDField()),
                ('display_name', models.CharField(max_length=200)),
                ('birth_date', models.DateField(blank=True, null=True)),
                ('created_by', models.CharField(max_length=255)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('organization', models.ForeignKey(db_column='organization_id', on_delete=django.db.models.deletion.PROTECT, to='core.organization')),
            ],
            options={
                'db_table': 'patient_directory',
                'indexes': [models.Index(django.db.models.functions.text.Lower('display_name'), models.F('organization'), name='patient_directory_name')],
                'constraints': [models.UniqueConstraint(fields=('organization', 'patient_id'), name='patient_directory_one_per_patient'), models.CheckConstraint(condition=models.Q(('display_name', ''), _negated=True), name='patient_directory_name_present')],
            },
        ),
        migrations.CreateModel(
            name='StaffMember',
            fields=[
                ('id', models.BigAutoField(primary_key=True, serialize=False)),
                ('actor_sub', models.CharField(max_length=255)),
                ('display_name', models.CharField(max_length=200)),
                ('kind', models.CharField(choices=[('person', 'Person'), ('agent', 'Agent')], default='person', max_length=10)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('organization', models.ForeignKey(db_column='organization_id', on_delete=django.db.models.deletion.PROTECT, to='core.organization')),
            ],
            options={
                'db_table': 'staff_directory',
                'constraints': [models.UniqueConstraint(fields=('organization', 'actor_sub'), name='staff_directory_one_per_subject'), models.CheckConstraint(condition=models.Q(('kind__in', ['person', 'agent'])), name='staff_directory_kind_valid')],
            },
        ),
    ]
