"""A small facts collection planted exactly as the agent writes it (raw inserts), with a
pair the next start deletes, a legacy fact, a legacy turn and one broken vector."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from bson import ObjectId

from memory_app.facts.lib import FactsStore
from tests.memory_app.facts.lib.vectors import at_cosine, unit

T0 = datetime(2026, 1, 1, 12, 0, 0)


def doc(content: str, vector: Any, minutes: int) -> dict[str, Any]:
    d = {
        "_id": ObjectId(),
        "type": "fact",
        "content": content,
        "timestamp": T0 + timedelta(minutes=minutes),
        "metadata": {},
    }
    if vector is not None:
        d["content_embedding"] = vector
    return d


def plant(store: FactsStore, *, broken: bool = False) -> dict[str, dict[str, Any]]:
    docs = {
        "old_port": doc("The TTS port is 9000.", unit(0), 0),
        "new_port": doc("The TTS port is 9100.", at_cosine(0.989), 10),
        "similar": doc("The TTS voice is Lily.", at_cosine(0.9, 0, 2), 20),
        "tea": doc("The user likes tea.", unit(5), 30),
        "legacy": doc("The user lives in Hanoi.", None, -60),
        "turn": {
            "_id": ObjectId(),
            "user_input": "hello",
            "llm_response": "hi!",
            "timestamp": T0 - timedelta(days=1),
            "metadata": {},
        },
    }
    if broken:
        docs["broken"] = doc("Broken vector.", None, 40)
        docs["broken"]["content_embedding"] = [0.5] * 1024
    store.collection.insert_many(list(docs.values()))
    return docs
