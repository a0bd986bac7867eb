from django.urls import path

from memory import api, api_search
from memory.types import api as types_api

P = "patients/<uuid:patient_id>/memories"

urlpatterns = [
    path(P, api.PatientMemoriesView.as_view(), name="patient-memories"),
    path(f"{P}/proposals", api.MemoryProposalsView.as_view(), name="memory-proposals"),
    path(f"{P}/search", api_search.PatientMemorySearchView.as_view(), name="memory-search"),
    path("patients/<uuid:patient_id>/context", api_search.PatientContextView.as_view(), name="patient-context"),
    path("patients/<uuid:patient_id>/releases", api_search.PatientReleasesView.as_view(), name="patient-releases"),
    path(f"{P}/<uuid:memory_id>", api.MemoryDetailView.as_view(), name="memory-detail"),
    path(f"{P}/<uuid:memory_id>/history", api.MemoryHistoryView.as_view(), name="memory-history"),
    path(f"{P}/<uuid:memory_id>/correct", api.MemoryCorrectView.as_view(), name="memory-correct"),
    path(f"{P}/<uuid:memory_id>/quarantine", api.MemoryQuarantineView.as_view(), name="memory-quarantine"),
    path(f"{P}/<uuid:memory_id>/release", api.MemoryReleaseView.as_view(), name="memory-release"),
    path(f"{P}/<uuid:memory_id>/confirm", api.MemoryConfirmView.as_view(), name="memory-confirm"),
    path(f"{P}/<uuid:memory_id>/reject", api.MemoryRejectView.as_view(), name="memory-reject"),
    path("memory-types", types_api.MemoryTypesView.as_view(), name="memory-types"),
    path("memory-types/<str:name>", types_api.MemoryTypeDetailView.as_view(), name="memory-type-detail"),
    path("memory-types/<str:name>/versions", types_api.MemoryTypeVersionsView.as_view(), name="memory-type-versions"),
    path("memory-types/<str:name>/serves", types_api.MemoryTypeServesView.as_view(), name="memory-type-serves"),
    path("memory-types/<str:name>/versions/<int:version>", types_api.MemoryTypeVersionView.as_view(),
         name="memory-type-version"),
    path("patients/<uuid:patient_id>/deletions", api.DeletionsView.as_view(), name="memory-deletions"),
]
