"""A stored key ("of_notes", "agent_differs_rate", "archive_purge") as a curator reads it
("of the notes", "share where the agent differs", "archive purge"): the labels below,
else the key with its underscores as spaces. A page never shows a raw key."""

from __future__ import annotations

LABELS = {
    "of_notes": "of the notes",
    "agent_differs_rate": "share where the agent differs",
    "full_because": "a full scan, because",
    "vectors_read_from": "vectors read from",
    "use_llm": "use an LLM",
    "dry_run": "dry run",
    "left_for_review": "left for review",
    "archive_purge": "archive purge",
    "auto_consolidation": "auto-consolidation",
    "dedup_scan": "duplicate scan",
    "promotion_scan": "promotion scan",
    "vector_index_rebuild": "vector index rebuild",
    "graph_orphan_scan": "graph orphan scan",
    "graph_reembed": "graph re-embedding",
    "reembed": "re-embedding",
}


def key_words(key: str) -> str:
    return LABELS.get(key, key.replace("_", " "))
