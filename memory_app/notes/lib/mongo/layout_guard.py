"""The notes store's side of the layout guard (``memory/layouts.py``): the collection the
store hands its modules refuses every write and index command while the collection holds
the facts agent's layout (or a mix with it).

One hook, in :attr:`MongoBase.collection`; the check is one short sampled read, made
before the first write of a process and remembered once the collection is seen to hold
qq's notes, so it costs nothing per write after that. An empty collection is sampled again
at the next write (it is cheap) until it holds notes.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from pymongo.collection import Collection

from qqweb.lib.mongo.layouts import Layout, WrongLayout, sample_layout

_verified: weakref.WeakKeyDictionary[Any, set[tuple[str, str]]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def require_notes_layout(collection: Collection[Any]) -> None:
    """Raise :class:`WrongLayout` unless ``collection`` holds qq notes or nothing."""
    client = collection.database.client
    key = (collection.database.name, collection.name)
    with _lock:
        if key in _verified.get(client, ()):
            return
    verdict = sample_layout(Collection(collection.database, collection.name))
    if verdict.layout is Layout.QQ_NOTES:
        with _lock:
            _verified.setdefault(client, set()).add(key)
        return
    if verdict.layout is Layout.EMPTY:
        return
    if verdict.counts.get(Layout.FACTS.value):
        raise WrongLayout(Layout.QQ_NOTES, f"{key[0]}.{key[1]}", verdict)
    # Documents neither layout claims (and no facts): not the facts agent's collection,
    # so the notes store keeps its former behaviour.


def _guarded(name: str) -> Any:
    def method(self: LayoutGuardedCollection, *args: Any, **kwargs: Any) -> Any:
        require_notes_layout(self)
        return getattr(Collection, name)(self, *args, **kwargs)

    method.__name__ = name
    return method


class LayoutGuardedCollection(Collection[Any]):
    """A pymongo collection whose write and index commands first check the layout."""

    insert_one = _guarded("insert_one")
    insert_many = _guarded("insert_many")
    update_one = _guarded("update_one")
    update_many = _guarded("update_many")
    replace_one = _guarded("replace_one")
    delete_one = _guarded("delete_one")
    delete_many = _guarded("delete_many")
    bulk_write = _guarded("bulk_write")
    find_one_and_update = _guarded("find_one_and_update")
    find_one_and_replace = _guarded("find_one_and_replace")
    find_one_and_delete = _guarded("find_one_and_delete")
    create_index = _guarded("create_index")
    create_indexes = _guarded("create_indexes")
    drop_index = _guarded("drop_index")
    drop_indexes = _guarded("drop_indexes")
    drop = _guarded("drop")
    rename = _guarded("rename")
