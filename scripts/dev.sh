#!/usr/bin/env bash
# `make dev`: the dashboard with demo data on embedded defaults, in one command.
#
# 1. SecantusDB (MongoDB protocol) starts; Neo4j's launcher builds meanwhile (first run,
#    when a JDK 17+ and Maven are present).
# 2. One process prepares the tables, the roles and admin login, the demo memory and the
#    facts demo (the demo's vectors are precomputed: qqweb/lib/demo_vectors.py).
# 3. Django starts; "qqweb is running at ..." is printed once it answers. Then Neo4j
#    starts, and a Celery worker and beat (broker: SQLite, no server).
# 4. Once Neo4j answers, the demo graph is loaded; until then the pages say the graph is
#    starting (qqweb/dev_startup.py reads what this script writes in var/dev-starting.json).
#
# Ports: QQ_DEV_MONGO_PORT (27017), QQ_DEV_NEO4J_PORT (7687), QQ_DEV_PORT (8000); a store
# already listening on its port is used as it is. Data: QQ_VAR_DIR (var/), kept between
# runs. Logs: var/log/. Each line says the seconds since the start. Ctrl-C stops
# everything started here (the web server and jobs first, then the stores) and exits 0.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mongo_port="${QQ_DEV_MONGO_PORT:-27017}"
neo4j_port="${QQ_DEV_NEO4J_PORT:-7687}"
web_port="${QQ_DEV_PORT:-8000}"
export QQ_VAR_DIR="${QQ_VAR_DIR:-$root/var}"
var="$QQ_VAR_DIR"
mkdir -p "$var/log" "$var/memory"
PY="$root/.venv/bin/python"
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:$mongo_port}"
export NEO4J_URI="${NEO4J_URI:-bolt://127.0.0.1:$neo4j_port}"
# The second agent's facts (seed 004) live in the same SecantusDB, in database `lily` (in
# the URI's path, as that agent's MONGO_URI has it), collection `memories`.
export QQ_FACTS_MONGO_URI="${QQ_FACTS_MONGO_URI:-mongodb://127.0.0.1:$mongo_port/lily}"
export PYTHONUNBUFFERED=1  # lines through pipes as they come
export DJANGO_COLORS=nocolor  # plain text on a terminal too (Django colours only there)
starting_file="$var/dev-starting.json"
web_up_file="$var/dev-web-up"  # Neo4j starts once it exists
rm -f "$web_up_file"

now() { printf '%(%s)T' -1; }
t0="$(now)"
say() { printf '[%3ds] %s\n' "$(($(now) - t0))" "$*"; }
prefixed() { while IFS= read -r line; do say "$line"; done; }

# Everything started here runs in its own process group (set -m around `&`): Ctrl-C in a
# terminal reaches this script only, and cleanup stops the groups one by one.
groups=()
spawn() {  # spawn NAME COMMAND...: in the background, in its own process group
  local name="$1"
  shift
  set -m
  "$@" &
  set +m
  groups+=("$!:$name")
}

stop_groups() {  # SECONDS GROUP...: TERM each process group, wait up to SECONDS, then KILL
  local seconds=$1 group left
  shift
  for group in "$@"; do kill -TERM -- "-$group" 2>/dev/null || true; done
  for _ in $(seq 1 $((seconds * 2))); do
    left=0
    for group in "$@"; do kill -0 -- "-$group" 2>/dev/null && left=1; done
    ((left)) || return 0
    sleep 0.5 || true  # a second Ctrl-C ends the sleep, not the stopping
  done
  for group in "$@"; do kill -KILL -- "-$group" 2>/dev/null || true; done
}

