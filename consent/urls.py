from django.urls import path

from consent import api

urlpatterns = [
    path("patients/<uuid:patient_id>/consents", api.PatientConsentsView.as_view(), name="patient-consents"),
    path("patients/<uuid:patient_id>/consents/<uuid:consent_id>/revoke", api.ConsentRevokeView.as_view(),
         name="patient-consent-revoke"),
    path("grants", api.GrantsView.as_view(), name="grants"),
    path("grants/<uuid:grant_id>/revoke", api.GrantRevokeView.as_view(), name="grant-revoke"),
]
