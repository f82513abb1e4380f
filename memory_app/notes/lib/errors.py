"""Errors raised by the notes library about notes. A store that does not answer, or refuses,
raises the kernel's ``StoreUnavailable`` / ``StoreError`` (``qqweb.lib.errors``), driver
errors re-raised as these ``from`` the original, so callers never need to know pymongo's
exception tree. Each is a kind of
``qqweb.lib.errors.QQError`` (its ``status`` and ``code`` say how a front door answers it)."""

from __future__ import annotations

from qqweb.lib.errors import Conflict, InvalidInput, NotFound, QQError


class MemoryLibraryError(QQError):
    """Base class of every error the memory library raises on purpose."""


class NoteNotFound(MemoryLibraryError, NotFound):
    def __init__(self, note_id: str) -> None:
        super().__init__(f"note {note_id!r} does not exist")
        self.note_id = note_id

    def details(self) -> dict[str, object]:
        return {"note_id": self.note_id}


class InvalidNote(MemoryLibraryError, InvalidInput):
    """A note or a field of one (an archive line, a core.md item) does not fit the agent's
    data contract (400). A list filter, sort or cursor is an :class:`InvalidQuery`, a
    backup file name an :class:`InvalidBackupFile`, anything else the caller sent a plain
    ``qqweb.lib.errors.InvalidInput`` or an app's own kind of it."""


class InvalidQuery(MemoryLibraryError, InvalidInput):
    """A list filter, sort, cursor, search text or count of days the store cannot take
    (400), naming it."""


class InvalidBackupFile(MemoryLibraryError, InvalidInput):
    """A name that is not a file of the memory directory or of the backup directory (400)."""


class StaleWrite(MemoryLibraryError, Conflict):
    """An edit was made on a copy older than the note in the store (409)."""

    code = "stale"

    def __init__(self, note_id: str, current: dict[str, object] | None = None) -> None:
        super().__init__(
            f"note {note_id!r} was changed by someone else (the agent, or another curator) "
            "after you loaded it; reload it and make your change again"
        )
        self.note_id = note_id
        self.current = current

    def details(self) -> dict[str, object]:
        return {"note_id": self.note_id}
