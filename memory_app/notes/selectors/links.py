"""What the notes offer the other apps through the kernel (``qqweb.lib.links``): the
notes that name an entity (the graph's entity page). Registered in
``MemoryAppConfig.ready()``; answers kernel dataclasses only."""

from __future__ import annotations

from memory_app.notes.stores import notes_store
from qqweb.lib.errors import StoreUnavailable
from qqweb.lib.links import NoteMention, NoteMentions


class NotesMentionsReader:
    def notes_mentioning(self, names: list[str], limit: int = 20) -> NoteMentions:
        """Notes whose content names any of ``names``, newest first (among the most
        recently updated: the store's window); empty with why when MongoDB is down."""
        try:
            docs = notes_store().notes_mentioning(names, limit)
        except StoreUnavailable as e:
            return NoteMentions([], unavailable=e.message)
        return NoteMentions(
            [
                NoteMention(
                    note_id=str(d["note_id"]),
                    content=str(d.get("content", "")),
                    section=str(d.get("section", "")),
                    importance=d.get("importance"),
                )
                for d in docs
            ]
        )
