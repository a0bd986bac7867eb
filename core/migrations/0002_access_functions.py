"""The identity settings readers every policy uses. (The access rule built on them belongs to consent, which owns
the grants it reads: consent/sql/access_rule.sql.)

Reviewed notes:
* settings read back as '' (not NULL) after a transaction-local set_config; NULLIF makes an unset context deny;
* parameters are prefixed (p_*) so they never resolve to a column of the same name;
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION app_setting(p_name text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT NULLIF(current_setting(p_name, true), '') $$;

CREATE FUNCTION app_org_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT app_setting('app.org_id')::uuid $$;

CREATE FUNCTION app_actor_sub() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT app_setting('app.actor_sub') $$;

CREATE FUNCTION app_patient_self_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT app_setting('app.patient_self_id')::uuid $$;

CREATE FUNCTION app_has_scope(p_scope text) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT COALESCE(p_scope = ANY (string_to_array(app_setting('app.scopes'), ' ')), false) $$;
"""

REVERSE = r"""
DROP FUNCTION IF EXISTS app_has_scope(text);
DROP FUNCTION IF EXISTS app_patient_self_id();
DROP FUNCTION IF EXISTS app_actor_sub();
DROP FUNCTION IF EXISTS app_org_id();
DROP FUNCTION IF EXISTS app_setting(text);
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0001_initial")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
