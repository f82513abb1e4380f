"""ArchiveManager: the agent's ``qq.memory.archive`` API over ``archive.jsonl``.

Archive (line first, fsynced, then the note leaves MongoDB), restore (re-embedded, with
its provenance), search, purge and stats. The file itself is :mod:`.file`; the line format
is :mod:`.entries`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..documents import effective_importance, utcnow_naive
from ..errors import MemoryLibraryError, NoteNotFound
from ..importance import ARCHIVE_THRESHOLD
from . import mongo
from .entries import ArchivedNote, archive_line_for, local_naive_iso, new_note_id, reason_kind
from .file import ArchiveFile, ArchiveLine

if TYPE_CHECKING:
    from ..embeddings import Embedder
    from ..mongo_store import MongoNotesStore

ARCHIVE_FILE = "archive.jsonl"
ARCHIVE_LOCK = "archive.lock"


@dataclass
class ArchiveReadResult:
    entries: list[dict[str, Any]] = field(default_factory=list)
    bad_lines: list[ArchiveLine] = field(default_factory=list)


class RestoreConflict(MemoryLibraryError):
    """The archived note's id exists in MongoDB; restoring would overwrite it."""

    def __init__(self, note_id: str, suggested_id: str) -> None:
        super().__init__(
            f"note {note_id!r} exists in MongoDB already; restore it under a new id "
            f"(for example {suggested_id!r}) or leave it archived"
        )
        self.note_id = note_id
        self.suggested_id = suggested_id


