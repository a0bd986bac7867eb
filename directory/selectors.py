"""Reads of the directory. Row-level security decides which patients the caller may see; the organisation filter
is repeated so plans use the indexes. The ``*_audited`` reads are for showing patients to someone: they record each
patient they return; the others are for callers that audit in their own way, or show nothing of a patient."""

from __future__ import annotations

import re
import unicodedata
import uuid
from datetime import date

from django.db import connection
from django.db.models import CharField, F, Func, Q, Value
from django.db.models.functions import Coalesce, Lower

from core import audit
from core.access import require_staff
from core.cursors import cursor_key, key_cursor
from core.identity import Identity
from directory.models import PatientIdentifier, PatientProfile, StaffMember

SEARCH_LIMIT = 20
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


# The combining diacritical marks (U+0300-U+036F): the accents of the Latin, Greek and Cyrillic scripts once a name
# is decomposed. Other scripts' marks (Indic vowel signs, Hebrew points...) are letters of the word and stay.
ACCENTS = "[\u0300-\u036f]"


def _folded(field: str) -> Func:
    """A stored name as search compares it: composed (NFC) and without the accents of its letters. Names are kept
    as sent, and the same letters arrive composed from one keyboard ("é") and decomposed from another ("e" and
    U+0301); and staff type a name as they hear it, "Jose Alvarez" for "José Álvarez", "Zoe" for "Zoë". Both sides
    are folded alike (:func:`fold`), so each form finds the others."""
    template = f"normalize(regexp_replace(normalize(%(expressions)s, NFD), '{ACCENTS}', '', 'g'), NFC)"
    return Func(F(field), template=template, output_field=CharField())


JOINERS = "\u200c\u200d"  # the zero-width non-joiner and joiner: the spelling of some scripts, kept in names


def fold(text: str) -> str:
    """A query as :func:`_folded` compares a stored name; without the invisible formatting characters no name
    holds (registration refuses them) that a name pasted from a document or web page brings along: a zero-width
    space, a soft hyphen, a byte-order mark or a direction mark found nobody."""
    visible = "".join(ch for ch in text if ch in JOINERS or unicodedata.category(ch) != "Cf")
    return unicodedata.normalize("NFC", re.sub(ACCENTS, "", unicodedata.normalize("NFD", visible)))


def _out(profiles: list[PatientProfile], identity: Identity) -> list[dict]:
    ids = [p.patient_id for p in profiles]
    identifiers: dict[uuid.UUID, list[dict]] = {}
    for i in PatientIdentifier.objects.filter(organization_id=identity.org_id, patient_id__in=ids).order_by(
            "system", "value"):
        identifiers.setdefault(i.patient_id, []).append({"system": i.system, "value": i.value})
    return [{"patient_id": str(p.patient_id), "display_name": p.display_name,
             "birth_date": p.birth_date.isoformat() if p.birth_date else None,
             "identifiers": identifiers.get(p.patient_id, [])} for p in profiles]


def patient_by_identifier(*, identity: Identity, system: str, value: str) -> list[dict]:
    """The patient an identifier names, if the caller may see them: [] for unknown and not-allowed alike. System
    and value are compared without letter case, as their unique rule is (``PatientIdentifier``)."""
    ids = PatientIdentifier.objects.filter(organization_id=identity.org_id).alias(
        system_any_case=Lower("system"), value_any_case=Lower("value")).filter(
        system_any_case=Lower(Value(system)), value_any_case=Lower(Value(value))).values("patient_id")
    return _out(list(PatientProfile.objects.filter(organization_id=identity.org_id, patient_id__in=ids)), identity)


def identifier_values(org_id: uuid.UUID, patient_id: uuid.UUID) -> list[str]:
    """The values of the patient's identifiers the caller may see (for redaction: core.patient_identifiers)."""
    return list(PatientIdentifier.objects.filter(organization_id=org_id, patient_id=patient_id)
                .values_list("value", flat=True))


