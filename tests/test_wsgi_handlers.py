"""The service's WSGI application (core.wsgi): bearer-token paths go through the middleware that serves them, pages
through every middleware, and an API answer is the same either way (the test client uses Django's single handler)."""

from __future__ import annotations

import io
import json
import sys
from contextlib import contextmanager

import pytest
from django.conf import settings
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from core.wsgi import BearerPathHandler, RoutedWSGIApplication, is_bearer_path
from tests.conftest import memory_body
from tests.support import Api

REQUEST_ID = "wsgi-handlers-test"


@contextmanager
def _inside_the_test_transaction():
    """What Django's test client does around a request: the handler may not close the test's connection."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _call(app, method: str, path: str, token: str | None, body: bytes = b"") -> tuple[int, dict, bytes]:
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "testserver",
               "SERVER_PORT": "80", "HTTP_HOST": "testserver", "wsgi.input": io.BytesIO(body),
               "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr, "SERVER_PROTOCOL": "HTTP/1.1",
               "REMOTE_ADDR": "127.0.0.1", "HTTP_X_REQUEST_ID": REQUEST_ID, "CONTENT_LENGTH": str(len(body)),
               "CONTENT_TYPE": "application/json"}
    if token is not None:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    started = {}

    def start_response(status, headers, exc_info=None):
        started["status"], started["headers"] = int(status.split()[0]), dict(headers)

    with _inside_the_test_transaction():
        response = app(environ, start_response)
        try:
            content = b"".join(response)
        finally:
            if hasattr(response, "close"):  # a WSGI result may be a plain list
                response.close()
    return started["status"], started["headers"], content


def test_the_bearer_path_middleware_is_the_full_list_without_the_browsers_layers():
    """Same order, nothing added; what shapes an API answer (security headers, request ids, metrics, the request
    shape checks, Content-Length, framing and CSP headers) stays."""
    assert settings.BEARER_PATH_MIDDLEWARE == [m for m in settings.MIDDLEWARE
                                               if m not in settings.BROWSER_ONLY_MIDDLEWARE]
    assert set(settings.BROWSER_ONLY_MIDDLEWARE) <= set(settings.MIDDLEWARE)
    for kept in ("django.middleware.security.SecurityMiddleware", "core.middleware.RequestIdMiddleware",
                 "core.observability.MetricsMiddleware", "core.middleware.RequestShapeMiddleware",
                 "core.middleware.BodySizeLimitMiddleware", "django.middleware.common.CommonMiddleware",
                 "django.middleware.clickjacking.XFrameOptionsMiddleware",
                 "portal.context.ContentSecurityPolicyMiddleware"):
        assert kept in settings.BEARER_PATH_MIDDLEWARE
    for dropped in ("core.browser.SessionMiddleware", "core.browser.CsrfViewMiddleware",
                    "core.browser.AuthenticationMiddleware", "core.browser.MessageMiddleware"):
        assert dropped not in settings.BEARER_PATH_MIDDLEWARE


def test_paths_are_routed_by_kind():
    for path in ("/v1/patients/x/memories", "/mcp", "/mcp/", "/health/live", "/metrics"):
        assert is_bearer_path(path), path
    for path in ("/", "/portal/", "/v1/docs", "/v1/docs/", "/static/app.css", "/oidc/callback/", "/V1/patients"):
        assert not is_bearer_path(path), path
    app = RoutedWSGIApplication()
    assert isinstance(app.bearer, BearerPathHandler)
    # CSRF's view hook is registered only where pages are served
    assert not any("csrf" in repr(hook).lower() for hook in app.bearer._view_middleware)
    assert any("csrf" in repr(hook).lower() for hook in app.pages._view_middleware)


@pytest.mark.django_db
def test_an_api_answer_is_the_same_through_the_application_and_the_test_client(world):
    """A list read, a create, a refusal and an unknown path: status, headers and body match those of Django's
    single handler with every middleware (which the rest of the suite drives)."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    assert patient.post(f"/v1/patients/{world.patient_a}/memories",
                        memory_body(cid, "earliest_time", "10:00")).status_code == 201
    app = RoutedWSGIApplication()
    headers = {"X-Request-ID": REQUEST_ID}
    cases = [("GET", f"/v1/patients/{world.patient_a}/memories", patient.token, b""),
             ("GET", f"/v1/patients/{world.patient_b}/memories/{world.patient_b}", patient.token, b""),
             ("GET", f"/v1/patients/{world.patient_a}/memories", None, b""),
             ("GET", "/v1/no-such-operation", patient.token, b""),
             ("POST", f"/v1/patients/{world.patient_a}/memories", patient.token,
              json.dumps(memory_body(cid, "latest_time", "16:00")).encode())]
    for method, path, token, body in cases:
        status, got_headers, content = _call(app, method, path, token, body)
        client = patient if token else Api(None)
        expected = client.request(method, path, json.loads(body) if body else None, headers=headers)
        assert status == expected.status_code, (method, path)
        assert got_headers.keys() == dict(expected.items()).keys(), (method, path)
        assert got_headers["Content-Type"] == expected["Content-Type"]
        assert got_headers["X-Frame-Options"] == expected["X-Frame-Options"]
        assert "Set-Cookie" not in got_headers and "Vary" not in got_headers or (
            got_headers.get("Vary") == expected.get("Vary"))
        if method == "GET" and status == 200:
            assert content == expected.content
        elif status >= 400:
            assert json.loads(content)["code"] == expected.json()["code"]


