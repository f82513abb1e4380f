"""Demo knowledge graph in the agent's shape: one label per entity, ``name`` as identity,
``embedding`` of ``"name: description"``, aliases, mention counts, first/last seen,
free-form relationship types with properties, and ``:Source`` provenance nodes with
``EXTRACTED_FROM`` / ``EVIDENCES`` edges. Includes a few orphans and two names that
exist under two labels (``Lumen``: Project and Software; ``Mercury``: Concept and
Software), as the agent's extractor produces them.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from qqweb.lib.demo_vocabulary import FILES, ORGS, PEOPLE, PROJECTS, TECH, TOPICS

EXTRA_PEOPLE = [
    "Dana Okafor",
    "Ines Duarte",
    "Kofi Mensah",
    "Yuki Tanaka",
    "Marta Silva",
    "Ben Carter",
    "Leila Nasser",
    "Arjun Patel",
]
LOCATIONS = [
    "Lisbon",
    "Porto",
    "Berlin",
    "Tokyo",
    "Lagos",
    "Toronto",
    "Nairobi",
    "Oslo",
    "Sintra",
    "Madrid",
    "Accra",
    "Seoul",
]
CONCEPTS = [
    "Retrieval-Augmented Generation",
    "Cosine Similarity",
    "Time Decay",
    "Near-Duplicate Detection",
    "Knowledge Graph",
    "Vector Index",
    "Mercury",
    "Keyset Pagination",
    "Provenance",
    "Embedding Drift",
    "Consolidation",
    "Importance Scoring",
    "Context Window",
    "Tokenisation",
    "Chunking",
    "Reranking",
    "Hybrid Search",
    "Entity Resolution",
    "Graph Traversal",
    "Change Streams",
    "Idempotency",
    "Backpressure",
    "Observability",
]
EVENTS = [
    "PyCon Lisbon 2026",
    "Lumen beta launch",
    "tidepool outage March",
    "Northwind offsite",
    "RAG reading group",
    "Q3 planning",
    "Kestrel AI demo day",
]
CONFIGS = [
    "MONGODB_URI",
    "NEO4J_URI",
    "QQ_DEDUP_THRESHOLD",
    "TEI_URL",
    "k3s values",
    "Celery beat schedule",
    "MEMORY_DIR",
]
FUNCTIONS = [
    "upsert_note",
    "search_similar",
    "decay_importance",
    "find_similar",
    "archive_note",
    "extract_entities",
    "build_context",
    "rerank",
    "restore_note",
    "consolidate",
    "score_note",
    "purge_old_archives",
]

REL_RULES: list[tuple[str, str, str]] = [
    ("Person", "KNOWS", "Person"),
    ("Person", "WORKS_ON", "Project"),
    ("Person", "MEMBER_OF", "Organization"),
    ("Person", "LOCATED_IN", "Location"),
    ("Project", "USES", "Software"),
    ("Project", "DEPENDS_ON", "Software"),
    ("Software", "DEPENDS_ON", "Software"),
    ("Project", "RELATES_TO", "Concept"),
    ("Concept", "PART_OF", "Concept"),
    ("File", "PART_OF", "Project"),
    ("File", "CONTAINS", "Function"),
    ("Function", "USES", "Concept"),
    ("Event", "MENTIONS", "Project"),
    ("Person", "ATTENDED", "Event"),
    ("Organization", "LOCATED_IN", "Location"),
    ("Project", "CONFIGURED_BY", "Configuration"),
    ("Topic", "RELATES_TO", "Concept"),
    ("Person", "INTERESTED_IN", "Topic"),
]


@dataclass
class DemoGraph:
    entities: list[dict[str, Any]] = field(default_factory=list)  # label, name, props
    relationships: list[dict[str, Any]] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    orphans: list[tuple[str, str]] = field(default_factory=list)


def build_demo_graph(*, now: datetime, seed: int = 11, relationships: int = 300) -> DemoGraph:
    """The graph as plain data; entity embeddings are added by the caller."""
    rng = random.Random(seed)
    names: dict[str, list[str]] = {
        "Person": PEOPLE + EXTRA_PEOPLE,
        "Project": PROJECTS,
        "Software": [*TECH, "Lumen"],
        "Organization": ORGS,
        "Location": LOCATIONS,
        "Concept": CONCEPTS,
        "Topic": TOPICS,
        "Event": EVENTS,
        "File": FILES,
        "Function": FUNCTIONS,
        "Configuration": CONFIGS,
    }
    names["Software"].append("Mercury")
    graph = DemoGraph()
    aware_now = now.replace(tzinfo=UTC)
    for label, items in names.items():
        for name in items:
            first = aware_now - timedelta(days=rng.randint(5, 400))
            props: dict[str, Any] = {
                "description": _describe(label, name, rng),
                "notes": "",
                "confidence": round(rng.uniform(0.6, 1.0), 2),
                "canonical_name": name.lower(),
                "mention_count": int(rng.expovariate(1 / 5)) + 1,
                "first_seen": first,
                "last_seen": first + timedelta(days=rng.uniform(0, (aware_now - first).days)),
            }
            if rng.random() < 0.2:
                props["aliases"] = _aliases(name)
            graph.entities.append({"label": label, "name": name, "props": props})
    keys = [(e["label"], e["name"]) for e in graph.entities]
    graph.orphans = rng.sample([k for k in keys if k[0] in {"Concept", "Location", "Event"}], 4)
    usable = [k for k in keys if k not in graph.orphans]
    by_label: dict[str, list[tuple[str, str]]] = {}
    for key in usable:
        by_label.setdefault(key[0], []).append(key)
    seen: set[tuple[Any, ...]] = set()
    attempts = 0
    while len(graph.relationships) < relationships and attempts < relationships * 20:
        attempts += 1
        label_a, rel_type, label_b = rng.choice(REL_RULES)
        a, b = rng.choice(by_label[label_a]), rng.choice(by_label[label_b])
        if a == b or (a, rel_type, b) in seen:
            continue
        seen.add((a, rel_type, b))
        first = aware_now - timedelta(days=rng.randint(1, 300))
        graph.relationships.append(
            {
                "a": a,
                "type": rel_type,
                "b": b,
                "props": {
                    "description": f"{a[1]} {rel_type.lower().replace('_', ' ')} {b[1]}",
                    "notes": "",
                    "confidence": round(rng.uniform(0.5, 1.0), 2),
                    "evidence": "mentioned in conversation",
                    "mention_count": rng.randint(1, 6),
                    "first_seen": first,
                    "last_seen": first + timedelta(days=rng.randint(0, 30)),
                },
            }
        )
    for i in range(20):
        checksum = "sha256:" + hashlib.sha256(f"source{i}".encode()).hexdigest()
        if i % 2:
            source_id, props = (
                checksum,
                {"source_type": "file", "file_path": FILES[i % len(FILES)], "checksum": checksum},
            )
        else:
            session = f"{rng.getrandbits(64):016x}"
            source_id, props = (
                f"session:{session}",
                {"source_type": "conversation", "session_id": session},
            )
        props["timestamp"] = (aware_now - timedelta(days=rng.randint(1, 200))).isoformat()
        linked = rng.sample(usable, rng.randint(2, 6))
        graph.sources.append({"source_id": source_id, "props": props, "entities": linked})
    return graph


def _describe(label: str, name: str, rng: random.Random) -> str:
    return {
        "Person": f"{name}, a {rng.choice(['colleague', 'collaborator', 'friend', 'maintainer'])}",
        "Project": f"{name}, a software project the user works on",
        "Software": f"{name}, a software tool or library",
        "Organization": f"{name}, an organization",
        "Location": f"{name}, a city",
        "Concept": f"{name}, a technical concept",
        "Topic": f"{name}, a research topic",
        "Event": f"{name}, an event",
        "File": f"{name}, a source file",
        "Function": f"{name}(), a function in the qq code base",
        "Configuration": f"{name}, a configuration setting",
    }.get(label, name)


def _aliases(name: str) -> list[str]:
    parts = name.split()
    aliases = [name.lower()]
    if len(parts) > 1:
        aliases.append(parts[0])
    return aliases


def entity_texts(graph: DemoGraph) -> list[str]:
    """What the agent embeds for each entity: ``"name: description"``."""
    return [f"{e['name']}: {e['props']['description']}" for e in graph.entities]


def write_demo_graph(store: Any, graph: DemoGraph, embed: Any) -> dict[str, int]:
    """Write the demo graph through the store (MERGE on (label, name): re-running adds
    nothing). ``embed`` maps a list of texts to vectors."""
    texts = entity_texts(graph)
    vectors = embed(texts) if texts else []
    by_label: dict[str, list[dict[str, Any]]] = {}
    for entity, vector in zip(graph.entities, vectors, strict=True):
        props = {**entity["props"], "embedding": [float(x) for x in vector]}
        by_label.setdefault(entity["label"], []).append({"name": entity["name"], "props": props})
    for label, rows in by_label.items():
        store.merge_entities(label, rows)
    by_shape: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for rel in graph.relationships:
        shape = (rel["a"][0], rel["type"], rel["b"][0])
        by_shape.setdefault(shape, []).append(
            {"a": rel["a"][1], "b": rel["b"][1], "props": rel["props"]}
        )
    for (label_a, rel_type, label_b), rows in by_shape.items():
        store.merge_relationships(label_a, rel_type, label_b, rows)
    for source in graph.sources:
        for entity in source["entities"]:
            store.link_source(
                entity,
                source["source_id"],
                source["props"],
                rel_type="RELATES_TO",
                rel_source=source["source_id"],
            )
    return {
        "entities": len(graph.entities),
        "relationships": len(graph.relationships),
        "sources": len(graph.sources),
    }
