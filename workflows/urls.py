from django.urls import path

from workflows import api

urlpatterns = [
    # the hot route first: Django tries them in order (no two of them match the same path)
    path("workflows/<uuid:workflow_id>/checkpoint", api.WorkflowCheckpointView.as_view(),
         name="workflow-checkpoint"),
    path("workflows", api.WorkflowsView.as_view(), name="workflows"),
    path("workflows/reconciliation", api.WorkflowReconciliationView.as_view(), name="workflow-reconciliation"),
    path("workflows/<uuid:workflow_id>", api.WorkflowDetailView.as_view(), name="workflow-detail"),
    path("workflows/<uuid:workflow_id>/operations", api.WorkflowOperationsView.as_view(),
         name="workflow-operations"),
    path("workflows/<uuid:workflow_id>/operations/<uuid:operation_id>/retry",
         api.WorkflowOperationRetryView.as_view(), name="workflow-operation-retry"),
    path("workflows/<uuid:workflow_id>/operations/<uuid:operation_id>/resolve",
         api.WorkflowOperationResolveView.as_view(), name="workflow-operation-resolve"),
]
