"""Admission: a token's organisation must be registered and trust the token's issuer.

* ``app_admit(org, issuer)`` answers from the registry in the statement that sets the request identity (no extra
  round trip). It is SECURITY DEFINER (the owner reads the registry through ``organization_owner``, a policy for
  the owner role only), so callers never see other tenants' rows.
* ``app_is_organization_admin()``: the caller holds ``organization:admin`` AND their own organisation is flagged
  ``administrator``. A tenant's identity provider can put any scope in its tokens; only the registry makes one an
  administrator. Such a caller may list and register organisations (``organization_administered``, runtime only,
  so the owner-run function never recurses into it).
"""

from django.db import migrations

FORWARD = r"""
DO $$ BEGIN
  EXECUTE format('CREATE POLICY organization_owner ON organization TO %I USING (true) WITH CHECK (true)',
                 current_user);
END $$;

CREATE FUNCTION app_admit(p_org uuid, p_issuer text) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
AS $$ SELECT EXISTS (SELECT 1 FROM organization o WHERE o.id = p_org AND p_issuer = ANY (o.trusted_issuers)) $$;

CREATE FUNCTION app_is_organization_admin() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
AS $$ SELECT app_has_scope('organization:admin')
             AND EXISTS (SELECT 1 FROM organization o WHERE o.id = app_org_id() AND o.administrator) $$;

REVOKE EXECUTE ON FUNCTION app_admit(uuid, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION app_is_organization_admin() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app_admit(uuid, text) TO anamnesis_runtime;
GRANT EXECUTE ON FUNCTION app_is_organization_admin() TO anamnesis_runtime;

CREATE POLICY organization_administered ON organization TO anamnesis_runtime
  USING ((SELECT app_is_organization_admin())) WITH CHECK ((SELECT app_is_organization_admin()));
-- Only the owner (manage.py register_organization) changes a registration or makes an administrator.
REVOKE INSERT, UPDATE ON organization FROM anamnesis_runtime;
GRANT INSERT (id, name, created_at, trusted_issuers) ON organization TO anamnesis_runtime;
"""

REVERSE = r"""
REVOKE INSERT (id, name, created_at, trusted_issuers) ON organization FROM anamnesis_runtime;
GRANT INSERT, UPDATE ON organization TO anamnesis_runtime;
DROP POLICY IF EXISTS organization_administered ON organization;
DROP FUNCTION IF EXISTS app_is_organization_admin();
DROP FUNCTION IF EXISTS app_admit(uuid, text);
DROP POLICY IF EXISTS organization_owner ON organization;
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0006_organization_registry_i11b")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
