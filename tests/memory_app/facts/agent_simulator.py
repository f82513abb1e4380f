"""A small re-implementation of the agent's cleanup (W3) from the contract, pair by pair
as the agent runs it, to check the blocked plan against."""

from __future__ import annotations

import numpy as np

from memory_app.facts.domain import MISSING, Fact
from memory_app.facts.rules import bson_sort_key


def agent_cleanup(facts: list[Fact]) -> set[str]:
    """The ids the agent's next start deletes (raises, as the agent does, on a bad vector)."""
    with_vector = [f for f in facts if f.type == "fact" and f.content_embedding is not MISSING]
    ordered = sorted(with_vector, key=lambda f: bson_sort_key(f.timestamp))
    usable = []
    for fact in ordered:
        vector = np.array(fact.content_embedding, dtype=np.float64)
        if vector.size == 0 or not np.linalg.norm(vector):
            continue  # skipped with a warning
        usable.append((fact, vector))
    marked: set[str] = set()
    for i, (anchor, va) in enumerate(usable):
        if anchor.hex_id in marked:
            continue
        for other, vb in usable[i + 1 :]:
            if other.hex_id in marked:
                continue
            if np.dot(va, vb) / (np.linalg.norm(va) * np.linalg.norm(vb)) >= 0.95:
                marked.add(other.hex_id)
    return marked
