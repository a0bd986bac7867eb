"""The database's circuit (core.postgresql) opens for an outage, not for a queue, and PostgreSQL restarted under the
connection pool costs no request a 503. Against a spare embedded PostgreSQL the tests start and stop themselves."""

from __future__ import annotations

import threading
import time

import pytest

from tests.load import call as _call
from tests.test_governance_outage import SpareDatabase, _service_on

# Timing-sensitive (faults, failover, timeouts): run alone, after the suite's parallel part (`make test`)
pytestmark = pytest.mark.serial


@pytest.fixture(scope="module")
def spare():
    database = SpareDatabase()
    yield database
    database.close()


@pytest.mark.slow
def test_requests_queueing_for_the_pool_do_not_open_the_circuit(spare, jwks_server, keyring):
    """With every pooled connection busy (one, held by a request waiting on a lock), the requests behind it give up
    waiting for the pool (503 after the pool's timeout, twice); that says nothing about the server, so the requests
    after them are served at once, not refused for the circuit's open period (it was: 503 service_unavailable)."""
    service, tokens = _service_on(spare, jwks_server, keyring, patients=1, workers=1, threads=6, extra_env={
        "DB_POOL_MAX_SIZE": "1", "DB_CIRCUIT_RETRY_SECONDS": "30"})
    try:
        ((patient, token),) = tokens.items()
        path = f"/v1/patients/{patient}/memories"
        assert _call(service.url, "GET", path, token)[0] == 200
        results: list = []

        def one():
            began = time.monotonic()
            results.append((*_call(service.url, "GET", path, token, timeout=30), time.monotonic() - began))

        with spare.admin() as admin:
            admin.execute("BEGIN")
            admin.execute("LOCK TABLE api_rate_counter IN ACCESS EXCLUSIVE MODE")  # every request's gate waits
            threads = [threading.Thread(target=one) for _ in range(4)]
            for thread in threads:
                thread.start()
                time.sleep(0.05)
            # beyond twice the pool's timeout (1.5 s; a plain read that got no connection tries once more, by DRF's
            # path): those behind the first have given up
            time.sleep(4)
            admin.execute("ROLLBACK")
        for thread in threads:
            thread.join(timeout=30)
        statuses = sorted(r[0] for r in results)
        assert 200 in statuses and 503 in statuses, statuses  # the first was served, those queued gave up
        assert {r[2]["code"] for r in results if r[0] == 503} == {"service_unavailable"}

        for _ in range(5):
            status, _, body = _call(service.url, "GET", path, token)
            assert status == 200, body
        status, _, body = _call(service.url, "GET", "/health/ready", "")
        assert status == 200, body
    finally:
        service.close()


@pytest.mark.slow
def test_after_postgresql_restarts_the_pools_old_connections_cost_no_request_a_503(spare, jwks_server, keyring):
    """The pool's connections from before a restart are dead; each request that got one answered 503 (and
    readiness said the database was down) while the server was back. They are now dropped when taken from the
    pool, and the request is served on a new connection."""
    service, tokens = _service_on(spare, jwks_server, keyring, patients=4, workers=1, threads=4)
    try:
        calls = [(f"/v1/patients/{p}/memories", t) for p, t in tokens.items()]

        def burst():
            results: list = []
            threads = [threading.Thread(target=lambda c=c: results.append(_call(service.url, "GET", *c)))
                       for c in calls]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=30)
            return results

        for _ in range(3):  # the pool holds several connections
            assert {r[0] for r in burst()} == {200}
        spare.stop()
        spare.start()

        status, _, body = _call(service.url, "GET", "/health/ready", "")
        assert status == 200, body
        for path, token in calls:
            status, _, body = _call(service.url, "GET", path, token)
            assert status == 200, body
        assert {r[0] for r in burst()} == {200}
    finally:
        service.close()


@pytest.mark.slow
def test_readiness_tells_a_busy_pool_from_a_database_that_is_down(spare, jwks_server, keyring):
    """With every pooled connection held by a slow request, PostgreSQL well, readiness answered 503
    database_unavailable after waiting the pool's timeout, so a load balancer took a merely busy node out of
    rotation. It now answers at once: ready, with the database busy."""
    service, tokens = _service_on(spare, jwks_server, keyring, patients=1, workers=1, threads=4, extra_env={
        "DB_POOL_MAX_SIZE": "1"})
    try:
        ((patient, token),) = tokens.items()
        path = f"/v1/patients/{patient}/memories"
        assert _call(service.url, "GET", path, token)[0] == 200
        results: list = []
        with spare.admin() as admin:
            admin.execute("BEGIN")
            admin.execute("LOCK TABLE api_rate_counter IN ACCESS EXCLUSIVE MODE")  # the request's gate waits
            held = threading.Thread(target=lambda: results.append(_call(service.url, "GET", path, token, timeout=30)))
            held.start()
            time.sleep(0.5)  # it holds the pool's one connection
            began = time.monotonic()
            status, _, body = _call(service.url, "GET", "/health/ready", "")
            took = time.monotonic() - began
            admin.execute("ROLLBACK")
        held.join(timeout=30)
        assert (status, body) == (200, {"status": "ready", "database": "busy"}), body
        assert took < 1.0, took
        assert results[0][0] == 200
        status, _, body = _call(service.url, "GET", "/health/ready", "")
        assert (status, body) == (200, {"status": "ready"}), body
    finally:
        service.close()


