"""Bad input never gets a 500: deep JSON, NaN, NUL and lone surrogates, long query strings, large headers,
upper-case UUIDs, chunked bodies (through a real gunicorn)."""

from __future__ import annotations

import http.client
import json
import uuid

import pytest

from core.identity import Identity, identity_context
from tests.conftest import admin_connect, memory_body
from tests.fakes.service import LiveService
from tests.support import Api


def _mem(world) -> str:
    return f"/v1/patients/{world.patient_a}/memories"


@pytest.mark.django_db
@pytest.mark.parametrize("depth", [33, 1000, 20000])
def test_deeply_nested_json_is_malformed_json(world, depth):
    raw = "[" * depth + "]" * depth
    r = world.patient(world.patient_a).post(_mem(world), raw=raw)
    assert r.status_code == 400 and r.json()["code"] == "malformed_json", r.content


@pytest.mark.django_db
def test_nesting_within_the_limit_and_brackets_in_strings_are_fine(world):
    cid = world.consent(world.patient_a)
    body = memory_body(cid)
    body["fact"]["time"] = "[" * 100  # brackets inside a string are not nesting
    r = world.patient(world.patient_a).post(_mem(world), body)
    assert r.status_code == 422 and r.json()["code"] == "validation_error"


@pytest.mark.django_db
@pytest.mark.parametrize("raw", ['{"memory_type": NaN}', '{"a": Infinity}', '{"a": -Infinity}', "\xff\xfe{}",
                                 '{"a": "\x00"}'])
def test_non_json_constants_and_bytes_are_malformed_json(world, raw):
    r = world.patient(world.patient_a).post(_mem(world), raw=raw.encode("latin-1"))
    assert r.status_code == 400 and r.json()["code"] == "malformed_json", r.content


def _post_as(api, path: str, raw: bytes, content_type: str, headers: dict | None = None):
    return api.client.generic("POST", path, data=raw, content_type=content_type, **api._headers(headers))


def _memories_of(world) -> int:
    return len(world.patient(world.patient_a).get(_mem(world)).json()["items"])


@pytest.mark.django_db
@pytest.mark.parametrize("coding", ["gzip", "br", "deflate", "x-gzip", "compress", "zstd", "gzip, identity",
                                    "identity, gzip", "GZIP"])
def test_a_body_with_a_content_coding_is_415_never_read_as_plain_json(world, coding):
    """The API takes bodies as they are sent: a compressed one (any coding but identity) was parsed as plain JSON,
    so a real gzip body answered 400 malformed_json and a mislabelled plain one was accepted. Both are 415
    unsupported_media_type now, and nothing is stored."""
    import gzip

    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    plain = json.dumps(memory_body(cid)).encode()
    for raw in (gzip.compress(plain), plain):
        r = _post_as(api, _mem(world), raw, "application/json", {"Content-Encoding": coding})
        assert r.status_code == 415 and r["Content-Type"] == "application/problem+json", r.content
        assert r.json()["code"] == "unsupported_media_type" and "Content-Encoding" in r.json()["message"]
    assert _memories_of(world) == 0


@pytest.mark.django_db
@pytest.mark.parametrize("coding", ["identity", "Identity", ""])
def test_a_body_sent_as_it_is_is_read(world, coding):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    r = _post_as(api, _mem(world), json.dumps(memory_body(cid)).encode(), "application/json",
                 {"Content-Encoding": coding})
    assert r.status_code == 201, r.content


@pytest.mark.django_db
@pytest.mark.parametrize("charset, encoding", [("utf-16", "utf-16"), ("UTF-16LE", "utf-16-le"),
                                               ("iso-8859-1", "latin-1"), ("windows-1252", "cp1252"),
                                               ("utf-32", "utf-32"), ("nonsense", "utf-8"), ("utf-8-sig", "utf-8-sig"),
                                               ("utf-7", "utf-7")])
