"""One table of the fast path's goals from the benchmarks' JSON results (no Django, no database).

    .venv/bin/python -m bench.summary                          # bench/results/ (make bench)
    .venv/bin/python -m bench.summary --dir bench/results/quick   # make bench-quick
    .venv/bin/python -m bench.summary --strict                 # exit 1 unless every measured goal passes

Each row says what was measured, at what size and when: quick runs use small seeds and short loads, so their rows
show the harness works, not that a goal is met (their size is in the "measured at" column). The list read's ratio to
a bare Django read is measured by ../shared/tools/api-ratio, not here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def load(directory: Path, name: str) -> dict | None:
    path = directory / name
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def verdict(ok: bool | None) -> str:
    return "-" if ok is None else ("PASS" if ok else "FAIL")


def rows(directory: Path) -> list[tuple[str, str, str, bool | None, str]]:
    """(goal, figure, target, passed, measured at)."""
    out: list[tuple[str, str, str, bool | None, str]] = []

    def missing(goal: str, target: str, bench: str) -> None:
        out.append((goal, "not run", target, None, f"python -m bench.{bench}"))

    out.append(("list: ratio to a bare Django read", "run ../shared/tools/api-ratio", ">= 0.5", None,
                "api-ratio (same run, same machine)"))
    m = load(directory, "memories_api.json")
    if m:
        a, ld = m["api"], m["load"]
        where = (f"{m['dataset']['patients']:,} patients x {m['dataset']['per_patient']}, {ld['requests']} req, "
                 f"gunicorn {ld['gunicorn_workers']}x{ld['gunicorn_threads']}; {m['at']}")
        if ld["concurrency"] == 8 and m["dataset"]["patients"] >= 10_000:
            out.append(("list: p99 at 8 connections", f"{a['p99_ms']} ms (p50 {a['p50_ms']}, {a['per_s']} req/s)",
                        "<= 30 ms", a["p99_ms"] is not None and a["p99_ms"] <= 30 and not a["failed"], where))
        else:
            out.append(("list: p99 at 8 connections", f"{a['p99_ms']} ms at {ld['concurrency']} connections",
                        "<= 30 ms", None, where + " (not the issue's size)"))
        out.append(("list: API/plain-SQL throughput (info)", f"x{m['ratio_api_over_sql']['throughput']}",
                    "(api-ratio is the goal)", None, where))
    else:
        missing("list: p99 at 8 connections", "<= 30 ms", "memories_api")

    x = load(directory, "mixed_load.json")
    if x:
        ld, o, n = x["load"], x["overall"], x["nothing_lost"]
        where = (f"{ld['connections']} conn, {ld['seconds']:g}s, {x['server']['command']} "
                 f"{x['server']['workers']}x{x['server']['threads']}, {x['dataset']['patients']:,} patients; "
                 f"{x['at']}; load {x['machine']['load_average_at_start'][0]}")
        full = ld["connections"] >= 50 and ld["seconds"] >= 60
        out.append(("mixed load: p99, all operations", f"{o['p99_ms']} ms ({o['per_s']} req/s, p50 {o['p50_ms']})",
                    f"<= {x['targets']['p99_ms']:g} ms",
                    (o["p99_ms"] is not None and o["p99_ms"] <= x["targets"]["p99_ms"]) if full else None, where))
        out.append(("mixed load: errors", str(x["errors"]["total"]), "0", x["errors"]["total"] == 0, where))
        vectors = f" (their vectors: {n['vectors_found']} found)" if "vectors_found" in n else ""
        out.append(("mixed load: acknowledged writes/audit rows lost",
                    f"{n['lost_total']} of {n['created_memories']} memories{vectors}, {n['checkpoints']} checkpoints, "
                    f"{n['acked_requests']} audit rows", "0", n["lost_total"] == 0, where))
        rss = [r for r in x["worker_rss_mb"] if r is not None]
        model = [p for p in x["processes"] if p["role"] == "embedding_server"]
        out.append(("web worker resident memory (serve)", f"max {max(rss) if rss else '-'} MB of {rss}",
                    "< 200 MB", bool(rss) and max(rss) < 200, where + " (after the load)"))
        if model:
            out.append(("embedding model: processes holding it (info)",
                        f"{len(model)} embedding server, {model[0]['rss_mb']} MB", "1 per machine",
                        None, where))
    else:
        missing("mixed load: p99, errors, lost", "<= 200 ms, 0, 0", "mixed_load")
    g = load(directory, "mixed_load_asgi.json")  # --server asgi, beside the default (info)
    if g:
        o, rss = g["overall"], [r for r in g["worker_rss_mb"] if r is not None]
        out.append(("mixed load under serve --asgi (info)",
                    f"p99 {o['p99_ms']} ms, {o['per_s']} req/s, errors {g['errors']['total']}, lost "
                    f"{g['nothing_lost']['lost_total']}, workers {rss} MB", "", None,
                    f"{g['load']['connections']} conn, {g['load']['seconds']:g}s; {g['at']}"))
    if m and m["api"]["worker_rss_mb"]:
        rss = m["api"]["worker_rss_mb"]
        out.append(("web worker resident memory (gunicorn, reads)", f"max {max(rss)} MB of {rss}", "< 200 MB",
                    max(rss) < 200, f"bench.memories_api; {m['at']}"))

    r = load(directory, "retrieval_api.json")
    if r:
        one, d = r["api"]["serial"], r["dataset"]
        where = (f"target x{d['target_memories']} among {d['patients']:,} patients, {one['ok']} searches; {r['at']}; "
                 f"load {r['machine']['load_average_1m_at_start']}")
        full = d["patients"] >= 10_000 and d["target_memories"] >= 200
        out.append(("search: p50 on one connection", f"{one['p50_ms']} ms (p99 {one['p99_ms']})", "<= 20 ms",
                    (one["p50_ms"] is not None and one["p50_ms"] <= 20 and not one["failed"]) if full else None,
                    where))
    else:
        missing("search: p50 on one connection", "<= 20 ms", "retrieval_api")

    w = load(directory, "workflows_api.json")
    if w:
        c, a = w["api"]["checkpoints"], w["api"]
        where = f"{a['concurrency']} conn, {c['ok']} checkpoints, gunicorn {a['gunicorn']}; {w['at']}"
        at8 = a["concurrency"] == 8 and c["ok"] + c["failed"] >= 1000  # a quick run's 300 are a smoke test
        out.append(("checkpoints/s at 8 connections", f"{c['per_s']}/s", ">= 500/s",
                    (c["per_s"] >= 500 and not c["failed"]) if at8 else None, where))
        out.append(("checkpoint p99 at 8 connections", f"{c['p99_ms']} ms (p50 {c['p50_ms']})", "<= 50 ms",
                    (c["p99_ms"] is not None and c["p99_ms"] <= 50) if at8 else None, where))
    else:
        missing("checkpoints/s and p99 at 8 connections", ">= 500/s, <= 50 ms", "workflows_api")

    s = load(directory, "scale.json")
    if s:
        small, large = s["sizes"][str(s["small"])], s["sizes"][str(s["large"])]
        where = (f"{s['small']:,} vs {s['large']:,} patients x {s['load']['per_patient']}, {s['load']['rounds']} "
                 f"round(s) of {s['load']['requests']} req at {s['load']['concurrency']} conn; {s['at']}")
        full = s["large"] >= 100_000 and s["small"] == 10_000
        ratio = s["p99_ratio"]
        out.append((f"list p99 at {s['large']:,} / at {s['small']:,} patients",
                    f"x{ratio} ({small['api_p99_ms']} -> {large['api_p99_ms']} ms)", f"<= {s['target_ratio']}",
                    (ratio is not None and ratio <= s["target_ratio"]) if full else None, where))
        search_ratio = s.get("search_p50_ratio")
        if search_ratio is not None:
            out.append((f"search p50 at {s['large']:,} / at {s['small']:,} patients",
                        f"x{search_ratio} ({small['search_p50_ms']} -> {large['search_p50_ms']} ms)",
                        f"<= {s['target_ratio']}", (search_ratio <= s["target_ratio"]) if full else None, where))
        for growth in s.get("audit_growth", []):
            worst = max(growth["timings"].items(), key=lambda item: item[1]["p50_ms"])
            out.append((f"audit reads at {growth['rows']:,} audit rows", f"slowest p50 {worst[1]['p50_ms']} ms "
                        f"({worst[0]})", "flat", None, f"{growth['partitions']} partitions; {s['at']}"))
        names = sorted({n for size in (small, large) for n in size["plans"]})
        bad = [f"{n}@{k}" for k, size in (("small", small), ("large", large)) for n, p in size["plans"].items()
               if not p["ok"]]
        out.append(("plans as the runtime role: index scans", f"{len(names)} queries x 2 sizes"
                    + (f"; not: {', '.join(bad)}" if bad else ""), "all", s["plans_ok"], where))
    else:
        missing("cost growth 100k/10k and plans", "<= 1.5, index scans", "scale")
    return out


def render(table: list[tuple[str, str, str, bool | None, str]]) -> str:
    widths = [max(len(str(row[i])) for row in table) for i in range(3)]
    widths = [max(w, len(h)) for w, h in zip(widths, ("goal", "figure", "target"), strict=True)]
    head = f"{'goal':<{widths[0]}}  {'figure':<{widths[1]}}  {'target':<{widths[2]}}  {'result':<6}  measured at"
    lines = ["=== fast-path goals " + "=" * (len(head) - 20), head, "-" * len(head)]
    for goal, figure, target, ok, where in table:
        lines.append(f"{goal:<{widths[0]}}  {figure:<{widths[1]}}  {target:<{widths[2]}}  {verdict(ok):<6}  {where}")
    lines.append("-" * len(head))
    lines.append("PASS/FAIL only for runs at the issue's sizes; '-' means informational, not run, or a quick run.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.summary", description=__doc__.split("\n")[0])
    p.add_argument("--dir", type=Path, default=RESULTS_DIR, help="where the benchmarks wrote their JSON")
    p.add_argument("--strict", action="store_true", help="exit 1 unless every goal with a verdict passed")
    args = p.parse_args(argv)
    table = rows(args.dir)
    print(render(table), flush=True)
    if args.strict and any(ok is False for *_, ok, _ in table):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
