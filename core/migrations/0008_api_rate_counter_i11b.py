"""Rate-limit counters shared by every worker process: fixed windows, one row per (bucket, window, database
backend). Each connection increments only its own row, so concurrent requests never wait on each other's row
lock; a limit check sums the few rows of the bucket's current window. UNLOGGED: counters are not worth a WAL
flush and may be lost in a crash. Buckets are keyed hashes of (organisation, subject), never identifiers."""

from django.db import migrations

FORWARD = r"""
CREATE UNLOGGED TABLE api_rate_counter (
  bucket text NOT NULL CHECK (length(bucket) <= 64),
  window_number bigint NOT NULL,
  backend integer NOT NULL,
  hits integer NOT NULL DEFAULT 0,
  PRIMARY KEY (bucket, window_number, backend)
);
GRANT SELECT, INSERT, UPDATE, DELETE ON api_rate_counter TO anamnesis_runtime;
"""

REVERSE = r"""
DROP TABLE IF EXISTS api_rate_counter;
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0007_organization_admission_i11b")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
