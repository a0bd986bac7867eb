"""The identity settings readers and the one access rule every patient-scoped policy uses.

Reviewed notes:
* settings read back as '' (not NULL) after a transaction-local set_config; NULLIF makes an unset context deny;
* parameters are prefixed (p_*) so they never resolve to a column of the same name;
* app_may_access has no sub-query, so the planner inlines it into each policy; policies put the organisation
  test first as a scalar sub-select, which the planner evaluates once per statement (an InitPlan) and uses as
  an index condition, before the per-row part of the rule.
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

-- The grant half of the rule. Not inlinable (it holds a sub-query), so it is only reached for rows that are
-- already in the caller's organisation and are not the caller's own.
CREATE FUNCTION app_has_grant(p_org uuid, p_patient uuid, p_purpose text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT EXISTS (SELECT 1 FROM patient_access_grants g
                  WHERE g.organization_id = p_org
                    AND g.patient_id = p_patient
                    AND g.actor_sub = app_actor_sub()
                    AND g.purpose = p_purpose
                    AND g.revoked_at IS NULL
                    AND (g.expires_at IS NULL OR g.expires_at > now()))
$$;

-- The access rule, shared by every patient-scoped policy: the patient themself, or a staff subject with an
-- active, unexpired, unrevoked grant for exactly this purpose, always inside the caller's organisation.
-- It has no sub-query of its own, so the planner inlines it into each policy.
CREATE FUNCTION app_may_access(p_org uuid, p_patient uuid, p_purpose text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT p_org = app_org_id()
     AND (p_patient = app_patient_self_id() OR app_has_grant(p_org, p_patient, p_purpose))
$$;
"""

REVERSE = r"""
DROP FUNCTION IF EXISTS app_may_access(uuid, uuid, text);
DROP FUNCTION IF EXISTS app_has_grant(uuid, uuid, text);
DROP FUNCTION IF EXISTS app_has_scope(text);
DROP FUNCTION IF EXISTS app_patient_self_id();
DROP FUNCTION IF EXISTS app_actor_sub();
DROP FUNCTION IF EXISTS app_org_id();
DROP FUNCTION IF EXISTS app_setting(text);
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0001_initial"), ("consent", "0001_initial")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
