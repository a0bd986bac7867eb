"""The identity settings readers and the one access rule every patient-scoped policy uses.

Reviewed notes:
* settings read back as '' (not NULL) after a transaction-local set_config; NULLIF makes an unset context deny;
* parameters are prefixed (p_*) so they never resolve to a column of the same name;
* inside app_may_access each setting is read through a scalar sub-select, so after inlining the planner
  evaluates it once per statement (an InitPlan), not once per row.
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

-- The access rule: the patient themself, or a staff subject with an active, unexpired, unrevoked grant for
-- exactly this purpose, always inside the caller's organisation.
CREATE FUNCTION app_may_access(p_org uuid, p_patient uuid, p_purpose text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT p_org = (SELECT app_org_id())
     AND (p_patient = (SELECT app_patient_self_id())
          OR EXISTS (SELECT 1 FROM patient_access_grants g
                      WHERE g.organization_id = p_org
                        AND g.patient_id = p_patient
                        AND g.actor_sub = (SELECT app_actor_sub())
                        AND g.purpose = p_purpose
                        AND g.revoked_at IS NULL
                        AND (g.expires_at IS NULL OR g.expires_at > now())))
$$;
"""

REVERSE = r"""
DROP FUNCTION IF EXISTS app_may_access(uuid, uuid, text);
DROP FUNCTION IF EXISTS app_has_scope(text);
DROP FUNCTION IF EXISTS app_patient_self_id();
DROP FUNCTION IF EXISTS app_actor_sub();
DROP FUNCTION IF EXISTS app_org_id();
DROP FUNCTION IF EXISTS app_setting(text);
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0001_initial"), ("consent", "0001_initial")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
