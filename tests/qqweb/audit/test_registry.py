"""Every app registers its undo handlers with the audit app when Django starts."""

import pytest

from qqweb.audit import registry
from qqweb.audit.registry import register_undo, undo_handler, undo_role, undoable_actions


def test_every_undoable_action_is_registered_at_startup():
    assert set(undoable_actions()) == {
        "archive.purge",
        "core.add",
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
        "note.create",
        "note.edit",
        "note.keep",
        "note.restore",
        "notes.decay",
        "notes.reembed",
        "pair.merge",
        "pair.reject",
        "pair.supersede",
        "promotion.reject",
        "recall.pin",
        "recall.unpin",
        "relationship.delete",
        "relationship.edit",
        "schedule.update",
        "working.edit",
        "working.remove",
    }


def test_registering_the_same_handler_again_changes_nothing():
    handler = undo_handler("note.edit")
    assert handler is not None
    register_undo("note.edit", handler, "curator")
    assert undo_handler("note.edit") is handler
    assert undo_role("note.edit", "user:cora") == "curator"


def test_a_second_handler_for_an_action_is_refused():
    with pytest.raises(ValueError, match=r"note\.edit has an undo handler already"):
        register_undo("note.edit", lambda before, after: None)


def test_undo_needs_the_role_its_action_needed():
    admin_actions = {
        "archive.purge",
        "graph.reembed",
        "note.restore",
        "notes.decay",
        "notes.reembed",
        "schedule.update",
    }
    for action in undoable_actions():
        expected = "admin" if action in admin_actions else "curator"
        assert undo_role(action, "user:someone") == expected, action


def test_undoing_a_maintenance_jobs_change_needs_an_admin():
    assert undo_role("note.archive", "user:cora") == "curator"
    assert undo_role("note.archive", "job:archival #3") == "admin"
    assert undo_role("pair.merge", "job:auto_consolidation #4") == "admin"


def test_an_action_registered_without_a_role_needs_an_admin_to_undo(monkeypatch):
    monkeypatch.setattr(registry, "_handlers", dict(registry._handlers))
    monkeypatch.setattr(registry, "_roles", dict(registry._roles))
    register_undo("test.unlisted", lambda before, after: None)
    assert undo_role("test.unlisted", "user:cora") == "admin"
