"""The words the demo memory is made of: the persona's people, organisations, projects,
technologies, files, the sentence templates per section, core.md items and archive lines.
Shared by the notes' and the graph's demo data (``memory_app/notes/demo_data.py``,
``graph_app/demo_data.py``), so it lives in the kernel."""

from __future__ import annotations

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
