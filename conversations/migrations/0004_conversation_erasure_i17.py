"""Erase-all reaches conversations: while ``app.erasure_patient`` names a patient (set for one transaction by
the erase-all eraser), the caller may delete that patient's sessions and turns that it may access anyway, live or
ended, instead of only the due ones the sweep may remove. Reads and the other rules are unchanged."""

from django.db import migrations

FORWARD = r"""
CREATE POLICY conversation_session_erase ON conversation_session FOR DELETE
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose)
         AND patient_id::text = (SELECT app_setting('app.erasure_patient')));
CREATE POLICY conversation_turn_erase ON conversation_turn FOR DELETE
  USING (organization_id = (SELECT app_org_id()) AND app_may_access(organization_id, patient_id, purpose)
         AND patient_id::text = (SELECT app_setting('app.erasure_patient')));
"""

REVERSE = r"""
DROP POLICY IF EXISTS conversation_turn_erase ON conversation_turn;
DROP POLICY IF EXISTS conversation_session_erase ON conversation_session;
"""


class Migration(migrations.Migration):
    dependencies = [("conversations", "0003_conversation_rls")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
