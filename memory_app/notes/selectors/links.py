"""What the notes offer the other apps through the kernel (``qqweb.lib.links``): the
notes that name an entity (the graph's entity page). Registered in
``MemoryAppConfig.ready()``; answers kernel dataclasses only."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory_app.notes.lib import InvalidQuery
from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.lib.listing import NoteFilter
from memory_app.notes.lib.replica import lists as read_list
from memory_app.notes.stores import notes_store
from qqweb.lib.errors import StoreUnavailable
from qqweb.lib.links import NoteMention, NoteMentions


class NotesMentionsReader:
    def notes_mentioning(self, names: list[str], limit: int = 20) -> NoteMentions:
        """Notes whose content names any of ``names`` (3 characters or more, at the start
        of a word, any case: the notes list's text filter), newest first. Answered by the
        read model's word index, as the notes list is (milliseconds; the MongoDB regex over
        the latest notes' ids took 1.3-3.3 s on the demo's 500 notes, most of an entity
        page); by MongoDB while the read model loads. Empty with why when MongoDB is
        down."""
        try:
            docs = _from_read_model(names, limit)
        except read_list.ListLoading:
            docs = None
        except StoreUnavailable as e:
            return NoteMentions([], unavailable=e.message)
        if docs is None:
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


def _from_read_model(names: list[str], limit: int) -> list[dict[str, Any]]:
    found: dict[str, Any] = {}
    now = utcnow_naive()
    for name in {n for n in names if len(n) >= 3}:
        try:
            page = read_list.list_page(
                notes_store(),
                NoteFilter(text=name[:500]),
                sort="updated",
                direction="desc",
                cursor=None,
                limit=limit,
                now=now,
            )
        except InvalidQuery:  # a name with no letter or digit names no word
            continue
        for note in page.items:
            found[note.note_id] = note
    newest = sorted(found.values(), key=lambda n: n.updated_at or datetime.min, reverse=True)
    return [n.to_document() for n in newest[:limit]]
