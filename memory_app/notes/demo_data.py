"""Demo memory, written exactly as the qq agent writes it (shared/qq-data-contract.md).

Everything is generated from a seeded ``random.Random``, so the same seed gives the same
memory: about 500 notes over the five sections (with ~30 planted near-duplicate pairs and
a few notes whose embedding failed), ~50 archive lines, core.md and notes.md items.
The persona is a backend engineer and her agent; names are invented.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from memory_app.notes.lib.constants import SECTIONS
from qqweb.lib.demo_vocabulary import (
    ARCHIVE_TEMPLATES,
    COMPONENTS,
    CORE_ITEMS,
    DATES,
    FILE_FACTS,
    FILES,
    ISSUES,
    ORGS,
    PEOPLE,
    PROJECTS,
    PURPOSES,
    ROLES,
    TECH,
    TEMPLATES,
    TOPICS,
)


@dataclass
class DemoMemory:
    notes: list[dict[str, Any]] = field(default_factory=list)
    archive: list[dict[str, Any]] = field(default_factory=list)
    core: dict[str, list[str]] = field(default_factory=dict)
    working: dict[str, list[str]] = field(default_factory=dict)
    duplicate_pairs: list[tuple[str, str]] = field(default_factory=list)


def _fill(template: str, rng: random.Random) -> str:
    tech, tech2 = rng.sample(TECH, 2)
    return template.format(
        topic=rng.choice(TOPICS),
        project=rng.choice(PROJECTS),
        tech=tech,
        tech2=tech2,
        purpose=rng.choice(PURPOSES),
        person=rng.choice(PEOPLE),
        role=rng.choice(ROLES),
        org=rng.choice(ORGS),
        component=rng.choice(COMPONENTS),
        issue=rng.choice(ISSUES),
        file=rng.choice(FILES),
        file_fact=rng.choice(FILE_FACTS),
        date=rng.choice(DATES),
        version=f"{rng.randint(1, 9)}.{rng.randint(0, 20)}",
        n=rng.choice([5, 10, 30, 60]),
        slug=rng.choice(["setup", "retrieval", "ops", "schema"]),
    )


def paraphrase(text: str, rng: random.Random) -> str:
    """A near-duplicate as an agent writes one: the same fact, slightly reworded."""
    swaps = [
        (" uses ", " relies on "),
        ("Researching ", "Currently researching "),
        ("Debugging ", "Still debugging "),
        (" is a ", " works as a "),
        ("Migrating ", "Busy migrating "),
        ("Waiting on ", "Still waiting on "),
        ("Comparing ", "Evaluating "),
        ("Planning ", "Preparing "),
    ]
    for old, new in swaps:
        if old in text:
            return text.replace(old, new, 1)
    return rng.choice(["Note: ", "Reminder: "]) + text


def _repo(path: str) -> str:
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else "qq"


def _note_id(rng: random.Random, content: str, legacy: bool) -> str:
    if legacy:
        return hashlib.sha256(content.encode()).hexdigest()[:16]
    return f"note_{rng.getrandbits(48):012x}"


def _source(rng: random.Random, section: str, when: datetime) -> dict[str, Any] | None:
    kind = rng.random()
    if section == "File Knowledge" or kind < 0.25:
        path = rng.choice(FILES)
        checksum = "sha256:" + hashlib.sha256(f"{path}{rng.random()}".encode()).hexdigest()
        if rng.random() < 0.5:  # shape 2: the file analyzer's record (no source_id)
            return {
                "source_type": "file",
                "file_path": f"/home/dana/code/{path}",
                "file_name": path.rsplit("/", 1)[-1],
                "checksum": checksum,
                "git_metadata": {
                    "repo": "github.com/dana/" + _repo(path),
                    "branch": "main",
                    "commit": f"{rng.getrandbits(160):040x}",
                    "author": "Dana Okafor",
                },
                "analyzed_at": when.isoformat(),
                **({"analyzer_focus": "architecture"} if rng.random() < 0.4 else {}),
            }
        line = rng.randint(1, 400)
        return {  # shape 1: a provenance record of a file
            "source_type": "file",
            "file_path": path,
            "file_name": path.rsplit("/", 1)[-1],
            "line_start": line,
            "line_end": line + rng.randint(0, 40),
            "checksum": checksum,
            "git_repo": "dana/" + _repo(path),
            "git_branch": "main",
            "git_commit": f"{rng.getrandbits(160):040x}",
            "git_author": "Dana Okafor",
            "session_id": "",
            "agent_id": "",
            "timestamp": when.replace(tzinfo=UTC).isoformat(),
            "source_id": checksum,
        }
    if kind < 0.85:
        session = f"{rng.getrandbits(64):016x}"
        return {
            "source_type": "conversation",
            "file_path": "",
            "file_name": "",
            "session_id": session,
            "agent_id": rng.choice(["", "", "researcher"]),
            "timestamp": when.replace(tzinfo=UTC).isoformat(),
            "source_id": f"session:{session}",
            **({"evidence": "user said so directly"} if rng.random() < 0.3 else {}),
        }
    if kind < 0.9:
        stamp = when.replace(tzinfo=UTC).isoformat()
        return {"source_type": "unknown", "timestamp": stamp, "source_id": f"unknown:{stamp}"}
    return None


def _importance(rng: random.Random, section: str) -> float:
    base = {"People & Entities": 0.55, "Important Facts": 0.5, "File Knowledge": 0.3}.get(
        section, 0.4
    )
    return round(min(1.0, max(0.0, rng.gauss(base, 0.2))), 3)


def build_demo_memory(
    *,
    now: datetime,
    seed: int = 7,
    notes: int = 500,
    duplicate_pairs: int = 30,
    empty_embeddings: int = 5,
    archive_lines: int = 50,
) -> DemoMemory:
    """The demo memory as plain data; embeddings are added by the caller."""
    rng = random.Random(seed)
    demo = DemoMemory()
    seen: set[str] = set()
    base_count = notes - duplicate_pairs
    attempts = 0
    while len(demo.notes) < base_count and attempts < notes * 50:
        attempts += 1
        section = SECTIONS[len(demo.notes) % len(SECTIONS)]
        content = _fill(rng.choice(TEMPLATES[section]), rng)
        if content in seen:
            continue
        seen.add(content)
        demo.notes.append(_document(rng, now, section, content))
    for original in rng.sample(demo.notes, duplicate_pairs):
        content = paraphrase(original["content"], rng)
        if content in seen:
            continue
        seen.add(content)
        twin = _document(rng, now, original["section"], content)
        demo.notes.append(twin)
        demo.duplicate_pairs.append((original["note_id"], twin["note_id"]))
    for doc in rng.sample(demo.notes, empty_embeddings):
        doc["embedding"] = []  # the agent's embedding call failed for these
    demo.archive = [_archive_line(rng, now, i, demo.notes) for i in range(archive_lines)]
    demo.core = {k: list(v) for k, v in CORE_ITEMS.items()}
    demo.working = {
        s: [n["content"] for n in demo.notes if n["section"] == s][:6] for s in SECTIONS
    }
    return demo


def _document(rng: random.Random, now: datetime, section: str, content: str) -> dict[str, Any]:
    age = rng.randint(1, 400)
    created = now - timedelta(days=age, seconds=rng.randint(0, 86_399))
    updated = created + timedelta(days=rng.uniform(0, age))
    accessed = None if rng.random() < 0.3 else created + timedelta(days=rng.uniform(0, age))
    source = _source(rng, section, updated)
    history = [source] if source else []
    if source and rng.random() < 0.2:
        older = _source(rng, section, created)
        if older:
            history.insert(0, older)
    doc: dict[str, Any] = {
        "note_id": _note_id(rng, content, legacy=rng.random() < 0.2),
        "content": content,
        "embedding": None,
        "section": section,
        "metadata": {},
        "importance": _importance(rng, section),
        "decay_rate": 0.01,
        "access_count": 0 if accessed is None else int(rng.expovariate(1 / 4)) + 1,
        "created_at": created,
        "updated_at": updated,
        "last_accessed": accessed,
    }
    if source:
        doc["source"] = source
        doc["source_history"] = history
    return doc


def _archive_line(
    rng: random.Random, now: datetime, index: int, notes: list[dict[str, Any]]
) -> dict[str, Any]:
    """``now`` is naive UTC; archive stamps are naive LOCAL time, as the agent writes."""
    local_now = now.replace(tzinfo=UTC).astimezone().replace(tzinfo=None)
    archived = local_now - timedelta(days=rng.randint(1, 150), minutes=rng.randint(0, 1439))
    kind = index % 3
    if kind == 0:
        reason = "low_importance"
    elif kind == 1:
        reason = f"importance_decay_{rng.uniform(0.0, 0.049):.3f}"
    else:
        reason = (
            f"Consolidated with {rng.choice(notes)['note_id']} "
            f"(similarity: {rng.uniform(0.86, 0.99):.2f})"
        )
    content = _fill(rng.choice(ARCHIVE_TEMPLATES), rng)
    created = archived - timedelta(days=rng.randint(10, 300))
    line: dict[str, Any] = {
        "note_id": f"note_{rng.getrandbits(48):012x}",
        "content": content,
        "section": rng.choice(SECTIONS),
        "importance": round(rng.uniform(0.0, 0.3), 3),
        "reason": reason,
        "archived_at": archived.isoformat(),
        "original_created_at": created.isoformat() if rng.random() < 0.85 else None,
        "access_count": rng.randint(0, 6),
        "metadata": {},
    }
    if rng.random() < 0.5:
        source = _source(rng, line["section"], created)
        if source:
            line["source"] = source
            line["source_history"] = [source]
    if index % 6 == 5:
        line["restored"] = True
        restored = min(local_now, archived + timedelta(hours=rng.randint(1, 48)))
        line["restored_at"] = restored.isoformat()
    return line
