#!/usr/bin/env bash
# Neo4j Community 5.26 (from Maven Central) with Bolt on 127.0.0.1, for dev and tests.
#
#   scripts/neo4j.sh build              fetch the artifacts (~/.m2) and compile the launcher
#   scripts/neo4j.sh needs-build        exit 0 when `build` has something to do
#   scripts/neo4j.sh run [HOME] [PORT]  run in the foreground (Ctrl-C stops it cleanly)
#   scripts/neo4j.sh start [HOME] [PORT]  run in the background, wait until Bolt answers
#   scripts/neo4j.sh stop [HOME]        stop a background one
#
# Needs a JDK 17+ and Maven. HOME defaults to var/neo4j, PORT to 7687.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
project="$here/neo4j"
cmd="${1:-run}"
home="${2:-$root/var/neo4j}"
port="${3:-7687}"

need_tools() {
  command -v java >/dev/null || { echo "neo4j.sh: no 'java' on PATH: install a JDK 17+" >&2; exit 3; }
  command -v mvn >/dev/null || { echo "neo4j.sh: no 'mvn' on PATH: install Maven" >&2; exit 3; }
}

needs_build() {
  local jar="$project/target/neo4j-launcher-1.0.jar"
  [[ ! -f "$jar" || "$project/pom.xml" -nt "$jar" || \
     "$project/src/main/java/qqweb/Neo4jLauncher.java" -nt "$jar" ]]
}

build() {
  need_tools
  if needs_build; then
    echo "Building the Neo4j launcher (first time: downloads Neo4j from Maven Central)…" >&2
    # Quiet and colourless: batch mode, no download progress, no colour. Debian's Maven
    # 3.8 still writes colour resets (ESC[0m) on exit whatever the flags, so escape
    # sequences are taken out of what it prints (only errors, with -q).
    local status=0
    mvn -q -B --no-transfer-progress -Dstyle.color=never -f "$project/pom.xml" package \
      -DskipTests 2>&1 | sed -u $'s/\x1b\\[[0-9;]*[A-Za-z]//g' >&2 || status=$?
    return "$status"
  fi
}

classpath() { echo "$project/target/classes:$project/target/lib/*"; }

case "$cmd" in
  build) build ;;
  needs-build) needs_build ;;
  run)
    build
    mkdir -p "$home"
    exec java -Xms256m -Xmx1g -cp "$(classpath)" qqweb.Neo4jLauncher --home "$home" --port "$port"
    ;;
  start)
    build
    mkdir -p "$home"
    log="$home/launcher.log"
    if [[ -f "$home/launcher.pid" ]] && kill -0 "$(cat "$home/launcher.pid")" 2>/dev/null; then
      echo "Neo4j already running (pid $(cat "$home/launcher.pid"))"; exit 0
    fi
    nohup java -Xms256m -Xmx1g -cp "$(classpath)" qqweb.Neo4jLauncher --home "$home" --port "$port" \
      >"$log" 2>&1 &
    echo $! >"$home/launcher.pid"
    for _ in $(seq 1 180); do
      if grep -q QQWEB-NEO4J-READY "$log"; then grep QQWEB-NEO4J-READY "$log"; exit 0; fi
      if ! kill -0 "$(cat "$home/launcher.pid")" 2>/dev/null; then
        echo "Neo4j exited while starting; see $log" >&2; tail -20 "$log" >&2; exit 1
      fi
      sleep 1
    done
    echo "Neo4j did not answer within 180 s; see $log" >&2; exit 1
    ;;
  stop)
    if [[ -f "$home/launcher.pid" ]]; then
      pid="$(cat "$home/launcher.pid")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
      rm -f "$home/launcher.pid"
    fi
    ;;
  *) echo "usage: $0 build|needs-build|run|start|stop [HOME] [PORT]" >&2; exit 2 ;;
esac
