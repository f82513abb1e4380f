# qqweb: `make dev` runs the dashboard with demo data; `make test` runs every test.
SHELL := /bin/bash
UV ?= $(shell command -v uv 2>/dev/null || echo "$(HOME)/.local/bin/uv")
PY := .venv/bin/python

.PHONY: install dev test lint typecheck bench neo4j clean

install: $(PY)
$(PY): pyproject.toml uv.lock
	@command -v uv >/dev/null 2>&1 || python3 -m pip install --user --quiet uv
	$(UV) sync --frozen --extra dev
	@touch $(PY)

dev: install
	scripts/dev.sh

test: install
	scripts/neo4j.sh build
	$(PY) -m pytest

lint: install
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy qqweb memory_app graph_app

typecheck: install
	.venv/bin/mypy qqweb memory_app graph_app

bench: install
	$(PY) bench/search_and_dedup.py

neo4j:
	scripts/neo4j.sh run

clean:
	rm -rf .venv var scripts/neo4j/target