def test_json_declared_in_another_charset_than_utf_8_is_415(world, charset, encoding):
    """JSON on the wire is UTF-8 (RFC 8259 8.1): a body declared in another charset was decoded as UTF-8 anyway
    (400 malformed_json for UTF-16, a silently misread text for Latin-1)."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    raw = json.dumps(memory_body(cid)).encode(encoding)
    r = _post_as(api, _mem(world), raw, f"application/json; charset={charset}")
    assert r.status_code == 415 and r.json()["code"] == "unsupported_media_type", r.content
    assert "UTF-8" in r.json()["message"]
    assert _memories_of(world) == 0


@pytest.mark.django_db
@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8",
                                          "application/json; charset=UTF-8", 'application/json; charset="utf-8"',
                                          "application/json;charset=Utf-8", "application/json; charset=utf8",
                                          "application/json; charset=UTF8", "application/json; charset=csUTF8",
                                          "application/json; charset=unicode-1-1-utf-8"])
def test_json_in_utf_8_declared_or_not_is_read(world, content_type):
    """UTF-8 by any of its names is read (``charset=utf8`` was 415 unsupported_media_type)."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    body = memory_body(cid, "earliest_time", "10:00")
    r = _post_as(api, _mem(world), json.dumps(body, ensure_ascii=False).encode("utf-8"), content_type)
    assert r.status_code == 201, r.content


@pytest.mark.django_db
@pytest.mark.parametrize("content_type", ["application/json; charset=iso-8859-1; charset=utf-8",
                                          "application/json; charset=utf-8; CHARSET=utf-8"])
def test_a_charset_declared_twice_is_415_whichever_comes_last(world, content_type):
    """``charset=iso-8859-1; charset=utf-8`` was read as UTF-8 (the last counted) where another reader may take the
    first: which one is meant is not guessed, as for a key twice in a JSON object."""
    cid = world.consent(world.patient_a)
    r = _post_as(world.patient(world.patient_a), _mem(world), json.dumps(memory_body(cid)).encode(), content_type)
    assert r.status_code == 415 and r.json()["code"] == "unsupported_media_type", r.content
    assert "more than once" in r.json()["message"]
    assert _memories_of(world) == 0


@pytest.mark.django_db
@pytest.mark.parametrize("charset", ["us-ascii", "US-ASCII", "ascii", "ANSI_X3.4-1968", "csASCII"])
def test_json_declared_in_us_ascii_is_read_as_the_utf_8_it_is(world, charset):
    """US-ASCII is a subset of UTF-8: a body declared in it (by any of its registered names) was 415."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    body = memory_body(cid, "earliest_time", "10:00")
    r = _post_as(api, _mem(world), json.dumps(body).encode("ascii"), f"application/json; charset={charset}")
    assert r.status_code == 201, r.content
    assert _memories_of(world) == 1


@pytest.mark.django_db
@pytest.mark.parametrize("number", ["1e999", "-1e999", "1.5e400", "1" + "0" * 309, "9223372036854775808",
                                    "-9223372036854775809"])
def test_a_number_out_of_range_is_a_validation_error_naming_it_and_writes_nothing(world, number):
    """Python reads ``1e999`` as infinity, which jsonb refuses: it was a 500 (with the neighbouring JSON text in the
    database error) wherever a body holds free JSON, such as workflow state. An integer beyond 64 bits was stored,
    and every later read of it failed (orjson reads 64-bit integers only). Both are valid JSON we cannot keep: 422
    naming where, as for the other values we cannot store."""
    api = world.patient(world.patient_a)
    raw = (f'{{"patient_id": "{world.patient_a}", "workflow_type": "appointment_booking", '
           f'"state": {{"note": "x", "n": {number}}}}}')
    r = api.post("/v1/workflows", raw=raw.encode())
    assert r.status_code == 422 and r.json()["code"] == "validation_error", r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("state.n", "out_of_range")]
    from workflows.models import Workflow

    with identity_context(Identity(org_id=world.org, actor_sub="probe", patient_self_id=world.patient_a)):
        assert not Workflow.objects.filter(patient_id=world.patient_a).exists()
    assert api.post("/v1/workflows", raw=raw.replace(number, "1e300").encode()).status_code == 201
    assert api.post("/v1/workflows", raw=raw.replace(number, "-9223372036854775808").encode()).status_code == 201


def test_a_fact_stored_with_a_huge_integer_still_reads():
    """Rows written before the parser refused such integers: reads fall back to Python's JSON reader."""
    from core.parsers import fast_loads

    assert fast_loads('{"n": 1' + "0" * 309 + "}") == {"n": 10**309}
    assert fast_loads(b'{"n": 1}') == {"n": 1}

