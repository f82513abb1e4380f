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

from memory_app.memory.constants import SECTIONS

PEOPLE = [
    "Priya Raman",
    "Tomás Ferreira",
    "Mei Lin",
    "Jonas Berg",
    "Aisha Bello",
    "Lucas Moreau",
    "Hana Sato",
    "Omar Haddad",
    "Elena Petrova",
    "Sam Whitfield",
    "Nadia Kowalski",
    "Ravi Menon",
]
ROLES = [
    "staff engineer",
    "product manager",
    "data scientist",
    "SRE",
    "designer",
    "security lead",
    "research intern",
    "engineering manager",
]
ORGS = [
    "Northwind Labs",
    "Helios Analytics",
    "Bluefin Systems",
    "the Lisbon Python meetup",
    "Kestrel AI",
    "OpenGrid Foundation",
]
PROJECTS = ["Lumen", "tidepool", "Marlin", "qq", "Atlas ingest", "Fernweh", "Beacon"]
TECH = [
    "MongoDB",
    "Neo4j",
    "Redis",
    "PostgreSQL",
    "Celery",
    "FastAPI",
    "Django",
    "Kafka",
    "Qdrant",
    "sentence-transformers",
    "Kubernetes",
    "Terraform",
    "DuckDB",
    "Rust",
    "htmx",
    "Grafana",
    "Prometheus",
    "vLLM",
    "llama.cpp",
    "Tailscale",
]
PURPOSES = [
    "vector search",
    "task queues",
    "caching",
    "the knowledge graph",
    "metrics",
    "batch ingestion",
    "session storage",
    "embeddings",
    "deployment",
    "tracing",
    "feature flags",
    "rate limiting",
]
TOPICS = [
    "hybrid retrieval",
    "reranking with cross-encoders",
    "time-decay scoring",
    "graph-based RAG",
    "Matryoshka embeddings",
    "quantised KV caches",
    "speculative decoding",
    "chunking strategies for code",
    "prompt caching",
    "evaluation of retrieval quality",
    "contrastive fine-tuning",
    "long-context summarisation",
    "agent memory consolidation",
    "CRDTs for offline sync",
    "zero-downtime migrations",
]
COMPONENTS = [
    "the ingest worker",
    "the auth middleware",
    "the embedding service",
    "the nightly backup job",
    "the search endpoint",
    "the graph extractor",
    "the websocket gateway",
    "the billing webhook",
    "the CLI installer",
]
ISSUES = [
    "a memory leak",
    "flaky integration tests",
    "slow cold starts",
    "a race condition",
    "timeouts under load",
    "duplicate events",
    "a unicode bug",
    "stale cache entries",
]
FILES = [
    "src/lumen/retrieval.py",
    "src/lumen/config.py",
    "deploy/k8s/values.yaml",
    "src/tidepool/cluster.go",
    "docs/architecture.md",
    "src/qq/memory/mongo_store.py",
    "src/qq/memory/importance.py",
    "scripts/backup.sh",
    "pyproject.toml",
    "src/marlin/pipeline.rs",
    "src/atlas/ingest/reader.py",
    "Makefile",
    "src/beacon/api/routes.ts",
    "infra/terraform/main.tf",
]
FILE_FACTS = [
    "defines the retry policy for",
    "holds the connection settings for",
    "implements the scoring function of",
    "documents the deployment of",
    "contains the schema migration for",
    "wires the background jobs of",
    "configures logging for",
    "parses the input format of",
]
DATES = ["2026-12-15", "2027-01-10", "2026-11-30", "2027-02-01", "2026-12-03"]

TEMPLATES: dict[str, list[str]] = {
    "Key Topics": [
        "Researching {topic} for {project}",
        "Comparing {tech} and {tech2} for {purpose} in {project}",
        "Interested in {topic}; reading papers and blog posts about it",
        "Exploring whether {tech} could replace {tech2} for {purpose}",
        "Reading about {topic} and how it applies to {project}",
    ],
    "Important Facts": [
        "{project} uses {tech} for {purpose}",
        "The {project} staging cluster runs {tech} version {version}",
        "Deadline for the {project} beta is {date}",
        "{tech} is configured with a {n} second timeout in {project}",
        "{project} stores {purpose} data in {tech}, documented at https://docs.example.org/{slug}",
        "Decided to drop {tech2} from {project} in favour of {tech}",
    ],
    "People & Entities": [
        "{person} is a {role} at {org}",
        "{person} maintains {project} and prefers reviews on Fridays",
        "{person} introduced the user to {tech}",
        "{org} sponsors {project}; the contact there is {person}",
        "{person} and the user pair on {project} every week",
    ],
    "Ongoing Threads": [
        "Debugging {issue} in {component} of {project}",
        "Waiting on {person} to review the {project} pull request about {purpose}",
        "Migrating {project} from {tech2} to {tech}",
        "Planning a talk about {topic} at {org}",
        "Investigating {issue} reported by {person} in {component}",
    ],
    "File Knowledge": [
        "{file} {file_fact} {project}",
        "{file} sets the {tech} client options used by {project}",
        "{file} is where {project} registers its {purpose} handlers",
    ],
}

CORE_ITEMS = {
    "Identity": [
        "My name is Dana Okafor",
        "I work as a backend engineer at Northwind Labs",
        "I live in Lisbon, Portugal",
        "I prefer concise answers with code examples",
    ],
    "Projects": [
        "I'm building Lumen, a retrieval service for internal docs",
        "Our project tidepool is a home-lab Kubernetes cluster",
        "I'm working on qq, a local-first agent with long-term memory",
    ],
    "Relationships": [
        "Priya Raman is my closest collaborator on Lumen",
        "Jonas Berg is my team lead at Northwind Labs",
    ],
    "System": [
        "Main machine: Linux workstation with an RTX 4090 GPU and 64 GB RAM",
        "Home server setup: three Raspberry Pi 5 nodes running k3s",
    ],
}

ARCHIVE_TEMPLATES = [
    "Tried {tech} for {purpose} but it was too slow",
    "Temporary note: {person} was out of office last week",
    "Old plan: move {project} to {tech2}",
    "Looked at {topic} briefly; not relevant for now",
    "{component} had {issue} on a Tuesday",
]


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
