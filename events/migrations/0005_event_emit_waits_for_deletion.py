"""``app_events_emit`` takes the organisation's subscription lock (shared) before it queues deliveries, so that
deleting a subscription (which takes it exclusively: ``events.services.subscription_delete``) waits for a change
that has queued a delivery to it, and then removes that delivery too. Without it, the change's commit failed: the
delivery's foreign key to the subscription is checked at commit (deferred), and the subscription was gone by then.
The function is otherwise 0002's (taken from it, so the two cannot drift); the reverse puts 0002's back.
"""

import re
from importlib import import_module

from django.db import migrations

EMIT_0002 = re.search(r"CREATE OR REPLACE FUNCTION app_events_emit\(.*?\$\$;",
                      import_module("events.migrations.0002_event_rls").FORWARD, re.S).group(0)
AFTER = "    RETURN 0;\n  END IF;\n"  # nobody subscribed: nothing is queued, no lock is taken
LOCK = """  -- Shared: emitters do not wait for each other. A deletion takes it exclusively, so it waits for this
  -- transaction and then removes what it queued here; or, if it came first, the statement below (a snapshot of its
  -- own) no longer sees the subscription.
  PERFORM pg_advisory_xact_lock_shared(hashtextextended('event_subscription:' || v_org::text, 0));
"""
if EMIT_0002.count(AFTER) != 1:
    raise RuntimeError("0002's app_events_emit is not the one this migration changes")
FORWARD = EMIT_0002.replace(AFTER, AFTER + LOCK)
REVERSE = EMIT_0002


class Migration(migrations.Migration):
    dependencies = [("events", "0004_event_retention")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
