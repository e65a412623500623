# Everyday commands. `make run` and `make test` bootstrap .venv themselves from a fresh clone.

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

# Stamp files record which requirements the venv was last installed from; make reinstalls only
# when a requirements file is newer than its stamp, so repeat runs skip pip entirely.
RUNTIME_STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint format migrate messages

run: $(RUNTIME_STAMP) migrate
	$(BIN)/daphne -b $(HOST) -p $(PORT) hokm_site.asgi:application

migrate: $(RUNTIME_STAMP)
	$(BIN)/python manage.py migrate --noinput

# Two pytest-xdist workers. tests/conftest.py marks the tests that start servers and the other
# database tests as two xdist groups, but pytest 9.2 ignores them (requirements-dev.txt says why):
# every test is handed out on its own, and each worker has its own database and Redis database.
test: $(DEV_STAMP)
	$(BIN)/pytest -n 2 --dist loadgroup $(PYTEST_ARGS)

# The import contracts (lint-imports) and mypy read their settings from pyproject.toml.
lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

format: $(DEV_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUNTIME_STAMP): requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --disable-pip-version-check -r requirements.txt
	touch $@

# The dev requirements include the runtime ones, so one install satisfies both stamps.
$(DEV_STAMP): requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --disable-pip-version-check -r requirements-dev.txt
	touch $@ $(RUNTIME_STAMP)

# Refresh the Persian catalog from the code, then compile it. Needs GNU gettext; the compiled .mo
# is committed so that running the site does not.
# Every catalogue of the site (LANGUAGES but English), then the compiled .mo files the site reads;
# tests/test_translations.py fails on a message missing, fuzzy or with a broken format.
LANGS := fa ur hi
messages: $(RUNTIME_STAMP)
	$(BIN)/python manage.py makemessages $(addprefix -l ,$(LANGS)) --no-location -i '.venv/*' -i 'staticfiles/*' -i 'tests/*'
	$(BIN)/python manage.py compilemessages $(addprefix -l ,$(LANGS)) -i .venv -i staticfiles

# The history and replay speed benchmark (docs/performance.md): fill the PostgreSQL database of
# bench/ (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/hokm_bench) once, then time.
.PHONY: bench-history
bench-history: $(RUNTIME_STAMP)
	$(BIN)/python -m bench.fill_history
	$(BIN)/python -m bench.history_bench

# The ratings pages' speed benchmark (docs/performance.md): fill a PostgreSQL database of its own
# (BENCH_RATINGS_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/hokm_bench_ratings)
# once, then time the leaderboards, a profile, the lobby and the players' API.
.PHONY: bench-ratings
bench-ratings: $(RUNTIME_STAMP)
	$(BIN)/python -m bench.fill_ratings
	$(BIN)/python -m bench.ratings_bench

# The bots' simulator against the engine, hands per second on one core (docs/performance.md).
.PHONY: bench-bots
bench-bots: $(RUNTIME_STAMP)
	$(BIN)/python -m bench.sim_bench

# The full hidden-cards audit (docs/security.md): 100 whole matches, every byte each seat and a
# spectator receive checked (CI plays 8 of them). About 13 minutes; prints the counts by kind.
.PHONY: audit-hidden-cards
audit-hidden-cards: $(DEV_STAMP)
	HOKM_AUDIT_MATCHES=100 $(BIN)/pytest -s $(PYTEST_ARGS) \
		tests/live/test_hidden_cards_audit.py

# Live play under load against a bare Channels relay, and the channel layers compared
# (docs/performance.md): PostgreSQL BENCH_LOAD_DATABASE_URL (default hokm_bench_load) and Redis
# databases 12 (the site) and 13 (the relay). BENCH_LOAD_ARGS passes options, for example
# BENCH_LOAD_ARGS="--layer both" or "--target baseline --tables 100 --pace 2".
BENCH_LOAD_ARGS ?=
.PHONY: bench-load
bench-load: $(DEV_STAMP)
	nice -n 5 $(BIN)/python -m bench.load.run $(BENCH_LOAD_ARGS)

# Computer players under load (issue 25, docs/performance.md): tables of one scripted person and
# three expert computers against two daphne processes and the worker with its bot pool; the delay
# of the computers' moves beyond their pause and the capacity. PostgreSQL
# BENCH_COMPUTERS_DATABASE_URL (default hokm_bench_computers), Redis database 14.
# BENCH_COMPUTERS_ARGS passes options, for example "--sizes 1,4,8 --duration 60".
BENCH_COMPUTERS_ARGS ?=
.PHONY: bench-computers
bench-computers: $(DEV_STAMP)
	nice -n 5 $(BIN)/python -m bench.load.computers $(BENCH_COMPUTERS_ARGS)
