"""The notes that name an entity."""

from __future__ import annotations

import re
from typing import Any


def notes_mentioning(names: list[str], limit: int = 20) -> list[dict[str, Any]]:
    """Notes whose content names any of ``names`` (an escaped, case-insensitive regex)."""
    from memory_app.stores import notes_store

    wanted = [n for n in names if len(n) >= 3]
    if not wanted:
        return []
    pattern = "|".join(re.escape(n) for n in wanted)
    return list(
        notes_store()
        .collection.find(
            {"content": {"$regex": pattern, "$options": "i"}},
            {"_id": 0, "note_id": 1, "content": 1, "section": 1, "importance": 1},
        )
        .limit(limit)
    )
