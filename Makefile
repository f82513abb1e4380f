# qqweb: `make dev` runs the dashboard with demo data; `make test` runs every test
# (Django's tables on SQLite), `make test-postgres` runs them all on PostgreSQL.
SHELL := /bin/bash
UV ?= $(shell command -v uv 2>/dev/null || echo "$(HOME)/.local/bin/uv")
PY := .venv/bin/python

.PHONY: install dev test test-postgres test-torch lint format-templates typecheck bench bench-scale bench-dedup-scale bench-reliability bench-graph bench-judgment bench-judge-train bench-recall bench-search-libs neo4j clean

install: $(PY)
$(PY): pyproject.toml uv.lock
	@command -v uv >/dev/null 2>&1 || python3 -m pip install --user --quiet uv
	$(UV) sync --frozen --extra dev --compile-bytecode
	$(PY) -m compileall -q qqweb memory_app graph_app
	@touch $(PY)

# `set -m`: scripts/dev.sh runs in its own process group, in the terminal's foreground, so
# Ctrl-C reaches it and not make (make would report "Error 130" and exit 130 whatever
# the script did); the script stops what it started and exits 0.
dev: install
	@set -m; scripts/dev.sh; exit $$?

# Two pytest-xdist workers (the machine's 2 cores; most of a test's time is waiting on a
# service); a worker that runs out takes tests from the other's share (worksteal). Each
# worker starts its own services (tests/conftest.py). `make test TEST_WORKERS=0` runs in
# one process.
TEST_WORKERS ?= 2

test: install
	scripts/neo4j.sh build
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal

