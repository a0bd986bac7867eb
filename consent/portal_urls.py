from django.urls import path

from consent import views

urlpatterns = [
    path("me/consents/", views.patient_consents, name="patient-consents"),
    path("me/consents/<uuid:consent_id>/revoke/", views.patient_revoke, name="patient-revoke"),
    path("staff/", views.staff_patients, name="staff-patients"),
    path("staff/patients/<uuid:patient_id>/", views.staff_patient, name="staff-patient"),
    path("staff/patients/<uuid:patient_id>/consents/new/", views.staff_record_consent, name="staff-record-consent"),
    path("staff/access/", views.admin_access, name="admin-access"),
    path("staff/access/<uuid:grant_id>/revoke/", views.admin_revoke, name="admin-revoke"),
]
