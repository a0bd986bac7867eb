"""Care context imported from the EHR as FHIR resources: ``AllergyIntolerance`` and ``MedicationStatement``.

The resource is validated by the FHIR model library, mapped onto the typed facts of ``care_context`` (validated
again as any fact is), and recorded through ``memory.services.memory_record`` (the one service that records care
context: staff only, encrypted, with a review date), with source ``ehr_import`` and ``source_ref``
``<resourceType>/<id>/_history/<versionId>``. Importing the same resource version again returns the memory it
made (serialised per reference by an advisory lock, so two concurrent imports also give one memory); a newer
version of the resource supersedes it like any new value of the same substance or medication.
"""

from __future__ import annotations

import calendar
import re
import uuid
from datetime import UTC, datetime

import pydantic
from django.db import connection, transaction
from django.utils import timezone
from rest_framework import serializers

from core.errors import Conflict, Forbidden, ValidationFailed
from core.identity import Identity
from memory.lifecycle import memory_value
from memory.models import Memory, MemoryState, Source
from memory.services import memory_record
from memory.types import validate_fact
from rights.fhir import MODELS, SYSTEM_PATIENT

IMPORTABLE = ("AllergyIntolerance", "MedicationStatement")
CARE_PURPOSE = "care_coordination"
_FHIR_ID = re.compile(r"^[A-Za-z0-9\-.]{1,64}$")


def _invalid(field: str, message: str, code: str = "invalid") -> ValidationFailed:
    return ValidationFailed(errors=[{"field": f"resource.{field}", "message": message, "code": code}])


def _text(concept: dict | None) -> str | None:
    """The human term of a CodeableConcept: its text, else the first coding's display."""
    if not concept:
        return None
    if concept.get("text"):
        return concept["text"]
    for coding in concept.get("coding") or []:
        if coding.get("display"):
            return coding["display"]
    return None


def _code(concept: dict | None) -> str | None:
    for coding in (concept or {}).get("coding") or []:
        if coding.get("code"):
            return coding["code"]
    return None


_LOCAL_PATIENT = re.compile(r"(?:Patient/([A-Za-z0-9\-.]{1,64})(?:/_history/[A-Za-z0-9\-.]{1,64})?|urn:uuid:(\S+))")


def _check_subject(reference: dict | None, patient_id: uuid.UUID, field: str) -> None:
    """The resource must be about the patient in the URL, and every part of the reference must say so: a local
    ``Patient/<id>`` (any version) or ``urn:uuid:<id>``, our patient identifier, a ``type`` of Patient. One part
    naming this patient while another names someone else (or a Group, or another server) is refused."""
    reference = reference or {}
    ref = reference.get("reference") or ""
    identifier = reference.get("identifier") or {}
    named = False
    if ref:
        local = _LOCAL_PATIENT.fullmatch(ref)
        if local is None or (local.group(1) or local.group(2)) != str(patient_id):
            raise _invalid(f"{field}.reference", "must be Patient/<this patient's id>", "subject_mismatch")
        named = True
    if identifier:
        if identifier.get("system") != SYSTEM_PATIENT or identifier.get("value") != str(patient_id):
            raise _invalid(f"{field}.identifier", f"must be this patient's {SYSTEM_PATIENT} identifier",
                           "subject_mismatch")
        named = True
    if reference.get("type") not in (None, "Patient"):
        raise _invalid(f"{field}.type", "must be Patient", "subject_mismatch")
    if not named:
        raise _invalid(field, "must reference this patient", "subject_mismatch")


def _refuse_modifier_extensions(resource: dict) -> None:
    """A modifierExtension changes what the resource means ("not taken", say); one we do not understand must not
    be dropped silently (FHIR R4, Extensibility): refused, wherever it stands (a reaction, a dosage...)."""
    stack: list[tuple[str, object]] = [("", resource)]
    while stack:
        where, part = stack.pop()
        if isinstance(part, dict):
            if part.get("modifierExtension"):
                raise _invalid(f"{where}modifierExtension", "changes the resource's meaning; not imported",
                               "not_importable")
            stack.extend((f"{where}{key}.", child) for key, child in part.items() if key != "modifierExtension")
        elif isinstance(part, list):
            stack.extend((f"{where.rstrip('.')}[{i}].", child) for i, child in enumerate(part))