@pytest.mark.django_db
@pytest.mark.parametrize("repeated", ["consent_purpose", "fact.time"])
def test_a_key_twice_in_one_object_is_malformed_json_and_stores_nothing(world, repeated):
    """Parsers disagree on which of two equal keys counts (Python's keeps the last): refused, not guessed."""
    cid = world.consent(world.patient_a)
    body = json.dumps(memory_body(cid))
    if repeated == "consent_purpose":
        raw = body.replace('"consent_purpose": ', '"consent_purpose": "communication", "consent_purpose": ', 1)
    else:
        raw = body.replace('"time": ', '"time": "07:00", "time": ', 1)
    assert raw != body
    api = world.patient(world.patient_a)
    r = api.post(_mem(world), raw=raw.encode())
    assert r.status_code == 400 and r.json()["code"] == "malformed_json", r.content
    assert "twice" in r.json()["message"]
    assert api.get(_mem(world)).json()["items"] == []
    assert api.post(_mem(world), raw=body.encode()).status_code == 201  # the same body with each key once


@pytest.mark.django_db
@pytest.mark.parametrize("where", ["value", "key", "nested"])
@pytest.mark.parametrize("bad", ["\\u0000", "\\ud800"])
def test_unstorable_characters_in_bodies_are_422(world, where, bad):
    cid = world.consent(world.patient_a)
    body = json.dumps(memory_body(cid))
    if where == "value":
        body = body.replace('"10:00"', f'"10:00{bad}"')
    elif where == "key":
        body = body.replace('"memory_type"', f'"memory{bad}_type"')
    else:
        body = body.replace('"kind"', '"extra": {"deep": ["x' + bad + '"]}, "kind"')
    r = world.patient(world.patient_a).post(_mem(world), raw=body)
    assert r.status_code == 422 and r.json()["code"] == "validation_error", r.content
    assert r.json()["errors"][0]["code"] == "unstorable_character"
    assert world.patient(world.patient_a).get(_mem(world)).json()["items"] == []