cleanup() {
  trap - EXIT TERM HUP
  trap 'echo; say "Still stopping: the stores are saving their data…"' INT
  rm -f "$starting_file" "$web_up_file"
  ((${#groups[@]})) || return 0
  echo
  say "Stopping qqweb dev services…"
  # Django and Celery first, so they let go of their connections before the stores stop
  # (15 s, then KILL: a job stopped mid-way leaves nothing half-done, every step of it is
  # crash-safe, and the reaper closes its run); then the stores (60 s: Neo4j checkpoints
  # before it exits, 10-20 s).
  local entry apps=() stores=()
  for entry in "${groups[@]}"; do
    case "${entry#*:}" in
      SecantusDB | Neo4j) stores+=("${entry%%:*}") ;;
      *) apps+=("${entry%%:*}") ;;
    esac
  done
  ((${#apps[@]} == 0)) || stop_groups 15 "${apps[@]}"
  ((${#stores[@]} == 0)) || stop_groups 60 "${stores[@]}"
  say "Stopped."
}
trap 'cleanup; exit 0' INT TERM HUP
trap cleanup EXIT

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

answers_200() {  # port path: the server answers the page with HTTP 200
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
    IFS= read -r -t 60 status <&3 || exit 1
    # Read the rest too (HTTP/1.0: the server closes when it is sent): a probe that hung up
    # after the status line made the server's write fail, and the request went unlogged.
    while IFS= read -r -t 10 _ <&3; do :; done
    [[ $status == HTTP/1.[01]\ 200* ]]
  ) 2>/dev/null
}

alive() { kill -0 -- "-$1" 2>/dev/null; }  # a process group still has a process

failed() {  # name [log]: it did not start
  if [[ -n ${2-} ]]; then
    say "$1 did not start; the end of $2:"
    tail -20 "$2" >&2 || true
  else
    say "$1 did not start (see above)."
  fi
  exit 1
}

graph_starting() {  # what the pages should say the graph is doing ("": nothing more)
  if [[ -z $1 ]]; then
    rm -f "$starting_file"
  else
    printf '{"pid": %d, "graph": "%s", "since": %d}\n' "$$" "$1" "$(now)" >"$starting_file.tmp"
    mv "$starting_file.tmp" "$starting_file"
  fi
}

while_running() {  # PID WHAT: say "WHAT (N s)…" every 15 s while PID runs; its status
  local began next=15
  began="$(now)"
  while kill -0 "$1" 2>/dev/null; do
    sleep 1
    if (($(now) - began >= next)); then
      say "$2 ($(($(now) - began)) s)…"
      next=$((next + 15))
    fi
  done
  wait "$1"
}

graph_demo() {  # the demo graph, into an empty graph only; waits for Neo4j to answer
  "$PY" manage.py seed_demo --only graph --wait-for-graph 600 2>&1 | prefixed \
    || say "Demo graph: not loaded (see above)"
}

# In the background: build (first run), wait for the web server, start, load the demo
# graph. The JVM's start takes 10 s of CPU on many threads: started beside Django on a
# busy machine it took the first page from 23 s to 57 s (load 10-12, 2 cores), so it
# starts once the web answers. Maven builds meanwhile at a lower priority (nice 10).
neo4j_up() {
  local log="$var/log/neo4j.log" began waited java demo next=15
  if scripts/neo4j.sh needs-build; then
    graph_starting "building its launcher with Maven (first run only)"
    say "Neo4j: building its launcher with Maven (first run only, about 30 s; log: $var/log/neo4j-build.log)…"
    nice -n 10 scripts/neo4j.sh build >"$var/log/neo4j-build.log" 2>&1 &
    if ! while_running $! "Neo4j: still building its launcher"; then
      graph_starting ""
      say "Neo4j: the build failed, so the graph is off; the end of $var/log/neo4j-build.log:"
      tail -20 "$var/log/neo4j-build.log" >&2
      return 1
    fi
  fi
  graph_starting "waiting for the web server to start first"
  until [[ -f $web_up_file ]]; do sleep 0.5; done
  graph_starting "the database is starting"
  began="$(now)"
  say "Neo4j: starting on 127.0.0.1:$neo4j_port (data in $var/neo4j; log: $log)…"
  scripts/neo4j.sh run "$var/neo4j" "$neo4j_port" >"$log" 2>&1 &
  java=$!
  graph_demo &  # Django's start overlaps the JVM's
  demo=$!
  until grep -q QQWEB-NEO4J-READY "$log" 2>/dev/null; do
    if ! kill -0 "$java" 2>/dev/null; then
      kill $(pgrep -P "$demo") "$demo" 2>/dev/null || true
      graph_starting ""
      say "Neo4j: exited while starting, so the graph is off; the end of $log:"
      tail -20 "$log" >&2
      return 1
    fi
    sleep 1
    waited=$(($(now) - began))
    if ((waited >= next)); then
      say "Neo4j: still starting ($waited s)…"
      next=$((next + 15))
    fi
  done
  say "Neo4j: ready on bolt://127.0.0.1:$neo4j_port after $(($(now) - began)) s"
  graph_starting "loading the demo graph"
  wait "$demo" || true
  graph_starting ""
  wait "$java"
}

# --- the stores ----------------------------------------------------------------------------

say "qqweb dev: data in $var, logs in $var/log"
if listening "$mongo_port"; then
  say "MongoDB protocol: using the server already on 127.0.0.1:$mongo_port"
else
  say "MongoDB protocol: starting SecantusDB on 127.0.0.1:$mongo_port (data in $var/secantus)…"
  spawn SecantusDB .venv/bin/secantusd-py --host 127.0.0.1 --port "$mongo_port" \
    --storage-path "$var/secantus" >"$var/log/secantus.log" 2>&1
  secantus="${groups[-1]%%:*}"
  until listening "$mongo_port"; do
    alive "$secantus" || failed SecantusDB "$var/log/secantus.log"
    sleep 0.2
  done
  say "MongoDB protocol: ready"
fi

if listening "$neo4j_port"; then
  say "Neo4j: using the server already on 127.0.0.1:$neo4j_port"
  spawn graph-demo graph_demo  # into an empty graph only
elif command -v java >/dev/null && command -v mvn >/dev/null; then
  spawn Neo4j neo4j_up
else
  say "Neo4j: no JDK 17+ / Maven found, so the graph is off. The Graph page says how to enable it."
fi

# --- tables, admin login, demo memory (one Django process) --------------------------------

say "Preparing: tables, roles and admin login, demo memory, facts demo…"
prepare() { "$PY" manage.py dev_setup 2>&1 | prefixed; }
spawn setup prepare
wait "${groups[-1]%%:*}" || { say "Preparing failed (see above)."; exit 1; }
unset 'groups[-1]'

# --- the web server, then the jobs' worker and beat -----------------------------------------

say "Web: starting Django's development server on 127.0.0.1:$web_port…"
spawn web env DEBUG="${DEBUG:-1}" "$PY" manage.py runserver "127.0.0.1:$web_port"
web="${groups[-1]%%:*}"
began="$(now)" next=15
until answers_200 "$web_port" /accounts/login/; do
  alive "$web" || failed "The web server"
  sleep 0.5
  if (($(now) - began >= next)); then
    say "Web: still starting ($(($(now) - began)) s; /accounts/login/ has not answered 200 yet)…"
    next=$((next + 15))
  fi
done
touch "$web_up_file"
cat <<MSG

  qqweb is running at http://127.0.0.1:$web_port  ($(($(now) - t0)) s)
  Sign in with the admin login above (also in $var/admin-credentials.txt).
  Logs: $var/log/. Ctrl-C stops everything; data stays in $var/.

MSG
if [[ -f "$starting_file" ]]; then
  say "The graph pages say the graph is starting until Neo4j answers and its demo is in."
fi

say "Jobs: starting a Celery worker and beat (logs: $var/log/celery-*.log)"
spawn worker .venv/bin/celery -A qqweb worker --pool=threads --concurrency=2 --loglevel=INFO \
  >"$var/log/celery-worker.log" 2>&1
spawn beat .venv/bin/celery -A qqweb beat --loglevel=INFO >"$var/log/celery-beat.log" 2>&1

wait "$web"