# The code systems an allergy's statuses are read in; a status only in another system is not understood.
VERIFICATION_SYSTEM = "http://terminology.hl7.org/CodeSystem/allergyintolerance-verification"
CLINICAL_SYSTEM = "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical"


def _status_allows(concept: dict | None, system: str, allowed: str) -> bool:
    """Whether a status concept allows the import: absent, or every coding in ``system`` says ``allowed`` (and
    there is one). A local coding that says "confirmed" beside HL7's "entered-in-error" decides nothing."""
    codings = [c for c in (concept or {}).get("coding") or [] if isinstance(c, dict)]
    if not codings:
        return True
    ours = [c.get("code") for c in codings if c.get("system") == system]
    return bool(ours) and all(code == allowed for code in ours)


def _validate_model(resource: dict) -> None:
    try:
        MODELS[resource["resourceType"]].model_validate(resource)
    except pydantic.ValidationError as exc:
        errors = [{"field": "resource." + ".".join(str(p) for p in err["loc"]) if err["loc"] else "resource",
                   "message": err["msg"], "code": "fhir_invalid"} for err in exc.errors()[:20]]
        raise ValidationFailed(errors=errors) from None


def _fact(resource: dict, patient_id: uuid.UUID) -> dict:
    _refuse_modifier_extensions(resource)
    if resource["resourceType"] == "AllergyIntolerance":
        _check_subject(resource.get("patient"), patient_id, "patient")
        if not _status_allows(resource.get("verificationStatus"), VERIFICATION_SYSTEM, "confirmed"):
            # refuted, entered-in-error, or unconfirmed: the export would present it as a confirmed allergy
            raise _invalid("verificationStatus", f"only allergies confirmed in {VERIFICATION_SYSTEM} are imported",
                           "not_importable")
        if not _status_allows(resource.get("clinicalStatus"), CLINICAL_SYSTEM, "active"):
            raise _invalid("clinicalStatus", f"only allergies active in {CLINICAL_SYSTEM} are imported (not "
                           "inactive or resolved)", "not_importable")
        substance = _text(resource.get("code"))
        if not substance:
            raise _invalid("code", "needs a text or a coding display naming the substance", "required")
        fact = {"kind": "allergy", "substance": substance}
        reactions = resource.get("reaction") or []
        if reactions:
            manifestation = _text((reactions[0].get("manifestation") or [None])[0])
            if manifestation:
                fact["reaction"] = manifestation
            severity = reactions[0].get("severity")
            if severity is not None and severity not in ("mild", "moderate", "severe"):
                raise _invalid("reaction[0].severity", "one of mild, moderate, severe", "invalid_choice")
            if severity:
                fact["severity"] = severity
        return fact
    _check_subject(resource.get("subject"), patient_id, "subject")
    if resource.get("status") not in ("active", "intended", "on-hold"):
        raise _invalid("status", "only active, intended or on-hold statements are long-term indications",
                       "not_importable")
    _statement_end(resource)
    medication = _text(resource.get("medicationCodeableConcept"))
    if not medication:
        raise _invalid("medicationCodeableConcept", "needs a text or a coding display", "required")
    indication = _text((resource.get("reasonCode") or [None])[0])
    if not indication:
        raise _invalid("reasonCode", "a long-term indication names its reason", "required")
    fact = {"kind": "long_term_indication", "medication": medication, "indication": indication}
    for note in resource.get("note") or []:
        text = note.get("text") or ""
        if text.startswith("monitoring: "):
            fact["monitoring"] = text.removeprefix("monitoring: ")
    return fact


def _statement_end(resource: dict) -> datetime | None:
    """When a MedicationStatement's period ends (None: it does not say); refused when that has passed. The memory
    is valid until then, so a course that ends is never served as current afterwards."""
    ended = (resource.get("effectivePeriod") or {}).get("end")
    if not ended:
        return None
    end = _instant(ended)
    if end <= timezone.now():
        raise _invalid("effectivePeriod.end", "the statement has ended; not a current indication", "not_importable")
    return end