class ArchiveManager:
    def __init__(
        self,
        memory_dir: str | Path = "./memory",
        *,
        mongo_store: MongoNotesStore | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.memory_dir = Path(memory_dir).expanduser()
        self.archive_file = self.memory_dir / ARCHIVE_FILE
        self.lock_file = self.memory_dir / ARCHIVE_LOCK
        self.mongo_store = mongo_store
        self.embedder = embedder
        self.file = ArchiveFile(self.archive_file, self.lock_file)

    def _store(self) -> MongoNotesStore:
        if self.mongo_store is None:
            raise MemoryLibraryError("this ArchiveManager was built without a mongo_store")
        return self.mongo_store

    # --- archive ---------------------------------------------------------------------------

    def has_line(self, note_id: str, reason: str) -> bool:
        return any(
            line.entry
            and line.entry.get("note_id") == note_id
            and line.entry.get("reason") == reason
            and not line.entry.get("restored")
            for line in self.read_lines()
        )

    def archive_document(
        self, doc: dict[str, Any], reason: str, remove_from_mongo: bool = True
    ) -> bool:
        """Archive first, then delete: the line is on disk (fsynced) before the note
        leaves MongoDB, and a retry after a crash neither duplicates the line nor loses
        the note. The delete is conditional on ``updated_at``: a note the agent changed
        in between stays in MongoDB (and False is returned)."""
        note_id = str(doc["note_id"])
        if not self.has_line(note_id, reason):
            self.append_entries([archive_line_for(doc, reason)])
        if not remove_from_mongo:
            return True
        return mongo.delete_if_unchanged(self._store(), doc)

    def archive_note(self, note_id: str, reason: str, remove_from_mongo: bool = True) -> bool:
        doc = self._store().get_full_note(note_id)
        if doc is None:
            return False
        return self.archive_document(doc, reason, remove_from_mongo)

    def archive_low_importance(self, threshold: float = ARCHIVE_THRESHOLD) -> int:
        """Archive every note whose effective (decayed) importance is below ``threshold``,
        with the agent's reason ``importance_decay_<x.xxx>``."""
        store = self._store()
        now = utcnow_naive()
        archived = 0
        for doc in mongo.archival_candidates(store):
            value = effective_importance(doc, now)
            if value < threshold and self.archive_document(doc, f"importance_decay_{value:.3f}"):
                archived += 1
        return archived

    # --- restore -----------------------------------------------------------------------------

    def find_entry(self, note_id: str) -> dict[str, Any] | None:
        """The newest line for ``note_id`` that is not restored, as the entry it holds
        (one read of the file)."""
        found = None
        for line in self.read_lines():
            if (
                line.entry
                and line.entry.get("note_id") == note_id
                and not line.entry.get("restored")
            ):
                found = line.entry
        return found

    def find_line(self, note_id: str, *, include_restored: bool = False) -> ArchivedNote | None:
        matches = [
            ArchivedNote.from_line(line)
            for line in self.read_lines()
            if line.entry and line.entry.get("note_id") == note_id
        ]
        if not include_restored:
            matches = [m for m in matches if not m.restored]
        return matches[-1] if matches else None

    def restore_note(
        self, note_id: str, boost_importance: float = 0.1, *, new_id: str | None = None
    ) -> bool:
        """Bring an archived note back: re-embedded with the current embedder, with its
        ``source`` and ``source_history``. Refuses (``RestoreConflict``) when the id exists
        in MongoDB, unless ``new_id`` is given. Insert first, then mark the line restored;
        a retry after a crash finishes the marking without inserting twice."""
        archived = self.find_line(note_id)
        if archived is None:
            raise NoteNotFound(note_id)
        store = self._store()
        target = new_id or note_id
        existing = store.get_full_note(target)
        if existing is not None and not _is_restore_of(existing, archived):
            raise RestoreConflict(target, new_note_id())
        if existing is None:
            store.insert_agent_documents(
                [self._restored_document(archived, target, boost_importance, utcnow_naive())]
            )
        self._mark_restored(archived.line_number)
        return True

    def _restored_document(
        self, archived: ArchivedNote, target: str, boost: float, now: datetime
    ) -> dict[str, Any]:
        embedding: list[float] = []
        if self.embedder is not None:
            embedding = [float(x) for x in self.embedder.embed([archived.content])[0]]
        created = now
        if archived.original_created_at:
            try:
                created = datetime.fromisoformat(archived.original_created_at).replace(tzinfo=None)
            except ValueError:
                created = now
        metadata = {
            **archived.metadata,
            "restored_from_archive": True,
            "restored_at": local_naive_iso(),
        }
        if target != archived.note_id:
            metadata["restored_from_note_id"] = archived.note_id
        doc: dict[str, Any] = {
            "note_id": target,
            "content": archived.content,
            "embedding": embedding,
            "section": archived.section,
            "metadata": metadata,
            "importance": round(min(1.0, archived.importance + boost), 6),
            "decay_rate": 0.01,
            "access_count": archived.access_count,
            "created_at": created,
            "updated_at": now,
            "last_accessed": None,
        }
        if archived.source:
            doc["source"] = archived.source
        if archived.source_history:
            doc["source_history"] = archived.source_history
        return doc

    def _mark_restored(self, line_number: int) -> None:
        stamp = local_naive_iso()

        def mark(entry: dict[str, Any]) -> dict[str, Any]:
            return {**entry, "restored": True, "restored_at": stamp}

        self.file.rewrite(
            lambda line: mark(line.entry) if line.number == line_number and line.entry else line
        )

    def drop_line(self, entry: dict[str, Any]) -> int:
        """Remove the line equal to ``entry`` (undo of an archive). Returns lines dropped."""
        return self.drop_entries([entry])

    def drop_entries(self, entries: list[dict[str, Any]]) -> int:
        """Remove exactly the lines equal to ``entries``, in one rewrite under the lock."""
        wanted = {json.dumps(e, sort_keys=True) for e in entries}
        return self.file.rewrite(
            lambda line: (
                None
                if line.entry is not None and json.dumps(line.entry, sort_keys=True) in wanted
                else line
            )
        )

    def unmark_restored(self, note_id: str, archived_at: str) -> int:
        """Undo of a restore: the line is an archived (not restored) note again."""

        def unmark(line: ArchiveLine) -> Any:
            e = line.entry
            if (
                e
                and e.get("note_id") == note_id
                and e.get("archived_at") == archived_at
                and e.get("restored")
            ):
                return {k: v for k, v in e.items() if k not in ("restored", "restored_at")}
            return line

        return self.file.rewrite(unmark)

    # --- search, purge -------------------------------------------------------------------------

    def search_archive(
        self, query: str, limit: int = 10, include_restored: bool = False
    ) -> list[ArchivedNote]:
        needle = query.strip().lower()
        found = []
        for line in reversed(self.read_lines()):
            if line.entry is None:
                continue
            note = ArchivedNote.from_line(line)
            if note.restored and not include_restored:
                continue
            if needle in note.content.lower() or needle == note.note_id.lower():
                found.append(note)
                if len(found) >= limit:
                    break
        return found

    def purge_old_archives(self, days: int = 90, *, dry_run: bool = False) -> int:
        """Drop lines archived more than ``days`` ago, restored or not. Unparseable lines
        are kept. The file is rewritten through a temp file under the lock."""
        cutoff = datetime.now() - timedelta(days=int(days))

        def old(line: ArchiveLine) -> bool:
            stamp = (line.entry or {}).get("archived_at")
            try:
                return (
                    line.entry is not None
                    and datetime.fromisoformat(str(stamp)).replace(tzinfo=None) < cutoff
                )
            except ValueError:
                return False

        if dry_run:
            return sum(1 for line in self.read_lines() if old(line))
        return self.file.rewrite(lambda line: None if old(line) else line)

    def append_entries(self, entries: list[dict[str, Any]]) -> int:
        """Append complete archive lines under the lock, fsynced before returning."""
        return self.file.append(entries)

    def read_lines(self) -> list[ArchiveLine]:
        return self.file.read_lines()

    def read(self) -> ArchiveReadResult:
        result = ArchiveReadResult()
        for line in self.read_lines():
            if line.entry is None:
                result.bad_lines.append(line)
            else:
                result.entries.append(line.entry)
        return result

    def get_archive_stats(self) -> dict[str, Any]:
        """``{total, by_reason, oldest, newest}`` as in the seed, plus restored / unreadable."""
        read = self.read()
        reasons: Counter[str] = Counter()
        stamps: list[str] = []
        for entry in read.entries:
            reason = str(entry.get("reason", ""))
            reasons[reason_kind(reason)] += 1
            if isinstance(entry.get("archived_at"), str):
                stamps.append(entry["archived_at"])
        return {
            "total": len(read.entries),
            "by_reason": dict(reasons),
            "oldest": min(stamps) if stamps else None,
            "newest": max(stamps) if stamps else None,
            "restored": sum(1 for e in read.entries if e.get("restored")),
            "unreadable_lines": len(read.bad_lines),
        }


def _is_restore_of(doc: dict[str, Any], archived: ArchivedNote) -> bool:
    """True when ``doc`` is this archived note, restored by an earlier (interrupted) try."""
    metadata = doc.get("metadata") or {}
    return bool(metadata.get("restored_from_archive")) and doc.get("content") == archived.content
