"""No patient identifiers in operational logs: a real `manage.py serve` (gunicorn access log and Django logging)
answers a run of API requests naming patients, and its whole log holds none of their ids."""

from __future__ import annotations

import json
import logging
import re
import urllib.request
import uuid

import pytest

from core.logging import RedactIdsFilter, mask_ids
from tests.conftest import memory_body
from tests.fakes.service import LiveService


def test_ids_are_masked_stably_and_nothing_else_changes():
    pid = uuid.uuid4()
    line = f"GET /v1/patients/{pid}/memories 404"
    masked = mask_ids(line)
    assert str(pid) not in masked and masked.startswith("GET /v1/patients/id:") and masked.endswith("/memories 404")
    assert mask_ids(line) == masked == mask_ids(line.replace(str(pid), str(pid).upper()))
    assert str(pid.hex) not in mask_ids(f"x {pid.hex} y")
    assert mask_ids("no ids here") == "no ids here"
    record = logging.LogRecord("django.request", logging.WARNING, __file__, 1, "Not Found: %s", (f"/v1/{pid}",),
                               None)
    RedactIdsFilter().filter(record)
    assert str(pid) not in record.getMessage()


@pytest.mark.django_db
def test_a_database_errors_text_never_reaches_the_log(caplog):
    """PostgreSQL quotes the values it refuses (here a name in JSON text); a logged traceback keeps the frames and
    the SQLSTATE, never that text."""
    from django.db import connection, transaction

    value = json.dumps({"name": "Ada Quill, MRN-55"})[:-1] + ', "n": Infinity}'
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT %s::jsonb", [value])
    except Exception:
        logging.getLogger("django.request").exception("Internal Server Error: /v1/workflows")
    record = caplog.records[-1]
    RedactIdsFilter().filter(record)
    text = logging.Formatter("%(message)s").format(record)
    assert "Ada Quill" not in text and "MRN-55" not in text
    assert "SQLSTATE 22P02" in text and "DataError" in text and "cursor.execute" in text
    plain = logging.LogRecord("x", logging.ERROR, __file__, 1, "boom", None, (ValueError, ValueError("kept"), None))
    RedactIdsFilter().filter(plain)
    assert "kept" in logging.Formatter("%(message)s").format(plain), "other errors keep their text"


def test_djangos_own_error_lines_carry_the_request_id():
    """django.request logs a 5xx after RequestIdMiddleware has returned (the context variable is reset): the id
    comes from the request the record names, so the line can be matched to its access line and audit rows."""
    from django.test import RequestFactory

    from core.logging import RequestIdFilter

    request = RequestFactory().get("/v1/sessions")
    request.request_id = "req-503-1"
    record = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "Service Unavailable: %s",
                               ("/v1/sessions",), None)
    record.request = request
    RequestIdFilter().filter(record)
    assert record.request_id == "req-503-1"


def _call(service, method, path, token, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(service.url + path, data=data, method=method, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


@pytest.mark.slow
def test_the_service_logs_hold_no_patient_id(committed_db, world, jwks_server):
    service = LiveService(jwks_server.url, workers=1, extra_env={"LOG_LEVEL": "DEBUG"})
    try:
        a, b = world.patient_a, world.patient_b
        alice, bob = world.patient(a).token, world.patient(b).token
        status, consent = _call(service, "POST", f"/v1/patients/{a}/consents", alice,
                                {"purpose": "appointment_scheduling"})
        assert status == 201
        status, stored = _call(service, "POST", f"/v1/patients/{a}/memories", alice,
                               memory_body(consent["consent_record_id"]))
        assert status == 201
        memory_id = stored["memory_id"]
        calls = [
            ("GET", f"/v1/patients/{a}/memories", alice, None),
            ("GET", f"/v1/patients/{str(a).upper()}/memories/{memory_id}", alice, None),
            ("GET", f"/v1/patients/{a}/memories/{memory_id}", bob, None),  # 404
            ("GET", f"/v1/patients/{a}/memories/{memory_id}/history", alice, None),
            ("GET", f"/v1/patients/{a}/memories/search?q=morning&patient={a}", alice, None),  # 503, no model
            ("POST", f"/v1/patients/{a}/memories", alice, {"memory_type": "nope"}),  # 422
            ("POST", f"/v1/patients/{b}/memories", alice, memory_body(consent["consent_record_id"])),
            ("GET", f"/v1/audit-events?patient_id={a}", alice, None),
            ("GET", f"/v1/patients/{uuid.uuid4()}/consents", "not-a-token", None),  # 401
            ("POST", "/v1/sessions", alice, {"patient_id": str(a), "purpose": "appointment_scheduling"}),
        ]
        statuses = [_call(service, *call)[0] for call in calls]
        assert 500 not in statuses, statuses
        # a Host we do not serve: 400, and the caller's text is not logged (it was, at ERROR, with a traceback)
        assert _call(service, "GET", f"/v1/patients/{a}/memories", alice,
                     headers={"Host": "zebulon-quixfeather.evil"})[0] == 400
    finally:
        service.stop()
    logs = service.logs()
    service.close()
    # the requests were logged (one access line each, by route template), so the scan below is not vacuous
    assert re.search(r"GET v1/patients/<uuid:patient_id>/memories 200", logs), logs[-2000:]
    for pid in (world.patient_a, world.patient_b):
        for form in (str(pid), str(pid).upper(), pid.hex):
            assert form not in logs, f"patient id found in the service log:\n{logs[-3000:]}"
    assert memory_id not in logs
    assert "zebulon" not in logs and "Traceback" not in logs
