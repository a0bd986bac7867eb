from django.urls import path

from core import api_views

urlpatterns = [
    path("audit-events", api_views.AuditEventListView.as_view(), name="audit-event-list"),
    path("organizations", api_views.OrganizationListView.as_view(), name="organization-list"),
]