def patient_search(*, identity: Identity, q: str, limit: int = SEARCH_LIMIT,
                   cursor: str | None = None) -> list[dict]:
    """Patients the caller may see whose name holds every word of ``q`` (in any order: "Nowak Alice" finds Alice
    Nowak), whose identifier value is ``q`` (an MRN typed into the box), or, for a YYYY-MM-DD ``q``, who were born
    that day; by name, then date of birth (none last), then id; after ``cursor`` (:func:`patient_search_page`'s;
    ValueError for anything else)."""
    after = _patient_after(cursor) if cursor else None
    q = unicodedata.normalize("NFC", q.strip())
    by_identifier = PatientIdentifier.objects.filter(organization_id=identity.org_id, value__iexact=q).values(
        "patient_id")
    words = fold(q).split()[:5]
    by_name = Q(pk__in=[]) if not words else Q()  # accents alone are no name: they find nobody, not everybody
    for word in words:
        by_name &= Q(name_folded__icontains=word)
    condition = by_name | Q(patient_id__in=by_identifier)
    if ISO_DATE.fullmatch(q):
        try:
            condition |= Q(birth_date=date.fromisoformat(q))
        except ValueError:
            pass
    profiles = PatientProfile.objects.filter(organization_id=identity.org_id).alias(
        name_folded=_folded("display_name"), born=Coalesce("birth_date", Value(date.max))).filter(condition)
    if after is not None:
        name, born, patient_id = after
        profiles = profiles.filter(Q(display_name__gt=name) | Q(display_name=name, born__gt=born)
                                   | Q(display_name=name, born=born, patient_id__gt=patient_id))
    return _out(list(profiles.order_by("display_name", "born", "patient_id")[:limit]), identity)


def _patient_after(cursor: str) -> tuple[str, date, uuid.UUID]:
    name, born, patient_id = cursor_key(cursor, 3)
    return name, date.fromisoformat(born), uuid.UUID(patient_id)


def patient_search_page(*, identity: Identity, q: str, cursor: str | None = None) -> tuple[list[dict], str | None]:
    """``SEARCH_LIMIT`` patients :func:`patient_search` finds after ``cursor``, each audited as ``patient.search``,
    and the cursor of the next ones (None when no more matched: one row past the limit is read to say so; it is
    neither shown nor audited). ValueError, nothing read, for a cursor it did not give."""
    found = patient_search(identity=identity, q=q, limit=SEARCH_LIMIT + 1, cursor=cursor)
    shown = _audited(found[:SEARCH_LIMIT], "patient.search")
    if len(found) <= SEARCH_LIMIT:
        return shown, None
    last = shown[-1]
    return shown, key_cursor((last["display_name"], last["birth_date"] or date.max.isoformat(), last["patient_id"]))


def patient_search_audited(*, identity: Identity, q: str, limit: int = SEARCH_LIMIT) -> list[dict]:
    """:func:`patient_search`, each patient found audited as ``patient.search``."""
    return _audited(patient_search(identity=identity, q=q, limit=limit), "patient.search")


def patient_search_first(*, identity: Identity, q: str) -> tuple[list[dict], bool]:
    """The first ``SEARCH_LIMIT`` patients :func:`patient_search` finds, each audited as ``patient.search``, and
    whether more matched (one row past the limit is read to say so; it is neither shown nor audited)."""
    shown, next_cursor = patient_search_page(identity=identity, q=q)
    return shown, next_cursor is not None


def patients_get(*, identity: Identity, patient_ids: list[uuid.UUID]) -> list[dict]:
    return _out(list(PatientProfile.objects.filter(organization_id=identity.org_id, patient_id__in=patient_ids)),
                identity)


def patient_get(*, identity: Identity, patient_id: uuid.UUID) -> dict | None:
    profiles = list(PatientProfile.objects.filter(organization_id=identity.org_id, patient_id=patient_id))
    return _out(profiles, identity)[0] if profiles else None


def patients_get_audited(*, identity: Identity, patient_ids: list[uuid.UUID]) -> list[dict]:
    """:func:`patients_get` for a list of patients shown to the caller: each one audited as ``patient.list``."""
    return _audited(patients_get(identity=identity, patient_ids=patient_ids), "patient.list")


