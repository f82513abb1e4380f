#!/usr/bin/env bash
# Screenshots of every screen with the demo data (the graph's neighbourhood view included:
# var/screenshots/graph-neighbourhood-1280.png), in Debian's Chromium (headless), at
# 1280 px and 390 px wide, into var/screenshots/. Needs `make dev` running in another
# terminal (or any server: QQWEB_URL=http://127.0.0.1:PORT) and `apt-get install chromium`.
# The Maintenance run page shows the archival pass's newest dry run and its plan (one is
# started, changing nothing, when there is none). Signs in as the admin from
# var/admin-credentials.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${QQWEB_URL:-http://127.0.0.1:8000}"
out="$root/var/screenshots"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
command -v chromium >/dev/null || { echo "install Debian's chromium first" >&2; exit 3; }
password="$(sed -n 's/^password: //p' "$root/var/admin-credentials.txt")"
jar="$work/cookies"
curl -sf -c "$jar" -b "$jar" "$base/accounts/login/" -o /dev/null
csrf="$(awk '/csrftoken/ {print $7}' "$jar")"
curl -sf -c "$jar" -b "$jar" -H "Referer: $base/accounts/login/" \
  --data-urlencode "csrfmiddlewaretoken=$csrf" --data-urlencode "username=admin" \
  --data-urlencode "password=$password" "$base/accounts/login/" -o /dev/null
first_note="$(curl -sf -b "$jar" "$base/api/notes?limit=1&sort=importance" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["note_id"])')"
# The archival pass's newest dry run, for its plan table; without one, a preview is started
# from the Maintenance page (a dry run: it changes nothing) and waited for.
runs() { curl -sf -b "$jar" "$base/api/maintenance/runs?kind=archival&limit=20"; }
plan_run="$(runs | python3 -c 'import json,sys
print(next((r["id"] for r in json.load(sys.stdin) if r["dry_run"] and r["plan_size"] is not None), ""))')"
if [[ -z "$plan_run" ]]; then
  csrf="$(awk '/csrftoken/ {print $7}' "$jar")"
  curl -sf -c "$jar" -b "$jar" -H "Referer: $base/maintenance/" \
    --data-urlencode "csrfmiddlewaretoken=$csrf" --data-urlencode "dry_run=on" \
    "$base/maintenance/archival/" -o /dev/null
  for _ in $(seq 1 60); do
    plan_run="$(runs | python3 -c 'import json,sys
print(next((r["id"] for r in json.load(sys.stdin) if r["dry_run"] and r["status"] == "done"), ""))')"
    [[ -n "$plan_run" ]] && break
    sleep 1
  done
fi
# The pages are rendered from files, where their own requests carry no session: the
# header's store dots are fetched once here, so no page shows them still "checking".
curl -sf -b "$jar" "$base/health/status" -o /dev/null
pages=(
  "overview|/"
  "notes|/notes/?sort=importance"
  "note|/notes/$first_note/"
  "search|/search/?q=which+database+does+Lumen+use"
  "retrieval|/retrieval/?message=Does+Lumen+use+MongoDB"
  "review|/review/"
  "archive|/archive/"
  "core|/core/"
  "maintenance|/maintenance/"
  "maintenance-run|/maintenance/runs/${plan_run:-1}/"
  "audit|/audit/"
  "graph|/graph/"
  "graph-entities|/graph/entities/"
  "graph-entity|/graph/entities/Project/Lumen/"
  "graph-neighbourhood|/graph/entities/Project/Lumen/neighbourhood/?depth=2&limit=60"
  "graph-search|/graph/search/?q=where+vectors+are+stored"
  "graph-duplicates|/graph/duplicates/"
  "graph-orphans|/graph/orphans/"
  "graph-merge|/graph/merge/?source_label=Software&source_name=Lumen&target_label=Project&target_name=Lumen"
  "graph-delete|/graph/entities/Software/Lumen/delete/"
  "health|/health/"
  "backup|/backup/"
  "facts|/facts/"
  "facts-next-start|/facts/next-start/"
)
for entry in "${pages[@]}"; do
  name="${entry%%|*}"; path="${entry#*|}"
  curl -sf -b "$jar" "$base$path" | sed "s|<head>|<head><base href=\"$base/\">|" >"$work/$name.html"
  for width in 1280 390; do
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
      --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
      --user-data-dir="$work/chromium" --window-size="$width,1600" --virtual-time-budget=5000 \
      --screenshot="$out/$name-$width.png" "file://$work/$name.html" 2>/dev/null
  done
  echo "$out/$name-{1280,390}.png"
done
