"""The memory list's CPU per request, measured in CPU time rather than throughput (which other processes' load on a
shared machine makes noisy): the web worker's Python and PostgreSQL's.

```sh
.venv/bin/python -m bench.list_cpu              # 5 rounds of 2,000 requests on anamnesis_bench (api-ratio's seed)
.venv/bin/python -m bench.list_cpu --rounds 3 --requests 1000 --profile 20   # and the top 20 functions by CPU
```

The service's WSGI application (``config.wsgi``, as gunicorn loads it) is called in a loop on this one thread with
patients' tokens for random patients of the seeded database (``bench.memories_api``'s, which ``--reuse`` keeps;
``../shared/tools/api-ratio`` makes it), after a warm-up that verifies every token once, as a worker long in service
has. Per round: the thread's CPU time (``time.thread_time``: Python and the kernel's work for it) per request, and the
CPU time of the server processes that serve this database's connections (``/proc``; their own COMMITs' WAL flushes
included, autovacuum and the other databases' backends not) per request. Prints every round and the lowest of each,
the figure to compare: run before and after a change, interleaved, several times. CPU time does not count waiting,
so it hardly moves with the machine's other load; throughput does.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import resource
import sys
import time

DB_NAME = "anamnesis_bench"


def _clock_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime


def postgres_cpu_seconds(db_name: str) -> float:
    """User + system CPU seconds of the server processes connected to ``db_name`` (``postgres: USER DB ...``)."""
    ticks = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                words = cmdline.read().split()
            if words[:1] == [b"postgres:"] and len(words) > 2 and words[2] == db_name.encode():
                ticks += _clock_ticks(int(entry))
        except (OSError, ValueError):
            continue
    return ticks / os.sysconf("SC_CLK_TCK")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--tokens", type=int, default=1000, help="patients (each with its own token)")
    parser.add_argument("--profile", type=int, default=0, help="print cProfile's top N functions of one round")
    args = parser.parse_args(argv)

    from bench.tokens import AUDIENCE, ISSUER, JwksServer, SigningKey, mint

    key = SigningKey()
    jwks = JwksServer(key)
    # as the service runs (api-ratio's gunicorn): its settings, pooled connections (bench.bootstrap's are plain)
    os.environ.update(OIDC_JWKS_URL=jwks.url, OIDC_ISSUER=ISSUER, OIDC_AUDIENCE=AUDIENCE, LOG_LEVEL="WARNING",
                      ANAMNESIS_DB_NAME=DB_NAME, DJANGO_SETTINGS_MODULE="config.settings")
    import psycopg

    from bench.common import admin_conninfo
    from config.wsgi import application  # Django set up as gunicorn loads it

    with psycopg.connect(admin_conninfo(DB_NAME)) as admin:
        pairs = admin.execute("SELECT DISTINCT organization_id::text, patient_id::text FROM patient_memory "
                              "WHERE state = 'active'").fetchall()
    random.seed(7)
    pairs = random.sample(pairs, min(args.tokens, len(pairs)))
    requests = [(f"/v1/patients/{pid}/memories",
                 "Bearer " + mint(key, sub=f"patient-{pid}", org_id=org, patient_id=pid, exp_in=3600))
                for org, pid in pairs]
    statuses: list[str] = []

    def start_response(status, headers, exc_info=None):
        statuses.append(status)

    def call(path: str, authorization: str) -> None:
        environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
                   "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1",
                   "HTTP_HOST": "127.0.0.1:8000", "HTTP_AUTHORIZATION": authorization,
                   "HTTP_ACCEPT": "application/json", "wsgi.input": io.BytesIO(b""), "wsgi.errors": sys.stderr,
                   "wsgi.url_scheme": "http", "wsgi.version": (1, 0), "wsgi.multithread": True,
                   "wsgi.multiprocess": True, "wsgi.run_once": False}
        result = application(environ, start_response)
        try:
            for _ in result:
                pass
        finally:
            result.close()

    for path, authorization in requests:  # every token verified once, every type version cached
        call(path, authorization)
    if any(not status.startswith("200") for status in statuses):
        print("a warm-up request was not answered 200:", sorted(set(statuses)), file=sys.stderr)
        return 1
    rng = random.Random(42)
    order = [requests[rng.randrange(len(requests))] for _ in range(args.requests)]
    python, postgres = [], []
    for number in range(args.rounds):
        statuses.clear()
        db_started, started = postgres_cpu_seconds(DB_NAME), time.thread_time()
        usage = resource.getrusage(resource.RUSAGE_THREAD)
        for path, authorization in order:
            call(path, authorization)
        python.append((time.thread_time() - started) / args.requests * 1e6)
        system = (resource.getrusage(resource.RUSAGE_THREAD).ru_stime - usage.ru_stime) / args.requests * 1e6
        postgres.append((postgres_cpu_seconds(DB_NAME) - db_started) / args.requests * 1e6)
        refused = len([status for status in statuses if not status.startswith("200")])
        print(f"round {number + 1}: web worker {python[-1]:5.0f} us ({system:.0f} in the kernel), "
              f"PostgreSQL {postgres[-1]:4.0f} us per request" + (f" ({refused} not 200)" if refused else ""))
    print(f"lowest: web worker {min(python):.0f} us, PostgreSQL {min(postgres):.0f} us per request")
    if args.profile:
        import cProfile
        import pstats

        profile = cProfile.Profile(time.thread_time)  # CPU time, not the waits
        profile.runcall(lambda: [call(path, authorization) for path, authorization in order])
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.profile)
    jwks.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
