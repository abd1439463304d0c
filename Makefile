# provgraph: `make up` runs the stack with a demo; `make test` runs the tests; `make down` stops.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed
MLFLOW_SERVER := .venv-mlflow/bin/mlflow
# The parts of the workspace, each a source root (<part>/src/provgraph/...): the one list,
# pyproject.toml's [tool.provgraph] parts (none under a Python without tomllib: `install` says why).
PARTS := $(shell $(PYTHON) -c 'import tomllib; \
	print(*tomllib.load(open("pyproject.toml", "rb"))["tool"]["provgraph"]["parts"])' 2>/dev/null)
SOURCE_ROOTS := $(addsuffix /src,$(PARTS))
ENV_FILE := .provgraph/env
WITH_ENV := set -a && . ./$(ENV_FILE) && set +a &&

# The web explorer (web/, served by the query service at /ui): rebuilt when its sources change.
UI_BUILT := web/dist/index.html
UI_SOURCES := web/package.json web/package-lock.json web/index.html web/graphiql.html \
	web/vite.config.ts web/tsconfig.json web/codegen.ts web/eslint.config.js web/schema.graphql \
	$(shell find web/src -type f 2>/dev/null)

.PHONY: install system-deps infra-up up down wipe status logs test test-unit lint typecheck schemas bench \
	bench-deps clean ui dbt-venv

install: $(STAMP) system-deps

# kcat (a non-Python Kafka client) proves the contract works from any producer; Debian package.
system-deps:
	@command -v kcat >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get install -y -qq kcat >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null && apt-get install -y -qq kcat >/dev/null)) && echo "installed kcat"; \
	  else echo "kcat is missing: install it (Debian/Ubuntu: sudo apt-get install kcat)"; exit 1; fi; }
	@command -v java >/dev/null || [ -n "$${JAVA_HOME:-}" ] || \
	  { echo "Java 17+ is missing: install it (Debian: apt-get install openjdk-17-jre-headless)"; exit 1; }
	@command -v mvn >/dev/null || [ -d "$${HOME}/.cache/provgraph" ] || \
	  { echo "Maven is missing: install it (Debian: apt-get install maven)"; exit 1; }
	@# Debian's Chromium: the explorer's browser tests drive it through Playwright (no download).
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get install -y -qq chromium >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null)) && echo "installed chromium"; \
	  else echo "Chromium is missing: install it (Debian: sudo apt-get install chromium)"; exit 1; fi; }
	@# Poppler (pdftotext, pdftoppm): the dossier's tests read its PDF back and look at a page.
	@command -v pdftotext >/dev/null && command -v pdftoppm >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get install -y -qq poppler-utils >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null && apt-get install -y -qq poppler-utils >/dev/null)) && echo "installed poppler-utils"; \
	  else echo "Poppler is missing: install it (Debian: sudo apt-get install poppler-utils)"; exit 1; fi; }

