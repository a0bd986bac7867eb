"""Portal logins: users are matched on the identity provider's (issuer, subject), never on e-mail."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("core", "0004_service_identity"),
    ]

    operations = [
        migrations.CreateModel(
            name="PortalIdentity",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("issuer", models.CharField(max_length=255)),
                ("subject", models.CharField(max_length=255)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("user", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE,
                                              related_name="portal_identity", to="auth.user")),
            ],
            options={
                "db_table": "portal_identity",
                "constraints": [models.UniqueConstraint(fields=("issuer", "subject"),
                                                        name="portal_identity_issuer_subject")],
            },
        ),
    ]
