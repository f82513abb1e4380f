"""The notes that name an entity, read through the kernel's link registry
(``qqweb.lib.links``): the notes app registers the reader, graph_app does not import it."""

from __future__ import annotations

from qqweb.lib.links import NoteMentions, notes_reader


def notes_mentioning(names: list[str], limit: int = 20) -> NoteMentions:
    """Notes whose content names any of ``names``; empty with ``unavailable`` saying why
    when the notes' store is down (or the notes app is not installed)."""
    return notes_reader().notes_mentioning(names, limit)
