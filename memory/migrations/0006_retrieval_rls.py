"""Row-level security on embeddings and releases (the common rule for their purpose), and a discovery policy
for re-indexing after a model change (ids of live memories only, when app.maintenance = 'reindex').

No approximate vector index: per-patient candidate sets are small and ranked exactly, and an index scan under
RLS can silently return fewer rows than asked."""

from django.db import migrations

FORWARD = r"""
ALTER TABLE memory_embedding ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_embedding FORCE ROW LEVEL SECURITY;
CREATE POLICY embedding_scope ON memory_embedding
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose));
REVOKE TRUNCATE ON memory_embedding FROM anamnesis_runtime;

ALTER TABLE memory_release ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_release FORCE ROW LEVEL SECURITY;
CREATE POLICY release_scope ON memory_release
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose)
              AND actor_sub = (SELECT app_actor_sub()));
REVOKE UPDATE, DELETE, TRUNCATE ON memory_release FROM anamnesis_runtime;

ALTER TABLE memory_release_member ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_release_member FORCE ROW LEVEL SECURITY;
CREATE POLICY release_member_scope ON memory_release_member
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose))
  WITH CHECK (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose));
REVOKE DELETE, TRUNCATE ON memory_release_member FROM anamnesis_runtime;

CREATE POLICY memory_reindex_discovery ON patient_memory FOR SELECT
  USING (app_setting('app.maintenance') = 'reindex' AND state IN ('active', 'proposed', 'quarantined'));
"""

REVERSE = r"""
DROP POLICY IF EXISTS memory_reindex_discovery ON patient_memory;
GRANT DELETE ON memory_release_member TO anamnesis_runtime;
DROP POLICY IF EXISTS release_member_scope ON memory_release_member;
ALTER TABLE memory_release_member NO FORCE ROW LEVEL SECURITY;
ALTER TABLE memory_release_member DISABLE ROW LEVEL SECURITY;
GRANT UPDATE, DELETE ON memory_release TO anamnesis_runtime;
DROP POLICY IF EXISTS release_scope ON memory_release;
ALTER TABLE memory_release NO FORCE ROW LEVEL SECURITY;
ALTER TABLE memory_release DISABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS embedding_scope ON memory_embedding;
ALTER TABLE memory_embedding NO FORCE ROW LEVEL SECURITY;
ALTER TABLE memory_embedding DISABLE ROW LEVEL SECURITY;
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0005_retrieval_tables")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
