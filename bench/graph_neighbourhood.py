"""Neighbourhood of a hub: our capped queries against fetching the whole neighbourhood.

    .venv/bin/python bench/graph_neighbourhood.py                       # test Neo4j of make test
    .venv/bin/python bench/graph_neighbourhood.py --uri bolt://127.0.0.1:7687

It plants (with the optional name indexes, dropped again at the end) a ``Topic`` hub
with ``--neighbours`` (5,000) ``Concept`` neighbours, each linked to two more concepts
(the agent's shape: name, mention_count), in a database it empties first, so point it at
a throwaway Neo4j. It then times, ``--runs`` times each:

- ours: the queries ``graph_app.selectors.neighbourhood`` makes for depth 2, limit 60
  (most mentioned neighbours, their neighbours up to the cap, degrees, edges among them,
  the count of all neighbours);
- naive: what a view without a cap does, every node and relationship within two hops
  (``MATCH p=(n)-[*1..2]-(m) RETURN p``), then cut to 60 in Python.

Target (issue #4): the hub's view "still renders quickly within its cap": ours should stay
in the tens of milliseconds and the browser gets at most 60 nodes. Results go to
bench/results/graph_neighbourhood.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from neo4j import GraphDatabase

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graph_app.knowledge import GraphStore


def default_uri() -> str:
    port_file = ROOT / "var" / "neo4j-test" / "launcher.port"
    if not port_file.exists():
        sys.exit("no --uri and no test Neo4j running: run `QQ_KEEP_NEO4J=1 make test` first")
    return f"bolt://127.0.0.1:{port_file.read_text().strip()}"


def plant(store: GraphStore, n: int) -> None:
    store.delete_everything()
    store.merge_entities("Topic", [{"name": "hub", "props": {"mention_count": 1}}])
    concepts = [{"name": f"c{i:05d}", "props": {"mention_count": i % 97}} for i in range(n * 3)]
    for start in range(0, len(concepts), 5000):
        store.merge_entities("Concept", concepts[start : start + 5000])
    store.create_index("Concept", "name")  # what `manage.py graph_indexes --create` makes
    store.create_index("Topic", "name")
    store.await_indexes(300)
    store.merge_relationships(
        "Topic",
        "MENTIONS",
        "Concept",
        [{"a": "hub", "b": f"c{i:05d}", "props": {}} for i in range(n)],
    )
    rows = [
        {"a": f"c{i:05d}", "b": f"c{n + 2 * i + k:05d}", "props": {}}
        for i in range(n)
        for k in (0, 1)
    ]
    for start in range(0, len(rows), 5000):
        store.merge_relationships("Concept", "RELATES_TO", "Concept", rows[start : start + 5000])


def ours(store: GraphStore, limit: int) -> int:
    center = store.get_entities("Topic", "hub")[0].id
    first = store.neighbours([center], [center], limit=limit - 1)
    nodes = [center, *[r.id for r in first]]
    second = store.neighbours([r.id for r in first], nodes, limit=limit - len(nodes))
    nodes += [r.id for r in second]
    store.degrees(nodes)
    store.edges_among(nodes, limit=limit * 8)
    store.count_neighbours([center], [center])
    return len(nodes)


# The baseline the benchmark measures ours against: a query qqweb never makes, so it is
# here, on the benchmark's own driver, not in the graph store.
NAIVE = "MATCH p = (n:Topic {name: 'hub'})-[*1..2]-(m) RETURN p"


def naive(driver, limit: int) -> int:  # type: ignore[no-untyped-def]
    records, _, _ = driver.execute_query(NAIVE)
    seen: dict[str, int] = {}
    for record in records:
        for node in record["p"].nodes:
            seen.setdefault(node.element_id, node.get("mention_count") or 0)
    return len(sorted(seen, key=lambda k: -seen[k])[:limit])


def timed(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uri", default="")
    parser.add_argument("--neighbours", type=int, default=5000)
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    driver = GraphDatabase.driver(args.uri or default_uri(), auth=None)
    store = GraphStore(driver)
    started = time.perf_counter()
    plant(store, args.neighbours)
    print(
        f"planted a hub with {args.neighbours} neighbours in {time.perf_counter() - started:.1f} s"
    )
    ours(store, args.limit), naive(driver, args.limit)  # warm the caches
    ours_ms = timed(lambda: ours(store, args.limit), args.runs)
    naive_ms = timed(lambda: naive(driver, args.limit), args.runs)
    result = {
        "neighbours": args.neighbours,
        "limit": args.limit,
        "ours_ms_p50": round(ours_ms, 1),
        "naive_ms_p50": round(naive_ms, 1),
        "ratio": round(naive_ms / ours_ms, 1),
    }
    print(json.dumps(result, indent=2))
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "graph_neighbourhood.json").write_text(json.dumps(result, indent=2))
    store.delete_everything()
    for name in ("qqweb_Concept_name", "qqweb_Topic_name"):  # clean-up of a throwaway Neo4j
        driver.execute_query(f"DROP INDEX {name} IF EXISTS")
    driver.close()


if __name__ == "__main__":
    main()