# The same tests with Django's tables on PostgreSQL, the production database: the test setup
# starts a throwaway cluster of its own (tests/plugins/database.py; needs Debian's
# `postgresql`, which .ci/run installs).
# One folder: QQ_TEST_DATABASE=postgres .venv/bin/pytest tests/qqweb.
test-postgres: install
	scripts/neo4j.sh build
	QQ_TEST_DATABASE=postgres $(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal

# The tests marked torch (pyproject.toml): the numpy encoder against sentence-transformers
# live, and the committed golden vectors against it. They need the `torch` extra (6 GB
# installed, CUDA libraries included; about 3 GB of downloads on a cold uv cache), so they
# get an environment of their own and .venv stays the default, torch-free install that
# `make test` checks. 2 min 4 s here with a warm cache (load 11-13), 1.5 min of it pytest.
TORCH_VENV := .venv-torch
test-torch:
	@command -v uv >/dev/null 2>&1 || python3 -m pip install --user --quiet uv
	UV_PROJECT_ENVIRONMENT=$(TORCH_VENV) $(UV) sync --frozen --extra dev --extra torch
	$(TORCH_VENV)/bin/python -m pytest -m torch

# The docs against the code: scripts/check_docs.py (settings table, links). Import layers and
# contracts: [tool.importlinter] in pyproject.toml. Templates: djhtml
# (indentation only); `make format-templates` rewrites them.
lint: install
	$(PY) scripts/check_docs.py
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy qqweb memory_app graph_app
	.venv/bin/lint-imports
	.venv/bin/djhtml --check --tabwidth 2 templates

format-templates: install
	.venv/bin/djhtml --tabwidth 2 templates

typecheck: install
	.venv/bin/mypy qqweb memory_app graph_app

SECANTUS_MDB_VERSION ?= 0.5.3-beta.196
SECANTUSD_RS := var/cargo/bin/secantusd-rs

bench: install $(SECANTUSD_RS)
	$(PY) bench/search_and_dedup.py
	$(PY) bench/list_paging.py --server-bin $(SECANTUSD_RS)
	$(PY) bench/jobs.py --server-bin $(SECANTUSD_RS)
	$(PY) bench/facts_cleanup.py

# The scale table (issue 14's) in one run (bench/scale.py): the server rows at 100k on
# SecantusDB's Rust server and on the daemon `make dev` runs (bench/server_scale.py; the
# pages' queries from before the read model only on the Rust server: on the daemon each
# takes minutes), search, the Overview and the notes list in-process at 100k and 1M
# (bench/search_overview_scale.py, bench/notes_list_scale.py), the search rows with the real
# all-MiniLM-L6-v2; then the dedup rows (bench/dedup_scale.py: full scans at 10k and 100k
# exact, 1M pruned, 1 vs 2 Celery workers at 100k, incremental against 100k and 1M). Then
# the generated tables of docs/scale-and-benchmarks.md are rewritten from this run's results
# (bench/results/scale.md and dedup_scale.md). About 30 minutes on 2 cores (27 on a quiet
# machine).
bench-scale: install $(SECANTUSD_RS)
	$(PY) bench/scale.py --sizes 100000,1000000 --server-sizes 100000 --before-on rust \
		--dedup-full "" --dedup-incremental "" --dedup-workers ""
	$(MAKE) bench-dedup-scale
	$(PY) bench/scale.py --docs scale,dedup_scale

bench-dedup-scale: install
	OMP_NUM_THREADS=1 $(PY) bench/scale.py --only inprocess --sizes "" --dedup-full 10000,100000,1000000 \
		--dedup-incremental 100000,1000000 --dedup-workers 100000 --out dedup_scale

# Issue 28's benchmarks in one unattended run (bench/reliability.py, its STEPS list; about
# 30 min on 2 cores): the pages over HTTP through gunicorn (3 workers) at 100k notes, the
# Overview and Archive with 2,000 and 50,000 archive lines, the full dedup scan at 100k from
# the index's snapshot and from MongoDB (bench/dedup_job.py), the cold start on the daemon,
# search alone against hnswlib/usearch (the `bench` extra, installed here and removed by the
# next `make install`), the first search after a restart at 100k and 1M; then
# bench/results/reliability.md, every figure beside its load (a missing script is skipped
# and said so), and `bench/reliability.py --docs` puts the table in the docs page.
bench-reliability: install $(SECANTUSD_RS)
	$(UV) sync --frozen --extra dev --extra bench
	OMP_NUM_THREADS=1 $(PY) bench/reliability.py
	$(PY) bench/reliability.py --docs

# The neighbourhood benchmark empties the graph it is given: it gets its own Neo4j.
bench-graph: install
	scripts/neo4j.sh start var/neo4j-bench 7688
	$(PY) bench/graph_neighbourhood.py --uri bolt://127.0.0.1:7688; \
	status=$$?; scripts/neo4j.sh stop var/neo4j-bench; exit $$status

# Search alone against hnswlib/usearch (bench/search_libs.py): the app's vector index beside
# both libraries, one thread each, on 22k real MiniLM sentences (the judgment corpora's
# train + dev splits, embedded once into var/search_libs/) and clustered vectors at 100k and
# 1M. The libraries come from the `bench` extra, which only this target installs (`make
# install` leaves it out again). Writes bench/results/search_libs.{json,md}.
bench-search-libs: install
	$(UV) sync --frozen --extra dev --extra bench
	OMP_NUM_THREADS=1 $(PY) bench/search_libs.py

# The judgment benchmark (issues 24 and 34): public human-labelled sentence pairs (MRPC, STS-B,
# SICK; train and dev splits only), fetched beforehand into JUDGMENT_MIRROR (bench/judgment_data.py
# names the repositories and checks their sha256), through qqweb's embedder, QQ_DEDUP_THRESHOLD,
# memory/differences.py and the pair judge (qqweb/lib/judge). About 6 minutes the first time
# (embeddings, then the judge on 6,716 pairs); both are cached in var/judgment/, so a rerun
# takes seconds. Writes bench/results/judgment.md.
JUDGMENT_MIRROR ?= /work/.mirror
bench-judgment: install
	$(PY) bench/judgment_data.py --mirror $(JUDGMENT_MIRROR)
	OMP_NUM_THREADS=1 $(PY) bench/judgment.py --markdown

# Issue 27's recall benchmark: LoCoMo (snap-research/LoCoMo, CC BY-NC 4.0), fetched beforehand
# into RECALL_MIRROR (bench/recall_data.py checks its sha256; nothing of it is committed), a
# turn a note with all-MiniLM-L6-v2 in an in-process SecantusDB, every question asked of the
# memory tests' notes engine before and after the dedup scan + merges and the archival job.
# RECALL_CONVERSATIONS picks a subset (0-4 dev, 5-9 test). The turns' vectors are cached in
# var/recall/. About 10 minutes on 2 cores. Writes bench/results/recall.{md,json}.
RECALL_MIRROR ?= /work/.mirror
RECALL_CONVERSATIONS ?= 0-9
bench-recall: install
	OMP_NUM_THREADS=1 $(PY) bench/recall.py --mirror $(RECALL_MIRROR) \
		--conversations $(RECALL_CONVERSATIONS)

# The pair judge (qqweb/lib/judge, docs/judge-model.md): its training pairs (bench/judge_data.py:
# STS-B train and pairs generated from its sentences, never MRPC or SICK), then the fine-tune
# of the packaged all-MiniLM-L6-v2 as a cross-encoder (bench/judge_train.py, seeded, progress
# on stderr), which writes qqweb/lib/judge/judge.safetensors and judge.json. Training needs
# torch: it runs in the torch extra's environment (.venv-torch, as `make test-torch`); the
# judge itself runs in numpy. About 25 minutes on 2 cores. Then `make bench-judgment`.
bench-judge-train: install
	$(PY) bench/judgment_data.py --mirror $(JUDGMENT_MIRROR)
	$(PY) bench/judge_data.py --mirror $(JUDGMENT_MIRROR)
	UV_PROJECT_ENVIRONMENT=$(TORCH_VENV) $(UV) sync --frozen --extra dev --extra torch
	$(TORCH_VENV)/bin/python bench/judge_train.py

# SecantusDB's Rust server, for the list benchmark (built once, ~5 min, kept in var/cargo).
# Its crate asks for Rust 1.98; it builds and runs with the 1.95 toolchain here.
$(SECANTUSD_RS):
	cargo install secantus-mdb --version $(SECANTUS_MDB_VERSION) --ignore-rust-version --root var/cargo

neo4j:
	scripts/neo4j.sh run

clean:
	rm -rf .venv $(TORCH_VENV) var scripts/neo4j/target
