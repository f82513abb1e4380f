"""The recall benchmark's table (bench/recall.py): each figure with the load average beside
it, one table per way of dating the notes and per split."""

from __future__ import annotations

import json
from typing import Any

from bench import recall_data

POINTS = ("before curation", "after dedup", "after archival", "after both")


def cell(value: float, figure_load: float, *, digits: int = 3) -> str:
    return f"{value:.{digits}f} [load {figure_load:.1f}]"


def table(results: dict[str, dict[str, dict[str, Any]]], split: str) -> list[str]:
    lines = [
        "| point | recall@5 | recall@10 | MRR | notes in MongoDB | archive lines "
        "| questions lost / gained at 10 | evidence merged / archived "
        "| recall@10, window over every note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in POINTS:
        s = results[name][split]
        lines.append(
            f"| {name} | {cell(s['recall_at_5'], s['load'])} "
            f"| {cell(s['recall_at_10'], s['load'])} | {cell(s['mrr'], s['load'])} "
            f"| {s['notes']:,} | {s['archive_lines']:,} "
            f"| {s['lost']} / {s['gained']} "
            f"| {s['evidence_merged']} / {s['evidence_archived']} "
            f"| {cell(s['wide_recall_at_10'], s['load'])} |"
        )
    return lines


def report(
    results: dict[str, dict[str, dict[str, dict[str, Any]]]],
    indices: list[int],
    head: dict[str, Any],
) -> str:
    from django.conf import settings

    out = [
        "# Recall before and after curation (LoCoMo)",
        "",
        f"`make bench-recall` ({head['command']}), {head['when']}: "
        f"{recall_data.SOURCE.repo} `{recall_data.SOURCE.path}` sha256 "
        f"`{recall_data.SOURCE.sha256}` (CC BY-NC 4.0, not committed), conversations "
        f"{', '.join(str(i) for i in indices)}; a turn a note ({head['turns']:,} notes), "
        f"{head['questions']:,} questions of categories 1-4 pinned to their evidence turns "
        f"(category 5, adversarial, left out). all-MiniLM-L6-v2 (the numpy encoder); the "
        f"agent's retrieval: QQ_CITE_THRESHOLD {settings.QQ_CITE_THRESHOLD}, "
        f"QQ_MIN_RETRIEVAL_IMPORTANCE {settings.QQ_MIN_RETRIEVAL_IMPORTANCE}, k = 10; dedup "
        f"at QQ_DEDUP_THRESHOLD {settings.QQ_DEDUP_THRESHOLD}, archival at "
        f"QQ_ARCHIVE_THRESHOLD {settings.QQ_ARCHIVE_THRESHOLD}. Recalled: any evidence note "
        "(or the note it was merged into) within the first k. Load: the highest 1-minute "
        "load average while a point's figures were measured. Lost / gained: questions "
        "recalled at 10 before curation and not at this point, and the other way round. "
        "Window over every note: the same engine asked with its search window widened to "
        "every note (padding ``without`` with ids that name no note), i.e. every note that "
        "scores at least QQ_CITE_THRESHOLD and keeps QQ_MIN_RETRIEVAL_IMPORTANCE, best "
        "first, as the engine's docstring and the agent define it: a check that the "
        "engine, which reads the nearest notes in widening windows until it holds k + 10 "
        "the agent keeps, misses none.",
        "",
        f"Whole run {head['seconds'] / 60:.1f} min [load {head['load']:.1f}], of which "
        f"embedding the turns {head['embed_s']:.0f} s "
        f"({'cached in var/recall/' if head['cached'] else 'not cached yet'}).",
    ]
    for variant, what in (
        ("aged", "notes dated by LoCoMo's sessions, now = the last session"),
        ("fresh", "every note written now: no decay"),
    ):
        if variant not in results:
            continue
        for split, name in (("all", "all conversations"), ("test", "test (5-9)")):
            if results[variant][POINTS[0]].get(split, {}).get("questions"):
                out += ["", f"## {variant}: {what}; {name}", ""]
                out += table(results[variant], split)
        curation = results[variant]["after both"]["all"]["curation"]
        out += ["", f"Curation ({variant}, all): {json.dumps(curation)}."]
    return "\n".join(out) + "\n"
