"""ArchiveManager: the agent's ``qq.memory.archive`` API over ``archive.jsonl``.

Archive (line first, fsynced, then the note leaves MongoDB), restore (re-embedded, with
its provenance), search, purge and stats. The file itself is :mod:`.file`; the line format
is :mod:`.entries`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_app.notes.lib.archive.entries import (
    ArchivedNote,
    ArchiveLine,
    local_naive_iso,
    new_note_id,
)
from memory_app.notes.lib.archive.file import ArchiveFile, parse_line
from memory_app.notes.lib.archive.restore import (
    ArchiveLineGone,
    RestoreConflict,
    is_restore_of,
    restored_document,
)
from memory_app.notes.lib.archive.stats import ArchiveSummary, archive_stats_cache
from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.errors import InvalidQuery, MemoryLibraryError, NoteNotFound
from memory_app.notes.lib.importance import ARCHIVE_THRESHOLD
from qqweb.lib.embeddings import embed_keeping_dimension, require_dimension
from qqweb.lib.mongo.safe_values import stored_value_problem

if TYPE_CHECKING:
    from memory_app.notes.lib.mongo_store import MongoNotesStore
    from qqweb.lib.embeddings import Embedder

ArchivedLineAt = tuple[int, ArchivedNote | ArchiveLine]  # byte offset, the line read

ARCHIVE_FILE = "archive.jsonl"
ARCHIVE_LOCK = "archive.lock"


@dataclass(frozen=True)
class PurgePlan:
    """What a purge drops: the lines archived before ``cutoff``, as read."""

    days: int
    cutoff: datetime
    lines: list[ArchivedNote]


@dataclass
class ArchiveReadResult:
    notes: list[ArchivedNote] = field(default_factory=list)
    bad_lines: list[ArchiveLine] = field(default_factory=list)

    @property
    def entries(self) -> list[dict[str, Any]]:
        """The notes as the dicts written to the file."""
        return [note.to_entry() for note in self.notes]


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
            note.note_id == note_id and note.reason == reason and not note.restored
            for note in self.read().notes
        )

    def archive_document(
        self, doc: Mapping[str, Any], reason: str, remove_from_mongo: bool = True
    ) -> bool:
        """Archive first, then delete: the line is on disk (fsynced) before the note
        leaves MongoDB, and a retry after a crash neither duplicates the line nor loses
        the note. The delete is conditional on ``updated_at``: a note the agent changed
        in between stays in MongoDB (and False is returned)."""
        if not self.has_line(str(doc["note_id"]), reason):
            self.append([ArchivedNote.from_document(doc, reason)])
        if not remove_from_mongo:
            return True
        return self._store().delete_if_unchanged(str(doc["note_id"]), doc.get("updated_at", ...))

    def archive_note(self, note_id: str, reason: str, remove_from_mongo: bool = True) -> bool:
        doc = self._store().get_full_note(note_id)
        if doc is None:
            return False
        return self.archive_document(doc, reason, remove_from_mongo)

    def archive_low_importance(self, threshold: float = ARCHIVE_THRESHOLD) -> int:
        """Archive every note whose effective (decayed) importance is below ``threshold``,
        with the agent's reason ``importance_decay_<x.xxx>``."""
        store = self._store()
        archived = 0
        for note_id, value in store.archival_candidates(threshold, utcnow_naive()):
            doc = store.get_full_note(note_id)
            if doc is not None and self.archive_document(doc, f"importance_decay_{value:.3f}"):
                archived += 1
        return archived

    # --- restore -----------------------------------------------------------------------------

    def find_line(self, note_id: str, *, include_restored: bool = False) -> ArchivedNote | None:
        """The newest line of ``note_id`` (not restored, unless asked): its lines read where
        the statistics' index says they are; the whole file read once only when a line is
        no longer where it was (the file changed in between)."""
        cache = archive_stats_cache(self.archive_file, self.lock_file)
        for offset in reversed(cache.offsets_of(note_id)):
            line = self.file.line_at(offset)
            if line is None or line.entry is None or line.entry.get("note_id") != note_id:
                break  # moved since: read it all
            note = ArchivedNote.from_entry(line.entry, cache.line_number(offset))
            if include_restored or not note.restored:
                return note
        else:
            return None
        matches = [
            note
            for note in self.read().notes
            if note.note_id == note_id and (include_restored or not note.restored)
        ]
        return matches[-1] if matches else None

    def restore_note(
        self, note_id: str, boost_importance: float = 0.1, *, new_id: str | None = None
    ) -> bool:
        """Bring the newest archived line of ``note_id`` back (see :meth:`restore`)."""
        archived = self.find_line(note_id)
        if archived is None:
            raise NoteNotFound(note_id)
        self.restore(archived, boost_importance, new_id=new_id)
        return True

    def restore(
        self,
        archived: ArchivedNote,
        boost_importance: float = 0.1,
        *,
        new_id: str | None = None,
        keep_until: datetime | None = None,
    ) -> Note:
        """Bring back the note read as ``archived``: re-embedded with the current embedder,
        with its ``source`` and ``source_history``. Returns the note in MongoDB.

        Refuses (``RestoreConflict``) when the id exists in MongoDB, unless ``new_id`` is
        given. Insert first, then mark that very line restored, found again under the lock
        by its ``note_id`` and ``archived_at`` (a purge or an undo may have moved it since
        it was read); a retry after a crash finishes the marking without inserting twice.
        ``keep_until``: the restored note's grace period from archival (:mod:`..grace`).
        When the line is gone by then, the note this call inserted is taken out again and
        ``ArchiveLineGone`` (a ``NoteNotFound``) is raised."""
        store = self._store()
        target = new_id or archived.note_id
        existing = store.note(target)
        if existing is not None and not is_restore_of(existing, archived):
            raise RestoreConflict(target, new_note_id())
        note = existing
        if note is None:
            embedding = self._embed(archived.content, target)
            doc = restored_document(
                archived, target, boost_importance, embedding, utcnow_naive(), keep_until
            )
            if not store.insert_agent_documents([doc]):  # the agent wrote that id meanwhile
                raise RestoreConflict(target, new_note_id())
            note = Note.from_document(doc)
        if not self._mark_restored(archived):
            taken_back = existing is None and store.delete_if_unchanged(
                note.note_id, note.updated_at
            )
            raise ArchiveLineGone(archived.note_id, archived.archived_at, taken_back=taken_back)
        return note

    def check_embedder(self, note_id: str) -> None:
        """Refuse (``EmbeddingDimensionConflict``), before anything is written, a restore
        whose re-embedding would not have the dimension of the vectors in the collection
        (an archived line keeps no vector: the dominant dimension is the one to keep)."""
        if self.embedder is not None:
            require_dimension(
                self.embedder, self._store().dominant_dimension(), what=self._what(note_id)
            )

    def _embed(self, text: str, note_id: str) -> list[float]:
        """The restored note's vector, of the collection's dominant dimension (refused
        otherwise: the agent would lose the note from its search)."""
        if self.embedder is None:
            return []
        stored = self._store().dominant_dimension()
        return embed_keeping_dimension(self.embedder, text, stored, what=self._what(note_id))

    @staticmethod
    def _what(note_id: str) -> str:
        return f"the notes collection (where {note_id!r} would be restored)"

    def _mark_restored(self, archived: ArchivedNote) -> bool:
        """Mark the line ``archived`` was read from restored, in one rewrite under the lock.
        False (and nothing written) when no line of it is left unrestored."""
        stamp = local_naive_iso()
        found = False

        def mark(lines: list[ArchiveLine]) -> list[ArchiveLine | dict[str, Any]]:
            nonlocal found
            out: list[ArchiveLine | dict[str, Any]] = list(lines)
            for index in reversed(range(len(lines))):  # the newest, as find_line picks
                line = lines[index]
                if line.entry is None:
                    continue
                note = ArchivedNote.from_line(line)
                if note.same_line_as(archived) and not note.restored:
                    out[index] = {**line.entry, "restored": True, "restored_at": stamp}
                    found = True
                    break
            return out

        self.file.rewrite(mark)
        return found

    def unmark_restored(self, note_id: str, archived_at: str) -> int:
        """Undo of a restore: the line is an archived (not restored) note again. Returns
        how many lines changed."""
        changed = 0

        def unmark(lines: list[ArchiveLine]) -> list[ArchiveLine | dict[str, Any]]:
            nonlocal changed
            out: list[ArchiveLine | dict[str, Any]] = []
            for line in lines:
                e = line.entry
                if (
                    e is not None
                    and e.get("note_id") == note_id
                    and e.get("archived_at") == archived_at
                    and ArchivedNote.from_line(line).restored
                ):
                    changed += 1
                    out.append({k: v for k, v in e.items() if k not in _RESTORE_KEYS})
                else:
                    out.append(line)
            return out

        self.file.rewrite(unmark)
        return changed

    # --- write lines ---------------------------------------------------------------------------

    def append(self, notes: Sequence[ArchivedNote]) -> int:
        """Append these notes' lines under the lock, fsynced before returning."""
        return self.file.append([note.to_entry() for note in notes])

    def append_entries(self, entries: Sequence[Mapping[str, Any]]) -> int:
        """Append lines given as the dicts to write, as they are (checked, not normalised):
        what the agent writes, or lines kept in an audit event."""
        return self.file.append(entries)

    def drop(self, notes: Sequence[ArchivedNote]) -> list[ArchivedNote]:
        """Remove the lines equal to ``notes`` (one line for each note given, the newest
        when several are equal), in one rewrite under the lock. Returns the notes of the
        lines removed; a note no line equals any more is not in it."""
        wanted = Counter(note.key for note in notes)
        dropped: list[ArchivedNote] = []

        def remove(lines: list[ArchiveLine]) -> list[ArchiveLine]:
            kept: list[ArchiveLine] = []
            for line in reversed(lines):
                note = ArchivedNote.from_line(line) if line.entry is not None else None
                if note is not None and wanted[note.key] > 0:
                    wanted[note.key] -= 1
                    dropped.append(note)
                else:
                    kept.append(line)
            return kept[::-1]

        self.file.rewrite(remove)
        return dropped[::-1]

    # --- search, purge -------------------------------------------------------------------------

    def search_archive(
        self, query: str, limit: int = 10, include_restored: bool = False
    ) -> list[ArchivedNote]:
        needle = query.strip().lower()
        found = []
        for note in reversed(self.read().notes):
            if note.restored and not include_restored:
                continue
            if needle in note.content.lower() or needle == note.note_id.lower():
                found.append(note)
                if len(found) >= limit:
                    break
        return found

    def purge_old_archives(self, days: int = 90, *, dry_run: bool = False) -> int:
        """Drop lines archived more than ``days`` ago, restored or not; unparseable lines
        are kept. Returns how many lines were (or, in a dry run, would be) dropped. The
        purge service runs the same two steps, with its audit event in between."""
        plan = self.plan_purge(days)
        if dry_run:
            return len(plan.lines)
        return len(self.apply_purge(plan))

    def plan_purge(self, days: int) -> PurgePlan:
        """The lines archived more than ``days`` ago (naive local time, as the agent
        stamps them), restored or not. A line whose stamp cannot be read is never old; nor
        is one holding what no stored document may (``stored_value_problem``: a number
        that is not finite, a NUL ...): the purge's audit event keeps the lines it drops,
        for its undo, and could not keep that one. It stays, as an unreadable line does."""
        if not isinstance(days, int) or isinstance(days, bool) or days < 0:
            raise InvalidQuery("days", "must be a whole number of days, 0 or more")
        cutoff = datetime.now() - timedelta(days=days)
        old = [
            note
            for note in self.read().notes
            if note.archived_before(cutoff) and not stored_value_problem(note.to_entry())
        ]
        return PurgePlan(days=days, cutoff=cutoff, lines=old)

    def apply_purge(self, plan: PurgePlan) -> list[ArchivedNote]:
        """Drop exactly the planned lines, in one rewrite under the lock. A line that
        changed since the plan (a restore marked it) or left is not dropped: the result
        says which were."""
        return self.drop(plan.lines)

    # --- read ----------------------------------------------------------------------------------

    def read_lines(self) -> list[ArchiveLine]:
        return self.file.read_lines()

    def read(self) -> ArchiveReadResult:
        """Every line of the file (jobs and writes; a page reads :meth:`newest_lines`)."""
        result = ArchiveReadResult()
        for line in self.read_lines():
            if line.entry is None:
                result.bad_lines.append(line)
            else:
                result.notes.append(ArchivedNote.from_line(line))
        return result

    def summary(self) -> ArchiveSummary:
        """The file's figures, kept per file (:mod:`.stats`): read again only when it
        changed, and then only its new end when lines were appended."""
        return archive_stats_cache(self.archive_file, self.lock_file).counts()

    def newest_lines(self, before: int | None, budget: int) -> tuple[Iterator[ArchivedLineAt], int]:
        """About ``budget`` bytes of lines before byte ``before`` (None: the end), newest
        first, each parsed and numbered as it is taken: ``(offset, note or unreadable
        line)``; and where the reading stopped (0: the start of the file)."""
        cache = archive_stats_cache(self.archive_file, self.lock_file)
        cache.counts()  # the line numbers as of now
        lines, start = self.file.lines_before(before, budget)

        def parsed() -> Iterator[ArchivedLineAt]:
            for offset, data in lines:
                line = parse_line(cache.line_number(offset), data)
                if line.entry is None:
                    yield offset, line
                else:
                    yield offset, ArchivedNote.from_line(line)

        return parsed(), start

    def get_archive_stats(self) -> dict[str, Any]:
        """``{total, by_reason, oldest, newest}`` as in the seed, plus restored / unreadable;
        kept per file (:mod:`.stats`): the file is read again only when it changed."""
        return archive_stats_cache(self.archive_file, self.lock_file).stats()


_RESTORE_KEYS = ("restored", "restored_at")
