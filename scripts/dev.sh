#!/usr/bin/env bash
# `make dev`: the dashboard with demo data on embedded defaults, in one command.
# Starts SecantusDB (MongoDB protocol) on :27017, Neo4j on :7687 when a JDK and Maven are
# present, a Celery worker and beat (broker: SQLite, no server), and Django on :8000.
# Data lives under var/ and is kept between runs. Ctrl-C stops everything started here.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mkdir -p var/log var/memory
PY=.venv/bin/python
pids=()
# The second agent's facts (seed 004) live in the same SecantusDB, in database `lily` (in
# the URI's path, as that agent's MONGO_URI has it), collection `memories`.
export QQ_FACTS_MONGO_URI="${QQ_FACTS_MONGO_URI:-mongodb://127.0.0.1:27017/lily}"

cleanup() {
  trap - EXIT INT TERM
  echo; echo "Stopping qqweb dev services…"
  # Newest first: Django and Celery let go of their connections before the stores stop.
  # Neo4j checkpoints before it exits (10-20 s); anything still up after 60 s is killed.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid="${pids[i]}"
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  done
  echo "Stopped."
}
trap cleanup EXIT INT TERM

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {  # port, name, log, seconds
  for _ in $(seq 1 "$4"); do listening "$1" && return 0; sleep 1; done
  echo "$2 did not start; see $3" >&2; tail -20 "$3" >&2; exit 1
}

if listening 27017; then
  echo "MongoDB protocol: using the server already on 127.0.0.1:27017"
else
  echo "MongoDB protocol: starting SecantusDB on 127.0.0.1:27017 (data in var/secantus)"
  .venv/bin/secantusd-py --host 127.0.0.1 --port 27017 --storage-path var/secantus \
    >var/log/secantus.log 2>&1 &
  pids+=($!)
  wait_port 27017 SecantusDB var/log/secantus.log 60
fi

if listening 7687; then
  echo "Neo4j: using the server already on 127.0.0.1:7687"
elif command -v java >/dev/null && command -v mvn >/dev/null; then
  echo "Neo4j: starting Neo4j Community 5.26 on 127.0.0.1:7687 (data in var/neo4j)"
  scripts/neo4j.sh build
  scripts/neo4j.sh run var/neo4j 7687 >var/log/neo4j.log 2>&1 &
  pids+=($!)
  wait_port 7687 Neo4j var/log/neo4j.log 180
else
  echo "Neo4j: no JDK 17+ / Maven found, so the graph is off. The Graph page says how to enable it."
fi

$PY manage.py migrate --noinput -v 0
$PY manage.py bootstrap
$PY manage.py ensure_indexes -v 0 >/dev/null
$PY manage.py seed_demo
$PY manage.py seed_facts_demo || echo "Facts demo: skipped (see the message above)"

.venv/bin/celery -A qqweb worker --pool=threads --concurrency=2 --loglevel=INFO \
  >var/log/celery-worker.log 2>&1 &
pids+=($!)
.venv/bin/celery -A qqweb beat --loglevel=INFO >var/log/celery-beat.log 2>&1 &
pids+=($!)

cat <<MSG

  qqweb is running at http://127.0.0.1:8000
  Sign in with the admin login above (also in var/admin-credentials.txt).
  Logs: var/log/. Ctrl-C stops everything; data stays in var/.

MSG
DEBUG="${DEBUG:-1}" $PY manage.py runserver 127.0.0.1:8000 &
pids+=($!)
wait "${pids[-1]}"
