from django.urls import path

from rights import api

urlpatterns = [
    path("patients/<uuid:patient_id>/export", api.PatientExportView.as_view(), name="patient-export"),
    path("patients/<uuid:patient_id>/fhir-import", api.PatientFhirImportView.as_view(), name="patient-fhir-import"),
]
