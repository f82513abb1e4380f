"""The notes that name an entity."""

from __future__ import annotations

from typing import Any

from memory_app.notes.stores import notes_store


def notes_mentioning(names: list[str], limit: int = 20) -> list[dict[str, Any]]:
    """Notes whose content names any of ``names`` (the notes store matches them as text)."""
    return notes_store().notes_mentioning(names, limit)
