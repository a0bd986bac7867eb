# Anamnesis: `make run` starts the service with demo data, `make test` runs the whole suite.
# Needs only Python 3.11 and make: the embedded PostgreSQL 16 + pgvector comes from PyPI (pgserver).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint typecheck check bench migrate clean worker browser agent pgbouncer

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

test: install browser pgbouncer
	$(BIN)/python -m pytest

# The example booking agent over MCP against `make run` (running in another terminal): a fake scheduling system on
# 127.0.0.1:8091 answers the slot search, the demo agent's token comes from the development identity provider.
agent: install
	@$(BIN)/python -m tests.fakes.scheduling --port 8091 >/dev/null 2>&1 & pid=$$!; sleep 1; \
	ANAMNESIS_TOKEN=$$($(BIN)/python manage.py demo_agent_token) $(BIN)/python examples/booking_agent.py; rc=$$?; \
	kill $$pid 2>/dev/null; exit $$rc

worker: migrate
	$(BIN)/python manage.py run_worker

lint: install
	$(BIN)/ruff check .

# mypy with the Django and DRF stubs over core and every app's services and selectors (pyproject: [tool.mypy])
typecheck: install
	$(BIN)/mypy

# What CI runs before the tests: lint, types, and the apps' import layering (core knows no domain, no cycles)
check: lint typecheck

bench: migrate
	$(BIN)/python -m bench.memories_api
	$(BIN)/python -m bench.retrieval_api
	$(BIN)/python -m bench.conversations_turns
	$(BIN)/python -m bench.workflows_api
	$(BIN)/python -m bench.mcp_tools

clean:
	rm -rf $(VENV) .pgdata staticfiles .pytest_cache .hypothesis test-artifacts
