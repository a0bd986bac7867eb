from django.urls import include, path

from portal import auth
from portal.views import activity, audit, consent, memory, types, workflows

urlpatterns = [
    path("", auth.home, name="portal-home"),
    path("login/", auth.login_page, name="portal-login"),
    path("logout/", auth.logout, name="portal-logout"),
    path("signed-out/", auth.signed_out, name="portal-signed-out"),
    # mozilla-django-oidc's own sign-out answered 500 (no LOGOUT_REDIRECT_URL) and left the session signed in;
    # its address is the portal's sign-out too (POST with CSRF, the provider's session ended, the token rotated)
    path("oidc/logout/", auth.logout, name="oidc_logout"),
    path("oidc/", include("mozilla_django_oidc.urls")),
    # patients
    path("me/", memory.patient_preferences, name="patient-preferences"),
    path("me/preferences/<uuid:memory_id>/correct/", memory.patient_correct, name="patient-correct"),
    path("me/preferences/<uuid:memory_id>/delete/", memory.patient_delete, name="patient-delete"),
    path("me/preferences/delete-all/", memory.patient_delete_all, name="patient-delete-all"),
    path("me/proposals/<uuid:memory_id>/confirm/", memory.patient_confirm, name="patient-confirm"),
    path("me/proposals/<uuid:memory_id>/reject/", memory.patient_reject, name="patient-reject"),
    path("me/deletions/", memory.patient_receipts, name="patient-receipts"),
    path("me/deletions/<uuid:deletion_id>/", memory.patient_receipt, name="patient-receipt"),
    path("me/activity/", activity.patient_activity, name="patient-activity"),
    path("me/consents/", consent.patient_consents, name="patient-consents"),
    path("me/consents/<uuid:consent_id>/revoke/", consent.patient_revoke, name="patient-revoke"),
    path("me/consents/give/", consent.patient_give, name="patient-give-consent"),
    # staff console
    path("staff/", consent.staff_patients, name="staff-patients"),
    path("staff/patients/<uuid:patient_id>/", consent.staff_patient, name="staff-patient"),
    path("staff/patients/<uuid:patient_id>/consents/new/", consent.staff_record_consent,
         name="staff-record-consent"),
    path("staff/patients/<uuid:patient_id>/memories/<uuid:memory_id>/correct/", memory.staff_correct,
         name="staff-correct"),
    path("staff/patients/<uuid:patient_id>/memories/<uuid:memory_id>/quarantine/", memory.staff_quarantine,
         name="staff-quarantine"),
    path("staff/patients/<uuid:patient_id>/memories/<uuid:memory_id>/release/", memory.staff_release,
         name="staff-release"),
    path("staff/patients/<uuid:patient_id>/memories/<uuid:memory_id>/confirm/", memory.staff_confirm,
         name="staff-confirm"),
    path("staff/patients/<uuid:patient_id>/memories/<uuid:memory_id>/reject/", memory.staff_reject,
         name="staff-reject"),
    path("staff/workflows/", workflows.monitor, name="workflow-monitor"),
    path("staff/workflows/<uuid:workflow_id>/operations/<uuid:operation_id>/resolve", workflows.resolve,
         name="workflow-operation-resolve"),
    # auditors (and administrators): the organisation's access history
    path("staff/access-history/", audit.access_history, name="access-history"),
    # organisation administrators
    path("staff/access/", consent.admin_access, name="admin-access"),
    path("staff/access/<uuid:grant_id>/revoke/", consent.admin_revoke, name="admin-revoke"),
    path("staff/memory-types/", types.memory_types, name="memory-types"),
]