@pytest.mark.django_db
def test_an_upper_case_patient_id_reaches_its_own_patient(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    upper = str(world.patient_a).upper()
    r = api.post(f"/v1/patients/{upper}/memories", memory_body(cid))
    assert r.status_code == 201, r.content
    assert len(api.get(f"/v1/patients/{upper}/memories").json()["items"]) == 1
    memory_id = r.json()["memory_id"].upper()
    assert api.get(f"/v1/patients/{upper}/memories/{memory_id}").status_code == 200
    # and it is still nobody else's
    other = world.patient(world.patient_b)
    assert (other.get(f"/v1/patients/{upper}/memories").json().get("items") or []) == []
    assert other.get(f"/v1/patients/{upper}/memories/{memory_id}").status_code == 404


@pytest.mark.django_db
def test_long_query_parameters_and_headers_are_problems_not_500(world):
    api = world.patient(world.patient_a)
    r = api.get(_mem(world), {"consent_purpose": "x" * 501})
    assert r.status_code == 422 and r["Content-Type"] == "application/problem+json"
    r = api.get(_mem(world), {"consent_purpose": "a\x00b"})
    assert r.status_code == 422
    r = api.get(_mem(world) + "?" + "&".join(f"p{i}=v" for i in range(2000)))
    assert r.status_code == 414 and r.json()["code"] == "query_too_long"
    r = api.get(_mem(world), headers={"X-Padding": "x" * 20000})
    assert r.status_code == 431 and r.json()["code"] == "headers_too_large"


def _chunked_post(url_port: int, path: str, token: str, chunks: list[bytes]) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", url_port, timeout=30)
    conn.putrequest("POST", path)
    conn.putheader("Authorization", f"Bearer {token}")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Transfer-Encoding", "chunked")
    conn.endheaders()
    for chunk in chunks:
        conn.send(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
    conn.send(b"0\r\n\r\n")
    response = conn.getresponse()
    body = json.loads(response.read() or b"{}")
    conn.close()
    return response.status, body


@pytest.mark.slow
def test_chunked_bodies_are_read_up_to_the_limit_through_gunicorn(committed_db, world, jwks_server):
    service = LiveService(jwks_server.url, workers=1)
    try:
        cid = world.consent(world.patient_a)
        token = world.patient(world.patient_a).token
        raw = json.dumps(memory_body(cid)).encode()
        status, body = _chunked_post(service.port, _mem(world), token, [raw[:10], raw[10:30], raw[30:]])
        assert status == 201, body
        assert body["memory"]["fact"] == {"kind": "earliest_time", "time": "10:00"}
        # over the limit: 413, never read as empty, nothing stored
        big = b'{"memory_type": "' + b"x" * (70 * 1024) + b'"}'
        status, body = _chunked_post(service.port, _mem(world), token, [big[i:i + 8192]
                                                                        for i in range(0, len(big), 8192)])
        assert status == 413 and body["code"] == "payload_too_large"
        assert len(world.patient(world.patient_a).get(_mem(world)).json()["items"]) == 1
    finally:
        service.close()


@pytest.mark.slow
def test_head_through_gunicorn_is_get_without_a_body_and_logs_nothing(committed_db, world, jwks_server):
    """Load balancers probe with HEAD: answered as GET, without a body (a kept-alive connection's next answer
    is intact), and gunicorn is never handed body bytes for it (it logged "WSGI app sent body bytes on a
    no-body response" for every HEAD)."""
    service = LiveService(jwks_server.url, workers=1)
    try:
        auth = {"Authorization": f"Bearer {world.patient(world.patient_a).token}"}
        conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
        for path, headers, status in (("/health/live", {}, 200), ("/health/ready", {}, 200),
                                      (_mem(world), auth, 200), ("/v1/no-such-operation", auth, 404),
                                      ("/mcp", {}, 405)):
            conn.request("GET", path, headers=headers)
            got = conn.getresponse()
            length = len(got.read())
            conn.request("HEAD", path, headers=headers)
            head = conn.getresponse()
            assert (head.status, head.read()) == (got.status, b"") and got.status == status, path
            if head.getheader("Content-Length") is not None:
                assert int(head.getheader("Content-Length")) == length, path
        conn.request("GET", "/health/live")  # the connection still frames answers right
        assert json.loads(conn.getresponse().read()) == {"status": "live"}
        conn.close()
        assert "body bytes" not in service.logs()
    finally:
        service.close()


@pytest.mark.django_db
@pytest.mark.parametrize("query", [{"memroy_type": "scheduling_preference"}, {"offset": "5"}, {"q": "morning"}])
def test_a_query_parameter_the_operation_does_not_take_is_422_naming_it(world, query):
    """A misspelt filter was ignored and the unfiltered list answered; now it is named, with what is taken."""
    api = world.patient(world.patient_a)
    r = api.get(_mem(world), query)
    assert r.status_code == 422, r.content
    problem = r.json()
    assert problem["title"] == "The request is not valid"
    assert [(e["field"], e["code"]) for e in problem["errors"]] == [(next(iter(query)), "unknown_parameter")]
    assert "consent_purpose" in problem["errors"][0]["message"] and "memory_type" in problem["errors"][0]["message"]
    assert api.get(_mem(world), {"memory_type": "scheduling_preference", "format": "json"}).status_code == 200


@pytest.mark.django_db
def test_a_query_parameter_given_twice_is_422_not_the_last_one_silently(world):
    r = world.patient(world.patient_a).get("/v1/audit-events?limit=1&limit=50")
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("limit", "repeated_parameter")]


@pytest.mark.django_db
@pytest.mark.parametrize("path, query", [
    ("/v1/audit-events", "patient_id="), ("/v1/audit-events", "cursor="), ("/v1/grants", "patient_id="),
    ("/v1/patients/{a}/export", "format="), ("/v1/patients/{a}/memories/search", "q=diet&limit="),
])
def test_a_query_parameter_given_empty_is_422_not_read_as_absent(world, path, query):
    """An empty filter answered the unfiltered list (the organisation's whole trail, every grant)."""
    admin = Api(world.token(sub="org-admin", scope="grant:write consent:read audit:read export:read"))
    api = admin if path in ("/v1/audit-events", "/v1/grants") else world.patient(
        world.patient_a, scope="memory:read export:read")
    r = api.client.get(f"{path.format(a=world.patient_a)}?{query}", **api._headers(None))
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [(query.split("&")[-1][:-1], "blank")]
    # where empty means "any", it is declared so
    assert world.patient(world.patient_a).get(_mem(world), {"memory_type": ""}).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["xml", "api", "fhir"])
