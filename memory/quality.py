"""Generated-population check of the two numbers that matter most: stale memories served and memories leaked
across patients. Used by ``manage.py memory_quality_report`` and by the test suite."""

from __future__ import annotations

import random
import time
import uuid
from dataclasses import dataclass, field

from django.db import connection

from consent.services import consent_record, consent_revoke, grant_create
from core.identity import ACTOR_PATIENT, Identity, identity_context
from directory.services import patient_register
from memory import review, selectors, services


@dataclass
class QualityReport:
    patients: int = 0
    memories_written: int = 0
    reads: int = 0
    served: int = 0
    expected: int = 0
    stale_served: int = 0
    missing: int = 0
    cross_patient_leaks: int = 0
    cross_org_leaks: int = 0
    seconds: float = 0.0
    scenarios: dict = field(default_factory=dict)

    @property
    def stale_rate(self) -> float:
        return self.stale_served / self.served if self.served else 0.0

    def as_dict(self) -> dict:
        return {**self.__dict__, "stale_rate": self.stale_rate}


def _patient(org, pid) -> Identity:
    return Identity(org_id=org, actor_sub=f"patient-{pid}", patient_self_id=pid, actor_kind=ACTOR_PATIENT)


def _record(identity, pid, consent_id, kind, fact, **kw):
    return services.memory_record(identity=identity, patient_id=pid, memory_type="scheduling_preference",
                                  fact=fact, consent_purpose="appointment_scheduling",
                                  consent_record_id=consent_id, **kw)


def run(*, patients: int = 1000, seed: int = 7) -> QualityReport:
    rng = random.Random(seed)  # noqa: S311 (reproducible test data, not security)
    started = time.monotonic()
    report = QualityReport(patients=patients)
    org, other_org = uuid.uuid4(), uuid.uuid4()
    nurse = Identity(org_id=org, actor_sub="quality-nurse")
    admin = Identity(org_id=org, actor_sub="quality-admin", scopes=frozenset({"grant:write", "patient:write"}))
    expected: dict[uuid.UUID, set[uuid.UUID]] = {}
    ids = [uuid.uuid4() for _ in range(patients)]
    counts = {"superseded": 0, "quarantined": 0, "validity_passed": 0, "consent_revoked": 0, "proposed": 0}
    for pid in ids:
        me = _patient(org, pid)
        current: dict[str, uuid.UUID] = {}
        with identity_context(me):
            consent, _ = consent_record(identity=me, patient_id=pid, purpose="appointment_scheduling",
                                        evidence_ref="quality")
            cid = consent.consent_record_id
            m = _record(me, pid, cid, "earliest_time", {"kind": "earliest_time", "time": "09:00"})
            current["earliest_time"] = m.memory_id
            report.memories_written += 1
            if rng.random() < 0.5:
                m = _record(me, pid, cid, "earliest_time", {"kind": "earliest_time", "time": "10:00"})
                current["earliest_time"] = m.memory_id
                counts["superseded"] += 1
                report.memories_written += 1
            latest = _record(me, pid, cid, "latest_time", {"kind": "latest_time", "time": "16:00"})
            current["latest_time"] = latest.memory_id
            report.memories_written += 1
            if rng.random() < 0.3:
                days = _record(me, pid, cid, "excluded_days", {"kind": "excluded_days", "days": ["friday"]})
                report.memories_written += 1
                with connection.cursor() as cur:  # its validity window passes
                    cur.execute("UPDATE patient_memory SET valid_from = now() - interval '10 days', "
                                "valid_until = now() - interval '1 day' WHERE memory_id = %s", [days.memory_id])
                counts["validity_passed"] += 1
            if rng.random() < 0.2:
                services.memory_propose(identity=me, patient_id=pid, memory_type="scheduling_preference",
                                        fact={"kind": "excluded_periods", "periods": ["morning"]},
                                        consent_purpose="appointment_scheduling", consent_record_id=cid,
                                        source_ref="quality:turn")
                counts["proposed"] += 1
                report.memories_written += 1
        if rng.random() < 0.2:
            with identity_context(admin):  # a grant is only for a patient in the organisation's directory
                patient_register(identity=admin, patient_id=pid, display_name="Patient", birth_date=None,
                                 identifiers=[])
                grant_create(identity=admin, patient_id=pid, actor_sub=nurse.actor_sub,
                             purpose="appointment_scheduling", expires_at=None)
            with identity_context(nurse):
                review.memory_quarantine(identity=nurse, patient_id=pid, memory_id=current.pop("latest_time"),
                                         reason_code="quality_check")
            counts["quarantined"] += 1
        if rng.random() < 0.1:
            with identity_context(me):
                consent_revoke(identity=me, patient_id=pid, consent_id=cid)
            current.clear()
            counts["consent_revoked"] += 1
        expected[pid] = set(current.values())
    report.scenarios = counts
    _read_back(report, ids=ids, expected=expected, org=org, other_org=other_org, rng=rng)
    report.seconds = round(time.monotonic() - started, 2)
    return report


def _read_back(report: QualityReport, *, ids: list[uuid.UUID], expected: dict[uuid.UUID, set[uuid.UUID]],
               org: uuid.UUID, other_org: uuid.UUID, rng: random.Random) -> None:
    """Each patient's current memories as the patient sees them against what should be current, and the same
    read by another patient of the organisation and by staff of another organisation (who must see nothing)."""
    for pid in ids:
        me = _patient(org, pid)
        with identity_context(me):
            served = {m.memory_id: m for m in selectors.memory_list_current(identity=me, patient_id=pid)}
        report.reads += 1
        report.served += len(served)
        report.expected += len(expected[pid])
        report.stale_served += len(set(served) - expected[pid])
        report.missing += len(expected[pid] - set(served))
        report.cross_patient_leaks += sum(1 for m in served.values() if m.patient_id != pid)
        # another patient of the same organisation, and a staff member of another organisation, ask for it
        intruder = _patient(org, rng.choice(ids))
        if intruder.patient_self_id != pid:
            with identity_context(intruder):
                report.cross_patient_leaks += len(selectors.memory_list_current(identity=intruder, patient_id=pid))
            report.reads += 1
        outsider = Identity(org_id=other_org, actor_sub="quality-nurse")
        with identity_context(outsider):
            report.cross_org_leaks += len(selectors.memory_list_current(identity=outsider, patient_id=pid))
        report.reads += 1
