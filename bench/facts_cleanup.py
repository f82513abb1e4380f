"""The facts agent's next-start cleanup plan and the compatibility lint, against the
agent's own pairwise Python loop.

    .venv/bin/python bench/facts_cleanup.py                 # 5k and 20k facts
    .venv/bin/python bench/facts_cleanup.py --sizes 2000 --naive-size 500

Synthetic 384-d unit vectors stored as the agent stores them (lists of Python floats),
random timestamps, 1% planted near-duplicate pairs (cosine about 0.97) and one chain per
1,000 facts (A ~ B ~ C at about 0.97, A ~ C below 0.95).
Ours: ``rules.cleanup_plan`` (the exact W3 plan: float64, timestamp order, greedy, in
1024-row blocks, including turning the stored lists into a matrix) and ``lint.lint``. The
agent's loop (contract 2.5 W3): oldest first, for each unmarked anchor a numpy float64
cosine with every later unmarked fact, one pair at a time; it is timed on ``--naive-size``
facts (where the plan must delete the same ids) and scaled by the number of pairs (it is
quadratic), and says so; the ratios are against that and against the contract's 1.7 us per
pair, for the plan alone and for the plan and the lint together. Results are
printed and written to bench/results/facts_cleanup.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
from bson import ObjectId

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_app.facts.lib.domain import Fact
from memory_app.facts.lib.lint import lint
from memory_app.facts.lib.rules import cleanup_plan

DIM = 384


def make_facts(n: int, seed: int) -> list[Fact]:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, DIM))
    picked = rng.choice(n, size=max(2, n // 50) + 3 * max(1, n // 1000), replace=False)
    twins, chains = picked[: max(2, n // 50)], picked[max(2, n // 50) :]
    half = len(twins) // 2  # 1% of facts in pairs at about 0.97
    vectors[twins[:half]] = vectors[twins[half:]] + rng.normal(scale=0.25, size=(half, DIM))
    for a, b, c in chains.reshape(-1, 3):  # A ~ B and B ~ C at about 0.97, A ~ C below
        vectors[b] = vectors[a] + rng.normal(scale=0.25, size=DIM)
        vectors[c] = vectors[b] + rng.normal(scale=0.25, size=DIM)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    start = datetime(2025, 5, 1)
    seconds = rng.integers(0, 400 * 86400, n)
    return [
        Fact(
            id=ObjectId(),
            content=f"fact {i}",
            content_embedding=[float(x) for x in vectors[i]],
            timestamp=start + timedelta(seconds=int(seconds[i])),
            metadata={},
        )
        for i in range(n)
    ]


def agent_loop(facts: list[Fact]) -> tuple[set[str], int]:
    """The agent's cleanup, as the contract describes it: numpy per pair; the ids it
    deletes and the number of pairs it compared."""
    order = sorted(range(len(facts)), key=lambda i: facts[i].timestamp)
    vectors = [np.array(facts[i].content_embedding, dtype=np.float64) for i in order]
    marked: set[int] = set()
    pairs = 0
    for a in range(len(vectors)):
        if a in marked:
            continue
        va = vectors[a]
        for b in range(a + 1, len(vectors)):
            if b in marked:
                continue
            vb = vectors[b]
            pairs += 1
            score = np.dot(va, vb) / (np.linalg.norm(va) * np.linalg.norm(vb))
            if score >= 0.95:
                marked.add(b)
    return {facts[order[b]].hex_id for b in marked}, pairs


def timed(fn, *args):  # type: ignore[no-untyped-def]
    """The result, the wall time, and the process's CPU time (less sensitive to other
    work on a shared machine; numpy's threads can make it exceed the wall time)."""
    started, cpu = time.perf_counter(), time.process_time()
    result = fn(*args)
    return result, time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000])
    parser.add_argument("--naive-size", type=int, default=1000)
    args = parser.parse_args()

    sample = make_facts(args.naive_size, seed=1)
    (marked, pairs), naive_s, naive_cpu = timed(agent_loop, sample)
    plan = cleanup_plan(sample)
    assert plan.deleted_ids == marked, "the plan must delete what the agent's loop deletes"
    per_pair_us = naive_s / pairs * 1e6
    cpu_per_pair_us = naive_cpu / pairs * 1e6
    print(
        f"agent's loop on {args.naive_size} facts: {naive_s:.2f} s for {pairs} pairs, "
        f"{per_pair_us:.2f} us per pair ({cpu_per_pair_us:.2f} us CPU; the contract measured "
        "about 1.7 us); "
        f"same {len(marked)} deletions as our plan"
    )
    results: dict[str, object] = {
        "naive_sample_size": args.naive_size,
        "naive_us_per_pair": round(per_pair_us, 3),
        "naive_cpu_us_per_pair": round(cpu_per_pair_us, 3),
        "load_average": list(os.getloadavg()),
        "sizes": {},
    }
    for n in args.sizes:
        facts = make_facts(n, seed=n)
        plan, plan_s, plan_cpu = timed(cleanup_plan, facts)
        fresh = make_facts(n, seed=n)  # the lint on documents no pass has looked at yet
        findings, lint_s, lint_cpu = timed(lint, fresh, [{"name": "_id_", "key": {"_id": 1}}])
        naive_pairs = n * (n - 1) / 2  # an upper bound: marked facts are skipped
        naive_scaled_s = naive_pairs * per_pair_us / 1e6
        contract_s = naive_pairs * 1.7 / 1e6  # at the contract's 1.7 us per pair
        row = {
            "facts": n,
            "deletions": len(plan.deletions),
            "plan_s": round(plan_s, 3),
            "lint_s": round(lint_s, 3),
            "plan_cpu_s": round(plan_cpu, 3),
            "lint_cpu_s": round(lint_cpu, 3),
            "lint_findings": len(findings),
            "agent_loop_scaled_s": round(naive_scaled_s, 1),
            "ratio": round(naive_scaled_s / plan_s, 1),
            "agent_loop_at_1_7us_s": round(contract_s, 1),
            "ratio_at_1_7us": round(contract_s / plan_s, 1),
            "plan_and_lint_ratio_at_1_7us": round(contract_s / (plan_s + lint_s), 1),
            "plan_and_lint_cpu_ratio_at_1_7us": round(contract_s / (plan_cpu + lint_cpu), 1),
        }
        results["sizes"][str(n)] = row  # type: ignore[index]
        print(
            f"{n} facts: plan {plan_s:.2f} s (CPU {plan_cpu:.2f} s, {len(plan.deletions)} "
            f"deletions), lint {lint_s:.2f} s (CPU {lint_cpu:.2f} s); the agent's loop, "
            f"scaled from {args.naive_size}: "
            f"about {naive_scaled_s:.0f} s ({row['ratio']}x); at the contract's 1.7 us per "
            f"pair, {contract_s:.0f} s ({row['ratio_at_1_7us']}x; plan and lint together "
            f"{row['plan_and_lint_ratio_at_1_7us']}x; in CPU time "
            f"{row['plan_and_lint_cpu_ratio_at_1_7us']}x)"
        )
    out = ROOT / "bench" / "results" / "facts_cleanup.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
