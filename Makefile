# Anamnesis: `make run` starts the service with demo data, `make test` runs the whole suite.
# Needs only Python 3.11 and make: the embedded PostgreSQL 16 + pgvector comes from PyPI (pgserver).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint typecheck check bench bench-quick eval ranker migrate clean worker events browser agent pgbouncer \
	ha ha-test ts ts-typecheck ts-generate agent-ts

$(STAMP): pyproject.toml clients/python/pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "Python 3.11 is required"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: an unpinned resolution would pull a multi-GB CUDA build
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# The Python client library (clients/python): its tests and the example agent run against the live service
	$(BIN)/python -m pip install --quiet ./clients/python
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(BIN)/python manage.py db_bootstrap
	$(BIN)/python manage.py migrate --database owner --verbosity 0

run: migrate
	$(BIN)/python manage.py seed_demo
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	# The development OpenID provider (127.0.0.1:8001, demo accounts) and the service, stopped together.
	$(BIN)/python manage.py run_demo --bind 127.0.0.1:8000 --idp-port 8001

# The browser tests drive Debian's chromium (never `playwright install`, which downloads a browser build).
browser:
	@[ -x /usr/bin/chromium ] || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)

# The scale-out tests start Debian's PgBouncer (transaction pooling) themselves.
pgbouncer:
	@command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer)

# The failover test (tests/test_ha.py) starts Debian's Patroni and etcd itself, on loopback, in a temporary folder.
ha:
	@(command -v patroni >/dev/null && command -v etcd >/dev/null) || (apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patroni etcd-server)

# Two parts: the suite on two workers (pytest-xdist, a file's tests on one worker, each worker with its own database),
# then the tests marked `serial` alone (timing under faults and failover). The slowest tests of each are named at the
# end (the suite must stay within CI's time: about 25 minutes). Both parts run; either failing fails the target.
test: install browser pgbouncer ha ts
	@rc=0; $(BIN)/python -m pytest -n 2 --dist loadfile -m "not serial" --durations=25 || rc=$$?; \
	$(BIN)/python -m pytest -m serial --durations=10 || rc=$$?; exit $$rc

# Only the failover test (about 1.5 minutes; `make test` runs it too): Patroni + etcd with two PostgreSQL 16 nodes in
# synchronous replication, the primary's postmaster SIGKILLed under a write load; prints what it measured.
ha-test: install ha
	$(BIN)/python -m pytest -m ha -s -q tests/test_ha.py

# The example booking agent over MCP against `make run` (running in another terminal): a fake scheduling system on
# 127.0.0.1:8091 answers the slot search, the demo agent's token comes from the development identity provider.
agent: install
	@$(BIN)/python -m tests.fakes.scheduling --port 8091 >/dev/null 2>&1 & pid=$$!; sleep 1; \
	ANAMNESIS_TOKEN=$$($(BIN)/python manage.py demo_agent_token) $(BIN)/python examples/booking_agent.py; rc=$$?; \
	kill $$pid 2>/dev/null; exit $$rc

# The TypeScript client (clients/typescript) and example agent (examples/typescript): Node 20+ and npm, packages
# exactly as their package-lock.json files say (npm ci), reinstalled when a lock file changes.
TS_CLIENT := clients/typescript
TS_EXAMPLE := examples/typescript
TS_PACKAGES := $(TS_CLIENT)/node_modules/.package-lock.json $(TS_EXAMPLE)/node_modules/.package-lock.json

%/node_modules/.package-lock.json: %/package-lock.json %/package.json
	@node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' || \
		(echo "Node 20+ and npm are required for $*" >&2; exit 1)
	cd $* && npm ci --no-audit --no-fund --loglevel=error
	touch $@

ts: $(TS_PACKAGES)

ts-typecheck: ts
	cd $(TS_CLIENT) && npm run --silent typecheck
	cd $(TS_EXAMPLE) && npm run --silent typecheck

# After a change to the API: the OpenAPI document the TypeScript client is typed from, and its generated types
# (tests/test_typescript_client.py fails while they are out of date).
ts-generate: install ts
	$(BIN)/python manage.py spectacular --validate --fail-on-warn --format openapi-json --file $(TS_CLIENT)/openapi.json
	cd $(TS_CLIENT) && npm run --silent generate

