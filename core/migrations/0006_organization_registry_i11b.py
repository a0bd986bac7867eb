"""Organisations are registered, each with the token issuers it trusts; one may administer the registry."""

from django.contrib.postgres.fields import ArrayField
from django.db import migrations, models

FORWARD = r"""
ALTER TABLE organization
  ADD COLUMN trusted_issuers text[] NOT NULL DEFAULT '{}',
  ADD COLUMN administrator boolean NOT NULL DEFAULT false;
ALTER TABLE organization ADD CONSTRAINT organization_issuers_bounded
  CHECK (cardinality(trusted_issuers) <= 20 AND array_position(trusted_issuers, NULL) IS NULL);
"""

REVERSE = r"""
ALTER TABLE organization DROP CONSTRAINT IF EXISTS organization_issuers_bounded;
ALTER TABLE organization DROP COLUMN IF EXISTS administrator, DROP COLUMN IF EXISTS trusted_issuers;
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0007_audit_coded_values_i11")]
    operations = [
        migrations.RunSQL(FORWARD, REVERSE, state_operations=[
            migrations.AddField("organization", "trusted_issuers",
                                ArrayField(models.CharField(max_length=255), default=list, blank=True)),
            migrations.AddField("organization", "administrator", models.BooleanField(default=False)),
        ]),
    ]
