"""Write tests/fixtures/minilm_notes.npz: real all-MiniLM-L6-v2 embeddings of agent-like
notes (the vector index's recall test uses them; random vectors would say little about
real text).

    .venv/bin/python scripts/vector_fixture.py

The notes are built from people, projects, tools and habits combined into the sentences an
agent writes about a user ("Priya prefers Postgres for the billing service"), so they come
in the clusters and near-paraphrases real memories have. Deterministic (seeded); the
vectors are stored as float16 to keep the file small, the queries as separate texts.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qqweb.lib.embeddings import SentenceTransformerEmbedder  # noqa: E402

PEOPLE = ["Priya", "Marco", "Aiko", "Dmitri", "Fatima", "Lars", "Chen", "Amara", "Tomás", "Noor"]
PROJECTS = [
    "Lumen",
    "the billing service",
    "the mobile app",
    "Atlas search",
    "the data lake",
    "the onboarding flow",
    "the CI pipeline",
    "the recommendation engine",
    "Helios",
    "the customer portal",
]
TOOLS = [
    "Postgres",
    "MongoDB",
    "Kafka",
    "Redis",
    "Kubernetes",
    "Terraform",
    "Grafana",
    "React",
    "Django",
    "Rust",
    "TypeScript",
    "Airflow",
    "Neo4j",
    "Elasticsearch",
    "gRPC",
]
HABITS = [
    "reviews pull requests on Fridays",
    "prefers short stand-ups",
    "works from Lisbon in winter",
    "takes Wednesday afternoons off",
    "likes detailed design documents",
    "answers email before ten",
    "wants tests before merging",
    "dislikes meetings after four",
    "drinks green tea during planning",
    "keeps a journal of incidents",
]
TEMPLATES = [
    "{p} prefers {t} for {j}",
    "{p} is the lead on {j} and owns its {t} setup",
    "{j} moved from {t} to {t2} last quarter",
    "{p} {h}",
    "The outage in {j} was caused by a {t} misconfiguration",
    "{p} asked to be reminded about the {j} deadline",
    "{j} uses {t} and {t2} in production",
    "{p} thinks {t} is overkill for {j}",
    "Decision: {j} will adopt {t} after the migration",
    "{p} and {p2} pair on {j} every Tuesday",
    "{p} is learning {t} to help with {j}",
    "The {t} cluster for {j} needs an upgrade before March",
]
QUERIES = [
    "who prefers Postgres",
    "what database does the billing service use",
    "when does Priya review code",
    "outage caused by Kafka",
    "Kubernetes upgrade deadline",
    "who leads the mobile app",
    "migration to Rust",
    "meetings in the afternoon",
    "Terraform for the data lake",
    "pair programming on Tuesdays",
]


def notes(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)  # noqa: S311 - made-up notes, not secrets
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        p, p2 = rng.sample(PEOPLE, 2)
        t, t2 = rng.sample(TOOLS, 2)
        text = rng.choice(TEMPLATES).format(
            p=p, p2=p2, t=t, t2=t2, j=rng.choice(PROJECTS), h=rng.choice(HABITS)
        )
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def main() -> None:
    texts = notes(3000)
    queries = QUERIES + notes(3090, seed=11)[3000:]  # 90 more, written like notes
    model = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    vectors = model.embed(texts).astype(np.float16)
    query_vectors = model.embed(queries).astype(np.float16)
    out = ROOT / "tests" / "fixtures" / "minilm_notes.npz"
    np.savez_compressed(
        out,
        texts=np.asarray(texts),
        vectors=vectors,
        queries=np.asarray(queries),
        query_vectors=query_vectors,
    )
    print(f"{out}: {len(texts)} notes, {len(queries)} queries, {vectors.shape[1]}-d")


if __name__ == "__main__":
    main()
