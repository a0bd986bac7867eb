"""Benchmark the patient export: one large patient, exported as JSON and as a FHIR Bundle, streamed.

    .venv/bin/python -m bench.export_stream [--memories 20000] [--audit 20000]

Creates its own database ``anamnesis_bench_export``, seeds one patient as the superuser (set-based: a consent,
``--memories`` active preferences with one lifecycle event each, ``--audit`` access events), then runs the export
generators in this process exactly as the view's streamed body does (own snapshot transaction, runtime role, RLS)
and prints time, bytes, rows per second and the peak of Python memory allocated while streaming, which stays
flat as the patient grows because rows are fetched in chunks and the body is spooled to an unlinked temporary
file beyond rights.streaming.SPOOL_IN_MEMORY_BYTES.
"""

from __future__ import annotations

from bench.bootstrap import setup_django

DB_NAME = "anamnesis_bench_export"
setup_django(DB_NAME)

import argparse  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
import uuid  # noqa: E402

import psycopg  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402

from bench import common  # noqa: E402
from core.bootstrap import bootstrap  # noqa: E402
from core.identity import ACTOR_PATIENT, Identity  # noqa: E402
from rights.api import fhir_export, json_export  # noqa: E402
from rights.streaming import stream_in_identity  # noqa: E402

SEED_SQL = """
INSERT INTO organization (id, name, created_at) VALUES (%(org)s, 'bench', now());
INSERT INTO patient_consent (consent_record_id, organization_id, patient_id, purpose, status, granted_at,
                             evidence_ref, policy_revision, recorded_by, created_at)
VALUES (%(consent)s, %(org)s, %(patient)s, 'appointment_scheduling', 'granted', now() - interval '9 days',
        'bench', %(policy)s, 'bench', now());
INSERT INTO patient_memory (memory_id, organization_id, patient_id, memory_class, memory_type, attribute, fact,
                            state, source, source_ref, confidence, policy_revision, consent_purpose,
                            consent_record_id, valid_from, expires_at, created_by, created_at, updated_at)
SELECT gen_random_uuid(), %(org)s, %(patient)s, 'preference', 'scheduling_preference', 'earliest_time_' || k,
       jsonb_build_object('kind', 'earliest_time', 'time', lpad((k %% 24)::text, 2, '0') || ':00'),
       'active', 'patient_stated', 'bench', 1, %(policy)s, 'appointment_scheduling', %(consent)s,
       now() - interval '1 day', now() + interval '700 days', 'bench', now(), now()
  FROM generate_series(1, %(memories)s) AS k;
INSERT INTO memory_lifecycle_event (event_id, memory_id, organization_id, patient_id, purpose, event_type,
                                    from_state, to_state, actor_sub, reason_code, policy_revision, source_ref,
                                    occurred_at)
SELECT gen_random_uuid(), memory_id, organization_id, patient_id, consent_purpose, 'confirmed', NULL, 'active',
       'bench', 'patient_stated', policy_revision, 'bench', created_at FROM patient_memory;
INSERT INTO audit_event (id, occurred_at, organization_id, patient_id, actor_sub, actor_kind, action,
                         resource_type, resource_id, purpose, outcome, correlation_id)
SELECT gen_random_uuid(), now() - k * interval '1 second', %(org)s, %(patient)s, 'nurse', 'staff', 'memory.list',
       'memory', NULL, 'appointment_scheduling', 'success', 'bench-' || k
  FROM generate_series(1, %(audit)s) AS k;
"""


def measure(name: str, identity: Identity, produce, *, trace: bool) -> dict:
    """tracemalloc slows Python several times: measure speed without it (``--no-trace``), memory with it."""
    if trace:
        tracemalloc.start()
    started = time.perf_counter()
    first_byte = None
    size = 0
    for piece in stream_in_identity(identity, produce):
        if first_byte is None:
            first_byte = time.perf_counter() - started
        size += len(piece)
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    if trace:
        tracemalloc.stop()
    result = {"format": name, "seconds": round(elapsed, 2), "first_byte_ms": round(first_byte * 1000, 1),
              "mbytes": round(size / 1e6, 1), "mb_per_s": round(size / 1e6 / elapsed, 1),
              "peak_python_mb": round(peak / 1e6, 1) if trace else None}
    common.log(f"{name:5s} {result}")
    return result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=20000)
    parser.add_argument("--audit", type=int, default=20000)
    parser.add_argument("--no-trace", action="store_true", help="speed only, without tracemalloc's overhead")
    args = parser.parse_args()
    common.check_topology(DB_NAME)
    for conn in connections.all():
        conn.close()
    bootstrap(settings.DB_TOPOLOGY, drop_first=True)
    call_command("migrate", database="owner", verbosity=0)
    connections["owner"].close()
    org, patient = uuid.uuid4(), uuid.uuid4()
    params = {"org": org, "patient": patient, "consent": uuid.uuid4(), "policy": settings.MEMORY_POLICY_REVISION,
              "memories": args.memories, "audit": args.audit}
    with psycopg.connect(common.admin_conninfo(DB_NAME)) as conn:
        conn.execute("SET session_replication_role = replica")  # bulk seed: skip the lifecycle triggers
        for statement in SEED_SQL.split(";\n"):
            if statement.strip():
                conn.execute(statement, params)
        conn.commit()
    with psycopg.connect(common.admin_conninfo(DB_NAME), autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE)")
    common.log(f"seeded one patient: {args.memories} memories + events, {args.audit} audit events")
    identity = Identity(org_id=org, actor_sub=f"patient-{patient}", patient_self_id=patient,
                        actor_kind=ACTOR_PATIENT, scopes=frozenset({"export:read", "audit:read"}))
    rows = 2 * args.memories + args.audit
    for name, fn in (("json", json_export), ("fhir", fhir_export)):
        result = measure(name, identity, lambda fn=fn: fn(identity, patient), trace=not args.no_trace)
        common.log(f"      {rows / result['seconds']:,.0f} rows/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
