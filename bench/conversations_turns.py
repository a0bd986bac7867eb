"""Benchmark short-term context: appending a turn, and building the model context of a 200-turn session.

    .venv/bin/python -m bench.conversations_turns [--turns 200] [--builds 100] [--budgets 1000,2000,4000]
                                                  [--api-turns 200] [--api-builds 50]

1. (Re)creates its own database ``anamnesis_bench_conv`` (never another), migrated as the owner role; everything
   then runs as the runtime role under RLS, with audit rows, exactly as requests do.
2. Service level: appends ``--turns`` turns to one session (a realistic booking talk: patient, assistant and tool
   turns), one transaction each, and times every append; then builds the context of that session ``--builds``
   times per budget (real cl100k_base token counts, deterministic summary of the older turns), checking every
   context against its budget with an independent recount.
3. Through the API, in-process (Django's test client: middleware, bearer-token validation against a local JWKS on
   127.0.0.1, DRF, RLS, audit): ``--api-turns`` POST /v1/sessions/{id}/turns and ``--api-builds``
   GET /v1/sessions/{id}/context.
4. Prints p50/p95/p99 and writes ``bench/results/conversations_turns.json``. Exits non-zero if a context ever
   exceeded its budget or a request failed. Every loop is bounded; nothing leaves 127.0.0.1.
"""

from __future__ import annotations

from bench.bootstrap import setup_django

DB_NAME = "anamnesis_bench_conv"
setup_django(DB_NAME)

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from pathlib import Path  # noqa: E402

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402

from bench import common  # noqa: E402
from bench.common import log  # noqa: E402
from conversations import selectors, services  # noqa: E402
from conversations.summaries import dumps  # noqa: E402
from conversations.tokens import count_tokens  # noqa: E402
from core.bootstrap import bootstrap  # noqa: E402
from core.identity import ACTOR_PATIENT, Identity, identity_context  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "conversations_turns.json"
PURPOSE = "appointment_scheduling"

# A booking conversation that keeps going: constraints, asides, offers, corrections.
SCRIPT = [
    ("user", "I need to reschedule my cardiology follow-up. I can't do mornings, and I'm currently taking blood "
             "thinners."),
    ("assistant", "I can help with that. I have noted that mornings do not work for you. Which day would suit?"),
    ("user", "What about Thursday?"),
    ("tool", "Matching slots: A1 Thursday 14:00"),
    ("assistant", "There is a slot on Thursday at 14:00 with the cardiology team. Shall I hold it for you?"),
    ("user", "Hmm, is there parking at the clinic? And please don't book me before 10 a.m. in general."),
    ("assistant", "Yes, there is a car park behind the main building; the first two hours are free of charge."),
    ("user", "Could it be no later than 4pm? Fridays are out, by the way."),
]


def check_topology() -> None:
    common.check_topology(DB_NAME)


def percentiles(values: list[float]) -> dict:
    ordered = sorted(values)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))], 3)

    return {"n": len(ordered), "p50_ms": pct(50), "p95_ms": pct(95), "p99_ms": pct(99), "max_ms": round(
        ordered[-1], 3), "mean_ms": round(statistics.fmean(ordered), 3)}


def prepare() -> None:
    for conn in connections.all():
        conn.close()
    started = time.perf_counter()
    bootstrap(settings.DB_TOPOLOGY, drop_first=True)
    call_command("migrate", database="owner", verbosity=0)
    connections["owner"].close()
    log(f"created and migrated {DB_NAME} in {time.perf_counter() - started:.1f}s")


def turn(i: int) -> tuple[str, str]:
    role, content = SCRIPT[i % len(SCRIPT)]
    return role, (content if i < len(SCRIPT) else f"{content} ({i})")


