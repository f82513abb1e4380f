"""A stored key ("of_notes", "agent_differs_rate", "archive_purge") as a curator reads it
("notes looked at", "share where the agent differs", "archive purge"): the labels below,
else the key with its underscores as spaces. A page never shows a raw key."""

from __future__ import annotations

import re
from collections.abc import Mapping

LABELS = {
    "of_notes": "notes looked at",
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
    "vanished_scan": "vanished-facts scan",
    "memory_tests": "memory tests",
    # a run's stats (run_stats_words) where the key's own words fall short
    "of_lines": "archive lines looked at",
    "test_run": "memory tests run",
    "kept_rejected": "kept (rejected before)",
    "dimensions": "vectors by dimension",
    # an entity's properties (graph pages)
    "mention_count": "mentions",
    "source_first_id": "first source",
    "source_latest_id": "latest source",
}


STORE_LABELS = {  # the stores' health names (qqweb/health.py) in words: Health, header dots
    "mongodb": "MongoDB",
    "neo4j": "Neo4j",
    "memory_dir": "Memory folder",
    "broker": "Broker",
    "facts": "Facts",
}
BROKER_LABELS = {  # the broker's URL scheme: which broker it is
    "sqla+sqlite": "Broker (SQLite, make dev)",
    "redis": "Broker (Redis)",
    "rediss": "Broker (Redis)",
    "amqp": "Broker (RabbitMQ)",
    "amqps": "Broker (RabbitMQ)",
}


def store_label(name: str, broker_url: str = "") -> str:
    """A store's health name ("memory_dir", "broker") as the pages show it ("Memory
    folder", "Broker (Redis)"): the broker's label says which broker ``broker_url`` is."""
    if name == "broker":
        return BROKER_LABELS.get(broker_url.partition("://")[0], STORE_LABELS["broker"])
    return STORE_LABELS.get(name, key_words(name))


def key_words(key: str) -> str:
    return LABELS.get(key, key.replace("_", " "))


ARCHIVE_REASONS = {
    "low_importance": "low importance",
    "importance_decay": "importance decayed",
    "consolidated": "consolidated",
    "unknown": "no reason given",
}


def archive_reason_words(reason: str) -> str:
    """The agent's archive reason (an archive.jsonl line's ``reason``) as a curator reads
    it: ``low_importance`` -> "low importance", ``importance_decay_0.013`` -> "importance
    decayed to 0.013" (the number is the note's decayed importance when it was archived,
    not a rate), ``importance_decay`` (the group of those) -> "importance decayed". A
    reason already in words ("Consolidated with note_… (similarity: 0.93)") stays as it is;
    any other key reads with its underscores as spaces."""
    prefix = "importance_decay_"
    if reason.startswith(prefix):
        return f"importance decayed to {reason[len(prefix) :]}"
    if not _REASON_KEY.fullmatch(reason):  # a sentence: its ids keep their underscores
        return reason
    return ARCHIVE_REASONS.get(reason) or key_words(reason)


_REASON_KEY = re.compile(r"[a-z][a-z0-9_.]*")


ACTIONS = {
    "archive.purge": "Purge the archive",
    "core.add": "Add to core memory",
    "core.promote": "Promote a note to core memory",
    "core.remove": "Remove from core memory",
    "entity.delete": "Delete an entity",
    "entity.edit": "Edit an entity",
    "entity.merge": "Merge entities",
    "entity.rename": "Rename an entity",
    "entity_pair.verdict": "Judge an entity pair",
    "fact.create": "Add a fact",
    "fact.delete": "Delete a fact",
    "fact.edit": "Edit a fact",
    "fact.embed": "Embed a fact",
    "fact.pair.delete-both": "Delete both facts of a pair",
    "fact.pair.keep-newer-text": "Keep the newer fact's text",
    "fact.pair.keep-older": "Keep the older fact",
    "fact.restore": "Restore a fact",
    "fact.verdict": "Judge a fact pair",
    "graph.reembed": "Re-embed the graph",
    "note.archive": "Archive a note",
    "note.create": "Add a note",
    "note.edit": "Edit a note",
    "note.keep": "Keep a note",
    "note.restore": "Restore a note",
    "notes.decay": "Decay importance",
    "notes.reembed": "Re-embed the notes",
    "pair.merge": "Merge a pair of notes",
    "pair.reject": "Keep both notes of a pair",
    "pair.supersede": "Replace a note by the newer one",
    "promotion.reject": "Reject a promotion",
    "recall.pin": "Pin a recall",
    "recall.unpin": "Unpin a recall",
    "relationship.delete": "Delete a relationship",
    "relationship.edit": "Edit a relationship",
    "schedule.update": "Change a job's schedule",
    "working.edit": "Edit working memory",
    "working.remove": "Remove from working memory",
}


