from __future__ import annotations

import uuid

from core.errors import NotFound
from core.identity import Identity
from workflows.models import Workflow


def workflow_get(*, identity: Identity, workflow_id: uuid.UUID) -> Workflow:
    """The workflow, or NotFound whether it does not exist or is not the caller's (RLS)."""
    workflow = Workflow.objects.filter(workflow_id=workflow_id, organization_id=identity.org_id).first()
    if workflow is None:
        raise NotFound()
    return workflow