def test_a_format_no_renderer_has_is_422_naming_it_after_authentication(world, fmt):
    r = world.patient(world.patient_a).get(_mem(world), {"format": fmt})
    assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["format"], r.content
    assert "json" in r.json()["errors"][0]["message"]
    assert Api(None).get(_mem(world), {"format": fmt}).status_code == 401  # who asks comes first


@pytest.mark.django_db
@pytest.mark.parametrize("accept, status", [
    (None, 200), ("*/*", 200), ("application/json", 200), ("application/json; q=0.5", 200), ("application/*", 200),
    ("text/html, */*;q=0.1", 200), ("text/html", 406), ("application/xml", 406),
    ("application/json;q=0", 406), ("application/json; q=0.000", 406), ("*/*;q=0", 406),
    ("application/json;q=0, */*", 406), ("application/*;q=0, */*;q=1", 406), ("text/html, application/json;q=0", 406),
    ("text/html;q=0, */*", 200), ("*/*;q=0, application/json", 200), ("application/json;q=0.001", 200),
])
def test_what_a_caller_accepts_is_answered_as_drf_negotiates_it(world, accept, status):
    """The common Accept values skip DRF's media-type parsing (core.api.ScopedAPIView.perform_content_negotiation);
    the answer is DRF's own for every value, the usual ones and the rest, except that ``q=0`` means "not
    acceptable" (RFC 9110 12.4.2), decided by the most specific range: ``application/json;q=0`` was served JSON."""
    api = world.patient(world.patient_a)
    r = api.get(_mem(world), headers={"Accept": accept} if accept is not None else None)
    assert r.status_code == status, r.content
    assert r["Content-Type"] == ("application/json" if status == 200 else "application/problem+json"), r["Content-Type"]
    if status == 406:
        assert r.json()["code"] == "not_acceptable"
        assert r.json()["message"] == "Accept leaves nothing this answers in: it answers application/json"


@pytest.mark.django_db
@pytest.mark.parametrize("limit", ["0", "501", "ten", "+5", " 5", "1_0", "\u0665"])
def test_a_limit_is_a_whole_number_in_ascii_digits_within_its_range(world, limit):
    r = world.patient(world.patient_a).get("/v1/audit-events", {"limit": limit})
    assert r.status_code == 422, r.content
    assert r.json()["errors"] == [{"field": "limit", "message": "an integer from 1 to 500", "code": "invalid"}]


@pytest.mark.django_db
def test_options_tells_no_more_than_the_methods_would_to_the_same_token(world):
    """OPTIONS answered every token with a view's name, description and methods, where its GET said 403
    insufficient_scope: it now needs the scopes of one of the operations it describes, and for a patient the
    caller may not see it answers exactly as for one that does not exist."""
    auditor = world.staff("auditor-1", scope="audit:read")
    r = auditor.request("OPTIONS", _mem(world))
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"
    get = auditor.get(_mem(world))
    assert {**r.json(), "request_id": None} == {**get.json(), "request_id": None}  # as the GET's refusal
    # a POST-only operation: the write's scope is what OPTIONS needs
    revoke = f"/v1/patients/{world.patient_a}/consents/{world.patient_b}/revoke"
    assert auditor.request("OPTIONS", revoke).json()["code"] == "insufficient_scope"
    writer = world.staff("nurse-1", scope="consent:write")
    assert writer.request("OPTIONS", revoke).status_code == 200
    reader = world.staff("nurse-1", scope="memory:read")
    unseen, unknown = reader.request("OPTIONS", _mem(world)), reader.request("OPTIONS", "/v1/patients/"
                                                                              f"{world.other_org}/memories")
    assert unseen.status_code == unknown.status_code == 200 and unseen.json() == unknown.json()
    assert unseen["Allow"] == unknown["Allow"]


