"""How the first load's windows of note ids (``memory_app/notes/lib/replica/id_windows.py``)
fall on ids of several shapes, simulated over sorted ids in-process (no server, no
timing): for each shape, the queries the load asks, how many of them cover an empty
range, and the most notes one query's range covers (what SecantusDB's Python daemon
decodes for it, whatever the limit).

    .venv/bin/python bench/id_windows.py              # 100k notes, batch 500
    .venv/bin/python bench/id_windows.py 3000 50
"""

from __future__ import annotations

import bisect
import random
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_app.notes.lib.replica.id_windows import WindowPlanner


def simulate(ids: list[str], batch: int) -> tuple[int, int, int]:
    """(queries, empty ranges, most notes in one range) of a load of ``ids``."""
    ids = sorted(set(ids))
    planner = WindowPlanner(len(ids), batch)
    queries = empty = most = 0
    read: list[str] = []
    for w in planner.windows():
        if w.low is None:
            lo = 0
        elif w.after:
            lo = bisect.bisect_right(ids, w.low)
        else:
            lo = bisect.bisect_left(ids, w.low)
        hi = len(ids) if w.high is None else bisect.bisect_left(ids, w.high)
        matched = max(0, hi - lo)
        queries, empty, most = queries + 1, empty + (matched == 0), max(most, matched)
        rows = ids[lo : lo + min(matched, planner.batch)]
        read += rows
        planner.read(rows)
    assert read == ids, "the windows missed or repeated ids"
    return queries, empty, most


def shapes(n: int) -> dict[str, list[str]]:
    r = random.Random(1)
    quarter = n // 4
    return {
        "note_ + 12 hex (the agent's)": [f"note_{r.getrandbits(48):012x}" for _ in range(n)],
        "bare hex": [f"{r.getrandbits(64):016x}" for _ in range(n)],
        "uuid4": [str(uuid.UUID(int=r.getrandbits(128), version=4)) for _ in range(n)],
        "counter, 6 digits": [f"note_{i:06d}" for i in range(1, n + 1)],
        "counter, 12 digits": [f"note_{i:012d}" for i in range(1, n + 1)],
        "a counter deep in a grid cell": [f"imported-{i:05d}" for i in range(n)],
        "mixed": [f"note_{r.getrandbits(48):012x}" for _ in range(quarter)]
        + [str(uuid.UUID(int=r.getrandbits(128), version=4)) for _ in range(quarter)]
        + [f"note_{i:06d}" for i in range(quarter)]
        + [f"{r.getrandbits(64):016x}" for _ in range(quarter)],
    }


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    print(f"{n:,} notes, batch {batch}")
    print("| ids | queries | empty ranges | most notes in one range |")
    print("|---|---|---|---|")
    for name, ids in shapes(n).items():
        queries, empty, most = simulate(ids, batch)
        print(f"| {name} | {queries:,} | {empty:,} | {most:,} |")


if __name__ == "__main__":
    main()
