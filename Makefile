# Anamnesis: `make run` starts the service with demo data, `make test` runs the whole suite.
# Needs only Python 3.11 and make: the embedded PostgreSQL 16 + pgvector comes from PyPI (pgserver).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint bench migrate clean

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "Python 3.11 is required"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: an unpinned resolution would pull a multi-GB CUDA build
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(BIN)/python manage.py db_bootstrap
	$(BIN)/python manage.py migrate --database owner --verbosity 0

run: migrate
	$(BIN)/python manage.py seed_demo
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	$(BIN)/python manage.py serve --bind 127.0.0.1:8000

test: install
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check .

bench: migrate
	$(BIN)/python -m bench.memories_api

clean:
	rm -rf $(VENV) .pgdata staticfiles .pytest_cache .hypothesis
