"""The request gate refuses in SQL: ``app_gate_refuse(admitted, within_limits)`` raises (SQLSTATE ``AN403`` for an
organisation that is not registered or does not trust the token's issuer, ``AN429`` over a rate limit) inside the
statement that sets the request identity. The transaction is then aborted at once, so statements sent after it in
the same pipeline (the read, its audit row, a COMMIT) never run and nothing the refused request did can commit."""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION app_gate_refuse(p_admitted boolean, p_within_limits boolean) RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = public, pg_temp
AS $$
BEGIN
  IF NOT coalesce(p_admitted, false) THEN
    RAISE EXCEPTION 'organisation not admitted' USING ERRCODE = 'AN403';
  END IF;
  IF NOT coalesce(p_within_limits, false) THEN
    RAISE EXCEPTION 'rate limit reached' USING ERRCODE = 'AN429';
  END IF;
  RETURN true;
END
$$;
REVOKE EXECUTE ON FUNCTION app_gate_refuse(boolean, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app_gate_refuse(boolean, boolean) TO anamnesis_runtime;
"""

REVERSE = r"""
DROP FUNCTION IF EXISTS app_gate_refuse(boolean, boolean);
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0012_idempotency_withdrawn_p6")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