def action_words(action: str) -> str:
    """An audit action ("recall.pin") as a curator reads it ("Pin a recall"): ``ACTIONS``,
    else its words ("plan.apply" -> "Plan apply")."""
    if action in ACTIONS:
        return ACTIONS[action]
    return key_words(action.replace(".", " ").replace("-", " ")).capitalize()


def actor_words(label: str) -> str:
    """Who started a run or did an action (``Actor.label``) as a curator reads it:
    ``user:admin`` -> "admin", ``token:ci (ada)`` -> "API token ci (ada)",
    ``job:facts-scan`` -> "facts scan (automatic)", ``job:command:decay`` -> "decay
    (command line)"; anything else stays as it is."""
    kind, _, name = label.partition(":")
    if not name:
        return label
    if kind == "user":
        return name
    if kind == "token":
        return f"API token {name}"
    if kind == "job":
        if name.startswith("command:"):
            return f"{key_words(name.removeprefix('command:'))} (command line)"
        return f"{key_words(name.replace('-', '_'))} (automatic)"
    return label


def shortened(text: str, width: int = 60) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def ids_in_words(text: str, names: Mapping[str, str], width: int = 60) -> str:
    """``text`` (a reason: "merged into note_b by this plan, and note_b is not recalled:
    ... outranked by note_c (0.91)") with each id of ``names`` it holds replaced by that
    item's text, quoted and shortened: what a curator reads. An id without a known text
    stays as it is."""
    for item_id in sorted(names, key=len, reverse=True):
        if item_id and names[item_id] and item_id in text:
            text = text.replace(item_id, f"“{shortened(names[item_id], width)}”")
    return text


INSERTED_WORDS = (
    ("note", "note", "notes"),
    ("node", "graph node", "graph nodes"),
    ("relationship", "relationship", "relationships"),
    ("fact", "fact", "facts"),
)


def inserted_words(inserted: object) -> str:
    """An import's counts in words and in one order, whatever order the database kept the
    keys in (PostgreSQL's jsonb sorts them): "1 note, 0 graph nodes, ..."."""
    if not isinstance(inserted, dict):
        return ""
    return ", ".join(
        f"{inserted.get(key, 0)} {one if inserted.get(key, 0) == 1 else many}"
        for key, one, many in INSERTED_WORDS
    )


SOURCE_FIELDS = {  # a note's ``source`` keys (both shapes of the data contract) as labels
    "source_type": "Source",
    "file_path": "File",
    "file_name": "File name",
    "line_start": "First line",
    "line_end": "Last line",
    "checksum": "Checksum",
    "git_repo": "Repository",
    "git_branch": "Branch",
    "git_commit": "Commit",
    "git_author": "Author",
    "git_metadata.repo": "Repository",
    "git_metadata.branch": "Branch",
    "git_metadata.commit": "Commit",
    "git_metadata.author": "Author",
    "session_id": "Session",
    "agent_id": "Agent",
    "timestamp": "Recorded",
    "analyzed_at": "Analysed",
    "analyzer_focus": "Analyser's focus",
    "source_id": "Source id",
    "evidence": "Evidence",
}


def source_field_words(key: str) -> str:
    """A note's source key ("git_metadata.repo") as a label ("Repository"); a key the
    contract does not name reads as words ("git_metadata.host" -> "Git metadata host")."""
    if key in SOURCE_FIELDS:
        return SOURCE_FIELDS[key]
    return key_words(key.replace(".", " ")).capitalize()


# A run's stats shown in their own sections of its page (a sample of ids, the pairs left for
# review, the refusals of an undo, an import's preview), never in its list of counts.
RUN_STATS_APART = frozenset({"sample", "reasons", "left", "preview"})


def run_stats_words(stats: object) -> list[tuple[str, str, str]]:
    """A run's stats as (key, label, value) rows in words, for the run's page and the Jobs
    page's Result column alike: each key as ``key_words`` says ("of_notes" -> "notes
    looked at"), a yes/no for a flag, a list's items and a dict's "key: value" pairs joined;
    the stats kept apart (``RUN_STATS_APART``) and nested rows left out."""
    if not isinstance(stats, Mapping):
        return []
    rows = []
    for key, value in stats.items():
        if key in RUN_STATS_APART or _nested(value):
            continue
        rows.append((str(key), key_words(str(key)), _value_words(value)))
    return rows


def _nested(value: object) -> bool:
    if isinstance(value, Mapping):
        value = list(value.values())
    return isinstance(value, list | tuple) and any(
        isinstance(v, Mapping | list | tuple) for v in value
    )


def _value_words(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "—"
    if isinstance(value, Mapping):
        return ", ".join(f"{key_words(str(k))}: {_value_words(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_value_words(v) for v in value)
    return str(value)
