"""Care context imported from the EHR as FHIR resources: ``AllergyIntolerance`` and ``MedicationStatement``.

The resource is validated by the FHIR model library, mapped onto the typed facts of ``care_context`` (validated
again as any fact is), and recorded through ``memory.services.memory_record`` (the one service that records care
context: staff only, encrypted, with a review date), with source ``ehr_import`` and ``source_ref``
``<resourceType>/<id>/_history/<versionId>``. Importing the same resource version again returns the memory it
made (serialised per reference by an advisory lock, so two concurrent imports also give one memory); a newer
version of the resource supersedes it like any new value of the same substance or medication.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime

import pydantic
from django.db import connection, transaction
from django.utils import timezone
from rest_framework import serializers

from core.errors import Conflict, Forbidden, ValidationFailed
from core.identity import Identity
from memory.facts import validate_fact
from memory.lifecycle import memory_value
from memory.models import Memory, MemoryState, Source
from memory.services import memory_record
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


def _check_subject(reference: dict | None, patient_id: uuid.UUID, field: str) -> None:
    """The resource must be about the patient in the URL: ``Patient/<id>``/``urn:uuid:<id>``, or our identifier."""
    reference = reference or {}
    ref = reference.get("reference") or ""
    identifier = reference.get("identifier") or {}
    if ref.rsplit("/", 1)[-1].removeprefix("urn:uuid:") == str(patient_id):
        return
    if identifier.get("system") == SYSTEM_PATIENT and identifier.get("value") == str(patient_id):
        return
    raise _invalid(field, "must reference this patient", "subject_mismatch")


def _validate_model(resource: dict) -> None:
    try:
        MODELS[resource["resourceType"]].model_validate(resource)
    except pydantic.ValidationError as exc:
        errors = [{"field": "resource." + ".".join(str(p) for p in err["loc"]) if err["loc"] else "resource",
                   "message": err["msg"], "code": "fhir_invalid"} for err in exc.errors()[:20]]
        raise ValidationFailed(errors=errors) from None


def _fact(resource: dict, patient_id: uuid.UUID) -> dict:
    if resource["resourceType"] == "AllergyIntolerance":
        _check_subject(resource.get("patient"), patient_id, "patient")
        if _code(resource.get("verificationStatus")) in ("refuted", "entered-in-error"):
            raise _invalid("verificationStatus", "refuted or entered-in-error allergies are not imported",
                           "not_importable")
        substance = _text(resource.get("code"))
        if not substance:
            raise _invalid("code", "needs a text or a coding display naming the substance", "required")
        fact = {"kind": "allergy", "substance": substance}
        reactions = resource.get("reaction") or []
        if reactions:
            manifestation = _text((reactions[0].get("manifestation") or [None])[0])
            if manifestation:
                fact["reaction"] = manifestation
            if reactions[0].get("severity") in ("mild", "moderate", "severe"):
                fact["severity"] = reactions[0]["severity"]
        return fact
    _check_subject(resource.get("subject"), patient_id, "subject")
    if resource.get("status") not in ("active", "intended", "on-hold"):
        raise _invalid("status", "only active, intended or on-hold statements are long-term indications",
                       "not_importable")
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


def source_ref_of(resource: dict) -> str:
    rid, version = resource.get("id"), (resource.get("meta") or {}).get("versionId")
    if not rid or not _FHIR_ID.match(str(rid)):
        raise _invalid("id", "an imported resource names its id in the EHR", "required")
    if not version or not _FHIR_ID.match(str(version)):
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
        attribute, fact = validate_fact("care_context", _fact(resource, patient_id))
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
        memory = memory_record(identity=identity, patient_id=patient_id, memory_type="care_context",
                               attribute=attribute, fact=fact, consent_purpose=CARE_PURPOSE, review_by=review_by,
                               source=Source.EHR_IMPORT, source_ref=source_ref)
    return memory, True