$(STAMP): pyproject.toml $(addsuffix /pyproject.toml,$(PARTS))
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "provgraph needs Python >= 3.11 (found $$($(PYTHON) --version))"; exit 1; }
	@test -n "$(PARTS)" || { echo "no parts read from pyproject.toml ([tool.provgraph] parts)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	@# A venv from before the split holds one `provgraph` distribution mapping the whole tree.
	@$(BIN)/pip uninstall -q -y provgraph >/dev/null 2>&1 || true
	$(BIN)/pip install -q $(addprefix -e ,$(PARTS)) '.[dev]'
	touch $@

# The explorer's files in web/dist (index.html, graphiql.html, assets/), exactly the locked
# packages (npm ci); `provgraph services up` serves them at /ui when they exist.
ui: $(UI_BUILT)

$(UI_BUILT): $(UI_SOURCES)
	@command -v node >/dev/null && command -v npm >/dev/null || \
	  { echo "Node.js and npm are missing: install them (Debian: apt-get install nodejs npm)"; exit 1; }
	cd web && npm ci --no-audit --no-fund && npm run build
	touch $@

# ajv (draft 2020-12, ajv-formats) as a JavaScript producer checks events against the JSON
# Schemas: exactly the locked packages of schemas/ajv (npm ci); a test compares its answers
# with Python's jsonschema and the service's (tests/integration/contract).
.PHONY: schemas-js
SCHEMAS_JS := schemas/ajv/node_modules/.package-lock.json
schemas-js: $(SCHEMAS_JS)

$(SCHEMAS_JS): schemas/ajv/package.json schemas/ajv/package-lock.json
	@command -v node >/dev/null && command -v npm >/dev/null || \
	  { echo "Node.js and npm are missing: install them (Debian: apt-get install nodejs npm)"; exit 1; }
	cd schemas/ajv && npm ci --no-audit --no-fund
	touch $@

infra-up: install
	$(BIN)/provgraph infra up

up: infra-up ui
	$(WITH_ENV) $(BIN)/provgraph services up
	$(WITH_ENV) $(BIN)/provgraph demo

down:
	@if [ -x $(BIN)/provgraph ]; then $(BIN)/provgraph services down; $(BIN)/provgraph infra down; \
	  else echo "nothing installed, nothing to stop"; fi

wipe:
	@if [ -x $(BIN)/provgraph ]; then $(BIN)/provgraph services down; $(BIN)/provgraph infra down --wipe; fi

status: install
	$(BIN)/provgraph infra status
	$(BIN)/provgraph services status

logs: install
	$(BIN)/provgraph infra logs

# The explorer's own unit tests (vitest) first, then every Python test (the browser tests of
# tests/e2e/explorer drive Debian's Chromium against the build; tests/e2e/test_bench_smoke.py
# runs every benchmark part at a tiny scale, hence bench-deps).
test: infra-up ui dbt-venv schemas-js bench-deps
	cd web && npm test
	$(WITH_ENV) $(BIN)/pytest $(PYTEST_ARGS)

# dbt-core, dbt-duckdb and dbt-ol (openlineage-dbt) for the test of a real dbt project
# (tests/e2e/test_openlineage_dbt.py), in a venv of their own: dbt pins older packages than
# provgraph's venv holds (protobuf). dbt-core 1.12 builds a parser downloaded from outside
# PyPI at install time, so the 1.11 line.
DBT_VENV := .venv-dbt
DBT_PACKAGES := 'dbt-core>=1.10,<1.12' 'dbt-duckdb>=1.9,<1.12' 'openlineage-dbt>=1.40,<2'
dbt-venv: $(DBT_VENV)/.installed

$(DBT_VENV)/.installed: Makefile
	test -x $(DBT_VENV)/bin/python || $(PYTHON) -m venv $(DBT_VENV)
	$(DBT_VENV)/bin/pip install -q $(DBT_PACKAGES)
	touch $@

test-unit: install
	$(BIN)/pytest -m unit $(PYTEST_ARGS)

# mypy finds each part's modules under its source root: MYPYPATH names them all; the
# benchmarks are checked with them.
typecheck: install
	MYPYPATH=$$(tr ' ' : <<<"$(SOURCE_ROOTS)") $(BIN)/mypy $(SOURCE_ROOTS) benchmarks

lint: install typecheck
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m provgraph.schemas.jsonschema_gen --check
	@# The explorer: its generated GraphQL types up to date, tsc, ESLint (on the locked packages).
	cd web && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund; } && npm run lint

schemas: install
	$(BIN)/python -m provgraph.schemas.jsonschema_gen

# Private Kafka and Neo4j on free ports (the shared ones are not touched); BENCH_ARGS e.g.
# "--scale 100000 --repeat 3" or "--only ingest,queries". Results: benchmarks/results/s<scale>/.
bench: install bench-deps
	PROVGRAPH_BENCH_MLFLOW=$(MLFLOW_SERVER) $(BIN)/python -m benchmarks $(BENCH_ARGS)

# What the benchmarks need beside the workspace: the `bench` extra, and the MLflow tracking
# server in a venv of its own (its server pins a graphql-core older than the query service needs).
bench-deps: $(BENCH_STAMP) $(MLFLOW_SERVER)

$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install -q $(addprefix -e ,$(PARTS)) '.[dev,bench]'
	touch $@

$(MLFLOW_SERVER):
	$(PYTHON) -m venv .venv-mlflow
	.venv-mlflow/bin/pip install -q 'mlflow>=2.14,<4'

clean:
	rm -rf .build .pytest_cache .mypy_cache .ruff_cache
