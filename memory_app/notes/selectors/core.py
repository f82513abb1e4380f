"""Reads of core.md, notes.md and the promotion candidates."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from django.conf import settings

from memory_app.notes.lib.core_suggest import core_category_suggest
from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.listing import MAX_PAGE, NoteFilter
from memory_app.notes.lib.replica import lists as read_list
from memory_app.notes.models import PromotionVerdict
from memory_app.notes.stores import core_notes, notes_store, working_notes
from qqweb.lib.errors import StoreUnavailable


@dataclass(frozen=True)
class PromotionCandidate(Note):
    """A note proposed for core.md, with the category the agent's patterns suggest."""

    suggested_category: str = ""

    @classmethod
    def of(cls, note: Note, suggested_category: str) -> PromotionCandidate:
        return replace(cls.from_document(note.to_document()), suggested_category=suggested_category)


@dataclass
class CoreView:
    core: dict[str, list[str]]
    working: dict[str, list[str]]
    candidates: list[PromotionCandidate]
    candidates_unavailable: str = ""  # why there are no candidates: MongoDB is down


def content_hash(content: str) -> str:
    return hashlib.sha256(" ".join(content.split()).lower().encode()).hexdigest()


def promotion_candidates(*, limit: int = 50) -> list[PromotionCandidate]:
    """Notes with importance >= QQ_CORE_THRESHOLD read at least 3 times, not in core.md
    and with no verdict on their current text, most important first (ties by note id,
    as the notes list sorts); each with a suggested category (``core_category_suggest``:
    "" when none fits, and the page asks to choose).

    Picked by the notes list (``read_list.list_page``: the read model's columns, or the
    MongoDB query while a small collection loads), a page at a time until ``limit`` are
    found: no query sorts the collection per request. While a large collection's read
    model loads this raises ``ListLoading`` (the page says so and shows the files); with
    MongoDB down it raises ``StoreUnavailable`` even when the read model matches none."""
    store = notes_store()
    flt = NoteFilter(min_importance=settings.QQ_CORE_THRESHOLD, min_access=3)
    core = core_notes()
    in_core = {
        " ".join(i.split()).lower() for items in core.get_all_items().values() for i in items
    }
    decided = set(PromotionVerdict.objects.values_list("note_id", "content_hash"))
    found: list[PromotionCandidate] = []
    cursor: str | None = None
    while len(found) < limit:
        page = read_list.list_page(
            store,
            flt,
            sort="importance",
            direction="desc",
            cursor=cursor,
            limit=min(limit, MAX_PAGE),  # each note read is a document fetched by id
            now=utcnow_naive(),
        )
        for note in page.items:
            text = note.content
            if (
                " ".join(text.split()).lower() in in_core
                or (note.note_id, content_hash(text)) in decided
            ):
                continue
            found.append(PromotionCandidate.of(note, core_category_suggest(text, note.section)))
            if len(found) >= limit:
                break
        cursor = page.next_cursor
        if cursor is None:
            break
    if not found:  # nothing was read from MongoDB: ask it, so an outage is said, not "none"
        store.ping()
    return found


def core_view() -> CoreView:
    """The two files, and the promotion candidates when MongoDB answers (the files are
    shown, and can be curated, while it is down)."""
    try:
        candidates, unavailable = promotion_candidates(), ""
    except StoreUnavailable as e:
        candidates, unavailable = [], e.message
    return CoreView(
        core_notes().get_all_items(), working_notes().get_all_items(), candidates, unavailable
    )