@pytest.mark.django_db
def test_the_wsgi_module_builds_the_lexicon_before_the_first_request_and_freezes_it(settings):
    """A worker loads config.wsgi before it accepts a connection: the clinical lexicon is built there (not in the
    worker's first search) and frozen with the rest of what start-up built."""
    import os
    import subprocess

    from tests.fakes.processes import BASE_DIR

    code = ("import gc, config.wsgi\n"
            "from memory.lexicon import lexicon\n"
            "print(lexicon.cache_info().currsize, gc.get_freeze_count() > 0)")
    env = {**os.environ, "ANAMNESIS_DB_NAME": settings.DB_TOPOLOGY.runtime.name,
           "DJANGO_SETTINGS_MODULE": "config.settings_test", "LOG_LEVEL": "WARNING"}
    done = subprocess.run([sys.executable, "-c", code], cwd=BASE_DIR, env=env, capture_output=True, text=True,
                          timeout=120, check=False)  # noqa: S603 (fixed argv)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["1", "True"]


@pytest.mark.django_db
def test_head_is_answered_as_get_and_no_body_leaves_the_application(world):
    """Load balancers probe with HEAD: the health checks and the API answer it as GET (status and headers,
    Content-Length included), and no body byte leaves the application (gunicorn would log each one)."""
    from core.wsgi import HeadWithoutBody

    patient = world.patient(world.patient_a)
    app = HeadWithoutBody(RoutedWSGIApplication())
    for path, token in (("/health/live", None), ("/health/ready", None),
                        (f"/v1/patients/{world.patient_a}/memories", patient.token),
                        ("/v1/no-such-operation", patient.token)):
        get_status, get_headers, get_body = _call(app, "GET", path, token)
        status, headers, body = _call(app, "HEAD", path, token)
        assert (status, body) == (get_status, b""), path
        assert get_body and headers["Content-Length"] == get_headers["Content-Length"] == str(len(get_body)), path
        assert headers["Content-Type"] == get_headers["Content-Type"], path
    status, headers, body = _call(app, "PUT", "/health/live", None)
    assert status == 405 and body  # other methods keep their body


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/health/live", "/health/ready"])
@pytest.mark.parametrize("method", ["OPTIONS", "POST", "PUT", "DELETE"])
def test_a_method_the_health_checks_do_not_take_is_a_405_problem_naming_get_and_head(client, path, method):
    r = client.generic(method, path)
    assert r.status_code == 405 and r["Content-Type"] == "application/problem+json", r.content
    assert r.json()["code"] == "method_not_allowed" and r["Allow"] == "GET, HEAD"
    assert client.head(path).status_code == 200


@pytest.mark.django_db
def test_a_method_a_page_does_not_take_is_a_405_problem_for_a_client_that_is_no_browser(client):
    """A browser gets the portal's page (its own test); anyone else the problem document, with the same Allow."""
    r = client.get("/logout/")
    assert r.status_code == 405 and r["Content-Type"] == "application/problem+json", r.content
    assert r.json()["code"] == "method_not_allowed" and r["Allow"] == "POST"
    page = client.get("/logout/", HTTP_ACCEPT="text/html")
    assert page.status_code == 405 and page["Content-Type"].startswith("text/html") and page["Allow"] == "POST"
