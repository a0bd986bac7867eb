from django.urls import path

from workflows import api

urlpatterns = [
    path("workflows", api.WorkflowsView.as_view(), name="workflows"),
    path("workflows/<uuid:workflow_id>", api.WorkflowDetailView.as_view(), name="workflow-detail"),
    path("workflows/<uuid:workflow_id>/checkpoint", api.WorkflowCheckpointView.as_view(),
         name="workflow-checkpoint"),
]