def _post(url: str, path: str, token: str, body: dict, key: str) -> tuple[int, dict, dict]:
    import json
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json", "Idempotency-Key": key})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, json.loads(exc.read())


@pytest.mark.slow
def test_a_connection_lost_during_commit_is_not_answered_as_nothing_changed(spare, jwks_server, keyring):
    """PostgreSQL ends the connection while a memory write's COMMIT waits for a synchronous standby: the write has
    committed locally. It was answered 503 service_unavailable, "nothing was changed". It is now 503
    commit_outcome_unknown, and the retry with the same Idempotency-Key replays the write instead of making it
    twice."""
    from tests.conftest import memory_body

    service, tokens = _service_on(spare, jwks_server, keyring, patients=1, workers=1, threads=4)
    try:
        ((patient, token),) = tokens.items()
        status, _, consent = _call(service.url, "POST", f"/v1/patients/{patient}/consents", token,
                                   {"purpose": "appointment_scheduling"})
        assert status == 201, consent
        path = f"/v1/patients/{patient}/memories"
        body = memory_body(consent["consent_record_id"], "earliest_time", "09:30")
        results: list = []
        with spare.admin() as admin:
            admin.execute("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
            admin.execute("SELECT pg_reload_conf()")
            try:
                time.sleep(0.5)
                writer = threading.Thread(target=lambda: results.append(_post(service.url, path, token, body, "k-1")))
                writer.start()
                waiting = []
                for _ in range(100):
                    waiting = admin.execute("SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep'").fetchall()
                    if waiting:
                        break
                    time.sleep(0.1)
                assert waiting, "the write never reached its COMMIT"
                admin.execute("SELECT pg_terminate_backend(%s)", [waiting[0][0]])
                writer.join(timeout=30)
            finally:
                admin.execute("ALTER SYSTEM RESET synchronous_standby_names")
                admin.execute("SELECT pg_reload_conf()")
        time.sleep(0.5)
        ((status, headers, problem),) = results
        assert (status, problem["code"]) == (503, "commit_outcome_unknown"), problem
        assert "may or may not have been saved" in problem["title"] and int(headers["retry-after"]) >= 1

        status, headers, created = _post(service.url, path, token, body, "k-1")
        assert status == 201 and headers.get("idempotent-replayed") == "true", created
        status, _, listed = _call(service.url, "GET", path, token)
        assert status == 200 and [m["memory_id"] for m in listed["items"]] == [created["memory_id"]], listed
    finally:
        service.close()


@pytest.mark.slow
def test_a_database_that_only_reads_is_a_503_to_retry_not_an_internal_error(spare, jwks_server, keyring):
    """PostgreSQL taking no writes (a standby the service was pointed at, or an operator's
    default_transaction_read_only during an incident): every write, and every read (its audit row), failed with
    SQLSTATE 25006 and was answered 500 internal_error. It is 503 service_unavailable with Retry-After: nothing
    was changed, and the same request succeeds once the server takes writes again. Meanwhile the node is not ready
    (503 database_read_only; it said ready), so that a load balancer sends the traffic elsewhere."""
    service, tokens = _service_on(spare, jwks_server, keyring, patients=1, workers=1, threads=2)
    try:
        ((patient, token),) = tokens.items()
        path = f"/v1/patients/{patient}/consents"
        with spare.admin() as admin:
            admin.execute("ALTER SYSTEM SET default_transaction_read_only = on")
            admin.execute("SELECT pg_reload_conf()")
            try:
                time.sleep(0.5)
                status, headers, problem = _call(service.url, "POST", path, token,
                                                 {"purpose": "appointment_scheduling"})
                read = _call(service.url, "GET", path, token)
                ready = _call(service.url, "GET", "/health/ready", "")
            finally:
                admin.execute("ALTER SYSTEM RESET default_transaction_read_only")
                admin.execute("SELECT pg_reload_conf()")
        assert (status, problem.get("code")) == (503, "service_unavailable"), problem
        assert int(headers["retry-after"]) >= 1
        assert (read[0], read[2].get("code")) == (503, "service_unavailable"), read
        assert (ready[0], ready[2].get("code")) == (503, "database_read_only"), ready
        assert int(ready[1]["retry-after"]) >= 1
        time.sleep(0.5)
        assert _call(service.url, "GET", "/health/ready", "")[:3:2] == (200, {"status": "ready"})
        status, _, body = _call(service.url, "POST", path, token, {"purpose": "appointment_scheduling"})
        assert status == 201, body
    finally:
        service.close()