def _raw_get(port: int, path: str, token: str) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})  # sent as written, not re-encoded
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def _encoded_slash_paths(world) -> list[str]:
    return [f"/v1/patients/{world.patient_a}%2Fmemories", f"/v1/patients/{world.patient_a}%2fconsents",
            f"/v1/patients/{world.patient_a}/memories/x%2F..%2F..%2Fconsents"]


@pytest.mark.slow
def test_an_encoded_slash_in_a_path_is_400_never_another_route_through_gunicorn(committed_db, world, jwks_server):
    """The server decodes %2F before routing: '/v1/patients/<id>%2Fmemories' answered the memories list, so an id
    holding a slash reached another operation than the one named. It is 400 invalid_path."""
    service = LiveService(jwks_server.url, workers=1)
    try:
        world.consent(world.patient_a)
        token = world.patient(world.patient_a).token
        assert _raw_get(service.port, f"/v1/patients/{world.patient_a}/memories", token)[0] == 200
        for path in _encoded_slash_paths(world):
            status, body = _raw_get(service.port, path, token)
            assert (status, body["code"]) == (400, "invalid_path"), path
    finally:
        service.close()


def test_an_encoded_slash_in_a_path_is_400_through_the_asgi_server(live, world):
    world.consent(world.patient_a)
    token = world.patient(world.patient_a).token
    for path in _encoded_slash_paths(world):
        status, body = _raw_get(live.port, path, token)
        assert (status, body["code"]) == (400, "invalid_path"), path


@pytest.mark.django_db
def test_a_body_with_thousands_of_bad_fields_gets_the_first_100_and_how_many(world):
    """Every bad field was listed: 57 KB of unknown keys was a 430 KB answer. The problem lists the first 100
    problems and says how many there were (errors_total); nothing is stored."""
    admin = world.staff("org-admin", scope="patient:write patient:read")
    body = {"display_name": "Ann Lis", **{f"k{i}": 1 for i in range(5000)}}
    r = admin.post("/v1/patients", body)
    assert r.status_code == 422 and r.json()["code"] == "validation_error"
    problem = r.json()
    assert len(problem["errors"]) == 100 and {e["code"] for e in problem["errors"]} == {"unknown_field"}
    assert problem["errors_total"] == 5000 and len(r.content) < 20_000
    few = admin.post("/v1/patients", {"display_name": "Ann Lis", "k1": 1, "k2": 2}).json()
    assert len(few["errors"]) == 2 and "errors_total" not in few
    assert admin.get("/v1/patients", {"q": "Ann Lis"}).json()["items"] == []


@pytest.mark.django_db
def test_a_query_value_that_is_not_utf_8_is_422_naming_it_never_searched_as_replacement_characters(world):
    """q=%FF was decoded with replacement characters and searched for as if asked (200, the patient's memories
    ranked against '\\ufffd'): the client's text was lost without a word. It is 422 invalid_encoding naming the
    parameter; text in any script, percent-encoded as UTF-8, is read as before."""
    world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    search = f"/v1/patients/{world.patient_a}/memories/search"
    for query in ("q=%FF%FE", "q=caf%E9", "q=ok&purpose=%C0%AF"):
        r = patient.get(f"{search}?{query}")
        assert r.status_code == 422, (query, r.content)
        assert [(e["field"], e["code"]) for e in r.json()["errors"]] in (
            [("q", "invalid_encoding")], [("purpose", "invalid_encoding")]), query
    assert patient.get(f"{search}?q=caf%C3%A9+%E4%BD%95").status_code == 200