def _instant(value: str) -> datetime:
    """A FHIR date or dateTime (the model validated its form) as an instant; a partial date is its last moment."""
    if len(value) <= 10:  # YYYY, YYYY-MM or YYYY-MM-DD
        parts = [int(p) for p in value.split("-")]
        year, month = parts[0], parts[1] if len(parts) > 1 else 12
        day = parts[2] if len(parts) > 2 else calendar.monthrange(year, month)[1]
        return datetime(year, month, day, 23, 59, 59, tzinfo=UTC)
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _newer_version_imported(identity: Identity, patient_id: uuid.UUID, resource: dict) -> str | None:
    """The version of this resource already imported that is newer than this one, if versions are numbers."""
    version = str((resource.get("meta") or {}).get("versionId"))
    if not version.isdigit():
        return None
    prefix = f"{resource['resourceType']}/{resource['id']}/_history/"
    refs = (Memory.objects.for_patient(identity.org_id, patient_id)
            .filter(source=Source.EHR_IMPORT, source_ref__startswith=prefix).exclude(state=MemoryState.DELETED)
            .values_list("source_ref", flat=True))
    newer = [v for v in (r.removeprefix(prefix) for r in refs) if v.isdigit() and int(v) > int(version)]
    return max(newer, key=int) if newer else None


def source_ref_of(resource: dict) -> str:
    rid, version = resource.get("id"), (resource.get("meta") or {}).get("versionId")
    if not rid or not _FHIR_ID.fullmatch(str(rid)):
        raise _invalid("id", "an imported resource names its id in the EHR", "required")
    if not version or not _FHIR_ID.fullmatch(str(version)):
        raise _invalid("meta.versionId", "an imported resource names its version", "required")
    return f"{resource['resourceType']}/{rid}/_history/{version}"


def care_context_import(*, identity: Identity, patient_id: uuid.UUID, resource: dict,
                        review_by: datetime) -> tuple[Memory, bool]:
    """Import one FHIR resource as care context; returns (memory, created). Idempotent per resource version: the
    same version again returns the memory it made; the same version with other content is a conflict (a changed
    resource has a new ``meta.versionId``). Who may import and the review date are checked either way."""
    if identity.is_agent or identity.patient_self_id is not None:
        raise Forbidden("care context is imported by staff", code="staff_only")
    if review_by <= timezone.now():
        raise ValidationFailed(errors=[{"field": "review_by", "message": "must be in the future",
                                        "code": "not_future"}])
    if resource.get("resourceType") not in IMPORTABLE:
        raise _invalid("resourceType", f"one of {', '.join(IMPORTABLE)}", "invalid_choice")
    _validate_model(resource)
    source_ref = source_ref_of(resource)
    try:
        _, fact = validate_fact("care_context", _fact(resource, patient_id))
    except serializers.ValidationError as exc:
        raise serializers.ValidationError({"resource": exc.detail}) from None
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                           [f"fhir-import:{identity.org_id}:{patient_id}:{source_ref}"])
        existing = (Memory.objects.for_patient(identity.org_id, patient_id)
                    .filter(source=Source.EHR_IMPORT, source_ref=source_ref).exclude(state=MemoryState.DELETED)
                    .order_by("created_at").first())
        if existing is not None:
            if memory_value(existing) != fact:
                raise Conflict("this version of the resource was imported with other content; a changed resource "
                               "has a new meta.versionId", code="resource_version_conflict")
            return existing, False
        newer = _newer_version_imported(identity, patient_id, resource)
        if newer is not None:  # an older version arriving late must not replace what the newer one says
            raise Conflict(f"version {newer} of this resource is already imported", code="stale_resource_version")
        valid_until = _statement_end(resource) if resource["resourceType"] == "MedicationStatement" else None
        memory = memory_record(identity=identity, patient_id=patient_id, memory_type="care_context",
                               fact=fact, consent_purpose=CARE_PURPOSE, valid_until=valid_until,
                               review_by=review_by, source=Source.EHR_IMPORT, source_ref=source_ref)
    return memory, True