# The TypeScript twin of `make agent`: the same conversation through the official MCP TypeScript SDK
# (examples/typescript/booking_agent.ts), against `make run` in another terminal.
agent-ts: install ts
	cd $(TS_EXAMPLE) && npm run --silent build
	@$(BIN)/python -m tests.fakes.scheduling --port 8091 >/dev/null 2>&1 & pid=$$!; sleep 1; \
	ANAMNESIS_TOKEN=$$($(BIN)/python manage.py demo_agent_token) node $(TS_EXAMPLE)/dist/booking_agent.js; rc=$$?; \
	kill $$pid 2>/dev/null; exit $$rc

worker: migrate
	$(BIN)/python manage.py run_worker

# The event subscriptions' delivery worker (webhooks; docs/events.md)
events: migrate
	$(BIN)/python manage.py deliver_events

lint: install
	$(BIN)/ruff check .

# mypy with the Django and DRF stubs over core and every app's services and selectors (pyproject: [tool.mypy])
typecheck: install
	$(BIN)/mypy

# What CI runs before the tests: lint, types (Python and TypeScript), and the apps' import layering (core knows no
# domain, no cycles)
check: lint typecheck ts-typecheck

# Every benchmark at full size, then one table of the fast path's goals (bench/summary.py) from their JSON in
# bench/results/. A benchmark that fails (an error, a lost write, a sequential scan) does not stop the others; the
# target exits non-zero at the end if any did. The list read's ratio to a bare Django read: ../shared/tools/api-ratio.
bench: migrate
	@rc=0; \
	$(BIN)/python -m bench.memories_api || rc=1; \
	$(BIN)/python -m bench.retrieval_api || rc=1; \
	$(BIN)/python -m bench.conversations_turns || rc=1; \
	$(BIN)/python -m bench.workflows_api || rc=1; \
	$(BIN)/python -m bench.mcp_tools || rc=1; \
	$(BIN)/python -m bench.mixed_load || rc=1; \
	$(BIN)/python -m bench.scale || rc=1; \
	$(BIN)/python -m bench.summary; \
	exit $$rc

# The same table from small seeds and short loads (a few minutes), written to bench/results/quick/: it shows the
# harness works and the checks hold (errors, losses, plans), not that a latency goal is met. The 1,000-patient seed
# lives in its own database, so anamnesis_bench keeps the 10,000-patient seed api-ratio reuses.
BENCH_QUICK := bench/results/quick
bench-quick: migrate
	@mkdir -p $(BENCH_QUICK); rc=0; \
	BENCH_MEMORIES_DB=anamnesis_bench_p1000 $(BIN)/python -m bench.memories_api --patients 1000 --requests 400 \
		--warmup 40 \
		--output $(BENCH_QUICK)/memories_api.json || rc=1; \
	$(BIN)/python -m bench.workflows_api --quick --output $(BENCH_QUICK)/workflows_api.json || rc=1; \
	$(BIN)/python -m bench.mixed_load --quick --output $(BENCH_QUICK)/mixed_load.json || rc=1; \
	$(BIN)/python -m bench.scale --quick --output $(BENCH_QUICK)/scale.json || rc=1; \
	$(BIN)/python -m bench.retrieval_api --patients 500 --requests 40 --concurrency 2 --serial 40 --service-runs 30 \
		--singles 20 --batches 2 --main-singles 5 --main-batches 1 --output $(BENCH_QUICK)/retrieval_api.json || rc=1; \
	$(BIN)/python -m bench.summary --dir $(BENCH_QUICK); \
	exit $$rc

# Retrieval on the blind evaluation sets (memory/eval/blind*, each written without sight of the ranking): each split
# loaded into a fresh organisation through the real services and asked through the API's search. The tuning splits
# come first; the held-out splits are printed last, in aggregate only: quote them, never tune on them. A few minutes.
eval: migrate
	$(BIN)/python manage.py evaluate_blind

# Refit the question adapter and search's scoring head on the blind sets' tuning splits (memory/retrieval_adapter.npz,
# memory/retrieval_model.json; about twelve minutes), then compare rankers side by side on the held-out splits (aggregate
# figures only). Run make eval afterwards for the figures.
ranker: migrate
	$(BIN)/python manage.py train_ranker --write --compare

clean:
	rm -rf $(VENV) .pgdata staticfiles .pytest_cache .hypothesis test-artifacts
	rm -rf $(TS_CLIENT)/node_modules $(TS_CLIENT)/dist $(TS_EXAMPLE)/node_modules $(TS_EXAMPLE)/dist