@pytest.mark.django_db
def test_a_nul_in_a_query_value_is_refused_with_the_code_a_nul_in_a_body_gets(world):
    """A NUL in a memory search's q was 422 with code ``unstorable`` while the same NUL in a context pack's
    question (a JSON body) was ``unstorable_character``: one character, two machine-readable codes, so an agent
    handling the documented one missed the other. Both are ``unstorable_character``, naming the parameter."""
    world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    search = f"/v1/patients/{world.patient_a}/memories/search"
    r = patient.get(f"{search}?q=a%00b")
    assert r.status_code == 422 and [(e["field"], e["code"]) for e in r.json()["errors"]] == [
        ("q", "unstorable_character")], r.content
    r = patient.post(f"/v1/patients/{world.patient_a}/context",
                     {"question": "a\u0000b", "purpose": "appointment_scheduling"})
    assert r.status_code == 422 and [(e["field"], e["code"]) for e in r.json()["errors"]] == [
        ("question", "unstorable_character")], r.content


_PLACEHOLDER_IDS = ["00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"]


@pytest.mark.django_db
@pytest.mark.parametrize("placeholder", _PLACEHOLDER_IDS)
def test_the_nil_and_max_uuids_are_no_patients_id_and_nothing_is_registered_or_started_for_them(world, placeholder):
    """A patient was registered under the nil UUID (201), and grants, sessions and workflows started for it: the
    nil and max UUIDs (RFC 9562) are placeholders, 422 ``reserved`` naming the field, nothing written."""
    staff = world.staff("org-admin", scope="patient:write grant:write memory:write workflow:write")
    attempts = [("/v1/patients", {"display_name": "Ann Nil", "patient_id": placeholder}),
                ("/v1/grants", {"patient_id": placeholder, "actor_sub": "nurse-1", "purpose": "care_coordination"}),
                ("/v1/sessions", {"patient_id": placeholder, "purpose": "appointment_scheduling"}),
                ("/v1/workflows", {"workflow_type": "appointment_booking", "patient_id": placeholder})]
    for path, body in attempts:
        r = staff.post(path, body)
        assert r.status_code == 422 and r.json()["code"] == "validation_error", (path, r.content)
        assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("patient_id", "reserved")], r.json()
    with admin_connect() as conn:
        held = conn.execute("SELECT (SELECT count(*) FROM patient_directory WHERE patient_id = %(p)s)"
                            " + (SELECT count(*) FROM patient_access_grants WHERE patient_id = %(p)s)",
                            {"p": placeholder}).fetchone()[0]
    assert held == 0
    real = str(uuid.uuid4())
    assert staff.post("/v1/patients", {"display_name": "Ann Real", "patient_id": real}).status_code == 201


@pytest.mark.django_db
@pytest.mark.parametrize("placeholder", _PLACEHOLDER_IDS)
def test_a_token_naming_the_nil_or_max_uuid_as_its_organisation_or_patient_is_refused(world, placeholder):
    for claims in ({"org_id": placeholder}, {"patient_id": placeholder}):
        r = Api(world.token(sub="someone", **claims)).get("/v1/audit-events")
        assert r.status_code == 401 and r.json()["code"] == "invalid_token", (claims, r.content)


@pytest.mark.django_db
def test_a_trailing_slash_is_404_saying_that_the_path_without_it_is_served_never_a_redirect(world):
    """``GET /v1/audit-events/`` was a bare 404 with no hint; the path without the slash is served, and the problem
    document says so (a POST is never redirected: its body would be lost)."""
    staff = world.staff("org-admin", scope="patient:write patient:read audit:read memory:read")
    for method, path in (("get", "/v1/audit-events/"), ("post", "/v1/patients/"),
                         ("get", f"/v1/patients/{world.patient_a}/memories/")):
        r = staff.post(path, {"display_name": "Ann"}) if method == "post" else staff.get(path)
        assert r.status_code == 404 and "Location" not in r, (method, path, r.status_code)
        assert r["Content-Type"] == "application/problem+json" and r.json()["code"] == "not_found"
        assert "without its trailing slash" in r.json()["message"], r.json()
    assert staff.get("/v1/patients", {"q": "Ann"}).json()["items"] == []  # the POST registered no one
    for path in ("/v1/nothing-here/", "/v1/patients/not-a-uuid/memories/", "/v1/audit-events/x"):
        r = staff.get(path)
        assert r.status_code == 404 and r.json()["message"] == "Not found", (path, r.json())
