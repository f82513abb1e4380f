"""Every app registers its undo handlers with the audit app when Django starts."""

import pytest

from qqweb.audit.registry import register_undo, undo_handler, undoable_actions


def test_every_undoable_action_is_registered_at_startup():
    assert set(undoable_actions()) == {
        "archive.purge",
        "core.promote",
        "core.remove",
        "entity.delete",
        "entity.edit",
        "entity.merge",
        "entity.rename",
        "entity_pair.verdict",
        "fact.create",
        "fact.delete",
        "fact.edit",
        "fact.embed",
        "fact.pair.delete-both",
        "fact.pair.keep-newer-text",
        "fact.pair.keep-older",
        "fact.restore",
        "fact.verdict",
        "graph.reembed",
        "note.archive",
        "note.edit",
        "note.restore",
        "notes.decay",
        "notes.reembed",
        "pair.merge",
        "pair.reject",
        "promotion.reject",
        "relationship.delete",
        "relationship.edit",
        "working.edit",
        "working.remove",
    }


def test_registering_the_same_handler_again_changes_nothing():
    handler = undo_handler("note.edit")
    assert handler is not None
    register_undo("note.edit", handler)
    assert undo_handler("note.edit") is handler


def test_a_second_handler_for_an_action_is_refused():
    with pytest.raises(ValueError, match=r"note\.edit has an undo handler already"):
        register_undo("note.edit", lambda before, after: None)
