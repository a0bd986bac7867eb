"""Query embedding latency: what a search pays to turn its question into a vector.

Prints, for the evaluation set's questions (expanded by the lexicon, as search embeds them): the provider's
single-text latency (every question new: what each search paid before the cache), the first call through
``memory.retrieval.scoring.query_vector`` (a miss: the same plus the lexicon expansion) and a repeated question (a
hit in the LRU cache of recent query vectors). No database needed.

    .venv/bin/python -m bench.query_embedding [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench.bootstrap import setup_django

setup_django()  # no database: settings only

from bench.common import log, percentile  # noqa: E402
from memory import evaluation  # noqa: E402
from memory.embeddings import provider  # noqa: E402
from memory.lexicon import lexicon  # noqa: E402
from memory.retrieval import scoring  # noqa: E402


def stats(samples: list[float]) -> dict:
    ordered = sorted(s * 1000 for s in samples)  # milliseconds before the percentile (it rounds)
    return {"n": len(samples), "p50_ms": percentile(ordered, 50), "p95_ms": percentile(ordered, 95),
            "mean_ms": round(statistics.mean(ordered), 3)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    questions = list(dict.fromkeys(q["question"] for q in evaluation.load()["questions"]))
    t0 = time.perf_counter()
    provider().embed(["warm up"])
    log(f"model {provider().name} loaded in {time.perf_counter() - t0:.1f}s; {len(questions)} distinct questions")
    lex = lexicon()
    expanded = [lex.expand(q) for q in questions]
    uncached: list[float] = []
    for _ in range(args.rounds):
        for text in expanded:
            t = time.perf_counter()
            provider().embed([text])
            uncached.append(time.perf_counter() - t)
    scoring._query_vector.cache_clear()
    miss: list[float] = []
    hit: list[float] = []
    for q in questions:
        t = time.perf_counter()
        scoring.query_vector(lex.expand(q))
        miss.append(time.perf_counter() - t)
    for _ in range(args.rounds):
        for q in questions:
            t = time.perf_counter()
            scoring.query_vector(lex.expand(q))
            hit.append(time.perf_counter() - t)
    expansion: list[float] = []
    for q in questions:
        t = time.perf_counter()
        lex.expand(q)
        expansion.append(time.perf_counter() - t)
    for name, samples in (("provider, every question new (before)", uncached),
                          ("query_vector, cache miss", miss),
                          ("query_vector, repeated question (cache hit, expansion included)", hit),
                          ("lexicon expansion alone", expansion)):
        log(f"{name}: {stats(samples)}")


if __name__ == "__main__":
    main()