def service_level(args) -> dict:
    org, pid = uuid.uuid4(), uuid.uuid4()
    me = Identity(org_id=org, actor_sub=f"patient-{pid}", patient_self_id=pid, actor_kind=ACTOR_PATIENT,
                  scopes=frozenset({"memory:read", "memory:write"}))
    with identity_context(me):
        sid = services.session_start(identity=me, patient_id=pid, purpose=PURPOSE).session_id
    appends = []
    for i in range(args.turns):
        role, content = turn(i)
        extra = {"tool_name": "scheduling.search_slots", "tool_result": {"offers": [], "considered": 3}} \
            if role == "tool" else {}
        started = time.perf_counter()
        with identity_context(me):
            services.turn_append(identity=me, session_id=sid, role=role, content=content, **extra)
        appends.append((time.perf_counter() - started) * 1000)
    log(f"appended {args.turns} turns: p50 {percentiles(appends)['p50_ms']} ms")
    builds: dict[str, dict] = {}
    over_budget = 0
    for budget in args.budgets:
        times, used, included = [], [], []
        for _ in range(args.builds):
            started = time.perf_counter()
            with identity_context(me):
                _, built = selectors.session_context(identity=me, session_id=sid, max_tokens=budget)
            times.append((time.perf_counter() - started) * 1000)
            recount = count_tokens(dumps(built.context))
            used.append(recount)
            included.append(built.turns_included)
            if recount > budget or recount != built.used_tokens or str(pid) in dumps(built.context):
                over_budget += 1
        builds[str(budget)] = {**percentiles(times), "max_used_tokens": max(used), "budget": budget,
                               "turns_included": min(included), "turns_summarised": args.turns - min(included)}
        log(f"context @ {budget} tokens: p50 {builds[str(budget)]['p50_ms']} ms, used <= {max(used)}, "
            f"{min(included)} turns + summary of {args.turns - min(included)}")
    return {"append": percentiles(appends), "context": builds, "contexts_over_budget": over_budget,
            "turns": args.turns}


def api_level(args) -> dict:
    from django.test import Client

    from bench.tokens import (
        PATIENT_SCOPES,
        JwksServer,
        SigningKey,
        configure_identity_provider,
        mint,
        register_organization,
    )

    keys = SigningKey()
    jwks = JwksServer(keys)
    try:
        configure_identity_provider(jwks.url)
        org, pid = uuid.uuid4(), uuid.uuid4()
        register_organization(org)
        token = mint(keys, sub=f"patient-{pid}", org_id=org, patient_id=pid, scope=PATIENT_SCOPES)
        client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
        r = client.post("/v1/sessions", {"patient_id": str(pid), "purpose": PURPOSE}, content_type="application/json")
        assert r.status_code == 201, r.content
        sid = r.json()["session"]["session_id"]
        posts, gets, failures, over = [], [], 0, 0
        for i in range(args.api_turns):
            role, content = turn(i)
            body = {"role": role, "content": content}
            if role == "tool":
                body.update(tool_name="scheduling.search_slots", tool_result={"offers": [], "considered": 3})
            started = time.perf_counter()
            r = client.post(f"/v1/sessions/{sid}/turns", json.dumps(body), content_type="application/json")
            posts.append((time.perf_counter() - started) * 1000)
            failures += r.status_code != 201
        budget = args.budgets[len(args.budgets) // 2]
        for _ in range(args.api_builds):
            started = time.perf_counter()
            r = client.get(f"/v1/sessions/{sid}/context", {"max_tokens": budget})
            gets.append((time.perf_counter() - started) * 1000)
            failures += r.status_code != 200
            if r.status_code == 200:
                body = r.json()
                over += count_tokens(dumps(body["context"])) > budget or str(pid) in r.content.decode()
        log(f"API: POST turn p50 {percentiles(posts)['p50_ms']} ms, GET context @ {budget} p50 "
            f"{percentiles(gets)['p50_ms']} ms, failures {failures}")
        return {"post_turn": percentiles(posts), "get_context": {**percentiles(gets), "budget": budget},
                "failures": failures, "contexts_over_budget": over}
    finally:
        jwks.stop()


def parse_args(argv):
    def positive(value: str) -> int:
        n = int(value)
        if not 1 <= n <= 5000:
            raise argparse.ArgumentTypeError("1..5000")
        return n

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--turns", type=positive, default=200)
    p.add_argument("--builds", type=positive, default=100)
    p.add_argument("--budgets", type=lambda v: [int(x) for x in v.split(",")], default=[1000, 2000, 4000])
    p.add_argument("--api-turns", type=positive, default=200)
    p.add_argument("--api-builds", type=positive, default=50)
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    check_topology()
    prepare()
    started = datetime.now(UTC)
    service = service_level(args)
    api = api_level(args)
    result = {"started_at": started.isoformat(), "database": DB_NAME, "tokenizer": "cl100k_base",
              "summariser": "deterministic", "machine": {"python": platform.python_version(),
                                                         "cpus": os.cpu_count()},
              "service": service, "api": api}
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2))
    log(json.dumps({"service": service, "api": api}, indent=2))
    log(f"written to {RESULTS}")
    bad = service["contexts_over_budget"] + api["contexts_over_budget"] + api["failures"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