def patient_get_audited(*, identity: Identity, patient_id: uuid.UUID, purpose: str | None = None) -> dict | None:
    """:func:`patient_get`, audited as ``patient.read`` (for ``purpose``, when the page reads for one) when the
    patient is there for the caller (None, unaudited, otherwise: the caller learns nothing, and there is no patient
    to record)."""
    profile = patient_get(identity=identity, patient_id=patient_id)
    return _audited([profile], "patient.read", purpose=purpose)[0] if profile else None


def _audited(items: list[dict], action: str, purpose: str | None = None) -> list[dict]:
    for item in items:
        audit.record(action=action, resource_type="patient", resource_id=item["patient_id"],
                     patient_id=item["patient_id"], purpose=purpose)
    return items


def patient_registered(org_id: uuid.UUID, patient_id: uuid.UUID) -> bool:
    """Whether the organisation's directory holds the patient, as the caller may see it (RLS)."""
    return PatientProfile.objects.filter(organization_id=org_id, patient_id=patient_id).exists()


def patient_names(*, identity: Identity, patient_ids) -> dict[uuid.UUID, str]:
    """Display names of the given patients that the caller may see (for lists; not audited per name)."""
    return dict(PatientProfile.objects.filter(organization_id=identity.org_id, patient_id__in=list(patient_ids))
                .values_list("patient_id", "display_name"))


def staff_search(*, identity: Identity, q: str, limit: int = SEARCH_LIMIT,
                 cursor: str | None = None) -> list[dict]:
    """Staff subjects by name or subject, for an administrator granting access: refused to a patient's token (403,
    as registering one is), which would only ever find nobody. By name, then subject; after ``cursor``
    (:func:`staff_search_page`'s; ValueError for anything else)."""
    require_staff(identity)
    after = cursor_key(cursor, 2) if cursor else None
    q = unicodedata.normalize("NFC", q.strip())
    name = fold(q)
    by_name = Q(name_folded__icontains=name) if name else Q(pk__in=[])
    members = StaffMember.objects.filter(organization_id=identity.org_id).alias(
        name_folded=_folded("display_name")).filter(by_name | Q(actor_sub__iexact=q))
    if after is not None:
        members = members.filter(Q(display_name__gt=after[0]) | Q(display_name=after[0], actor_sub__gt=after[1]))
    return [{"actor_sub": m.actor_sub, "display_name": m.display_name, "kind": m.kind}
            for m in members.order_by("display_name", "actor_sub")[:limit]]


def staff_search_page(*, identity: Identity, q: str, cursor: str | None = None) -> tuple[list[dict], str | None]:
    """``SEARCH_LIMIT`` staff subjects :func:`staff_search` finds after ``cursor``, and the cursor of the next ones
    (None when no more matched)."""
    found = staff_search(identity=identity, q=q, limit=SEARCH_LIMIT + 1, cursor=cursor)
    if len(found) <= SEARCH_LIMIT:
        return found, None
    last = found[SEARCH_LIMIT - 1]
    return found[:SEARCH_LIMIT], key_cursor((last["display_name"], last["actor_sub"]))


def staff_search_first(*, identity: Identity, q: str) -> tuple[list[dict], bool]:
    """The first ``SEARCH_LIMIT`` staff subjects :func:`staff_search` finds, and whether more matched."""
    found, next_cursor = staff_search_page(identity=identity, q=q)
    return found, next_cursor is not None


def staff_names(*, identity: Identity, subs) -> dict[str, str]:
    """The directory's names of these staff subjects, in the caller's organisation. Through ``app_staff_names``
    (directory 0007), which a patient's session may call too: it reads no list of the organisation's staff, only
    the names of subjects a page already shows."""
    subjects = sorted({s for s in subs if s})
    if not subjects:
        return {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT actor_sub, display_name FROM app_staff_names(%s)", [subjects])
        return dict(cursor.fetchall())
