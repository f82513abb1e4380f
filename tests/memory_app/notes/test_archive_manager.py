"""ArchiveManager against the real MongoDB and file: a restore marks its own line whatever
a purge or an undo did to the file meanwhile."""

import json
from collections.abc import Callable

import pytest

from memory_app.notes.lib import ArchiveManager, NoteNotFound
from memory_app.notes.lib.archive import ArchiveLineGone
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.lib.embeddings import HashingEmbedder
from tests.helpers import agent_archive_line as agent_line


@pytest.fixture
def three_lines(stores):
    """An old line, then the one to restore, then a newer one."""
    manager = archive_manager()
    manager.append_entries(
        [
            agent_line("note_0000000000a1", days_ago=200),
            agent_line("note_0000000000a2", days_ago=3),
            agent_line("note_0000000000a3", days_ago=2),
        ]
    )
    return manager


class EmbedderWithHook:
    """The real (hashing) embedder; runs ``hook`` on its first call, which a restore makes
    after it read the line and before it marks it."""

    def __init__(self, hook: Callable[[], object]) -> None:
        self.inner = HashingEmbedder(384)
        self.hook: Callable[[], object] | None = hook

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts):
        if self.hook is not None:
            hook, self.hook = self.hook, None
            hook()
        return self.inner.embed(texts)


def lines_of(manager: ArchiveManager) -> list[str]:
    return manager.archive_file.read_text().splitlines()


def test_a_restore_marks_its_own_line_after_a_purge_dropped_an_earlier_one(three_lines):
    archived = three_lines.find_line("note_0000000000a2")
    assert archived.line_number == 2
    assert three_lines.purge_old_archives(90) == 1  # line 1 goes: ours is line 1 now
    newer = lines_of(three_lines)[1]

    three_lines.restore(archived)

    marked, after = lines_of(three_lines)
    assert json.loads(marked)["note_id"] == "note_0000000000a2"
    assert json.loads(marked)["restored"] is True
    assert after == newer  # the newer line is untouched, byte for byte
    assert notes_store().get_full_note("note_0000000000a2")["content"] == archived.content


def test_the_seed_restore_marks_its_own_line_when_a_purge_runs_between_find_and_mark(
    three_lines, stores
):
    before = lines_of(three_lines)
    purger = ArchiveManager(stores["memory_dir"])
    manager = ArchiveManager(
        stores["memory_dir"],
        mongo_store=notes_store(),
        embedder=EmbedderWithHook(lambda: purger.purge_old_archives(90)),
    )

    assert manager.restore_note("note_0000000000a2")

    marked, after = lines_of(manager)
    assert json.loads(marked) == {
        **json.loads(before[1]),
        "restored": True,
        "restored_at": json.loads(marked)["restored_at"],
    }
    assert after == before[2]
    assert notes_store().get_full_note("note_0000000000a3") is None


def test_a_restore_whose_line_was_dropped_meanwhile_is_taken_back_and_says_so(three_lines, stores):
    target = three_lines.find_line("note_0000000000a2")
    dropper = ArchiveManager(stores["memory_dir"])
    manager = ArchiveManager(
        stores["memory_dir"],
        mongo_store=notes_store(),
        embedder=EmbedderWithHook(lambda: dropper.drop([target])),
    )
    before = [line for line in lines_of(three_lines) if "note_0000000000a2" not in line]

    with pytest.raises(ArchiveLineGone, match=r"removed from archive\.jsonl") as gone:
        manager.restore_note("note_0000000000a2")

    assert isinstance(gone.value, NoteNotFound)
    assert "taken back" in str(gone.value)
    assert notes_store().get_full_note("note_0000000000a2") is None
    assert lines_of(manager) == before  # nothing else marked or changed


def test_a_restored_line_is_not_marked_twice(three_lines):
    archived = three_lines.find_line("note_0000000000a2")
    three_lines.restore(archived)
    restored_line = lines_of(three_lines)[1]
    notes_store().delete_note("note_0000000000a2")

    with pytest.raises(ArchiveLineGone):
        three_lines.restore(archived)  # a stale copy: its line is restored already

    assert lines_of(three_lines)[1] == restored_line
    assert notes_store().get_full_note("note_0000000000a2") is None
    assert three_lines.find_line("note_0000000000a2") is None
