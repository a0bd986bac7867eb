from django.urls import path

from memory import views

urlpatterns = [
    path("me/", views.patient_preferences, name="patient-preferences"),
    path("me/preferences/<uuid:memory_id>/correct/", views.patient_correct, name="patient-correct"),
    path("me/preferences/<uuid:memory_id>/delete/", views.patient_delete, name="patient-delete"),
    path("me/preferences/delete-all/", views.patient_delete_all, name="patient-delete-all"),
    path("me/proposals/<uuid:memory_id>/confirm/", views.patient_confirm, name="patient-confirm"),
    path("me/proposals/<uuid:memory_id>/reject/", views.patient_reject, name="patient-reject"),
    path("me/deletions/", views.patient_receipts, name="patient-receipts"),
    path("me/deletions/<uuid:deletion_id>/", views.patient_receipt, name="patient-receipt"),
    path("me/activity/", views.patient_activity, name="patient-activity"),
    path("staff/patients/<uuid:patient_id>/memories/<uuid:memory_id>/correct/", views.staff_correct,
         name="staff-correct"),
    path("staff/patients/<uuid:patient_id>/memories/<uuid:memory_id>/quarantine/", views.staff_quarantine,
         name="staff-quarantine"),
]
