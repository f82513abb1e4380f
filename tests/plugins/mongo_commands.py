"""Every command a test's own thread sends to the notes collection, through the app's
MongoDB client listened to (the ``recorded`` fixture, a plugin of ``tests/conftest.py``):
for tests that count or check what a page or a preview asks of MongoDB."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from pymongo import MongoClient, monitoring

from qqweb.lib import clients


class NotesCommands(monitoring.CommandListener):
    """Every command sent to the notes collection from the thread that renders (the
    vector index's follower runs on its own threads and client)."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()
        self.commands: list[dict[str, Any]] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if threading.get_ident() != self.thread or event.database_name != settings.QQ_MONGO_DB:
            return
        command = dict(event.command)
        name = event.command_name
        target = command.get(name) if name != "getMore" else command.get("collection")
        if target == settings.QQ_MONGO_COLLECTION:
            self.commands.append({"name": name, **command})

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


@pytest.fixture
def recorded(stores: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[NotesCommands]:
    """The app's MongoDB client, listened to (the cached one replaced for this test)."""
    listener = NotesCommands()
    uri, timeout = settings.MONGODB_URI, settings.QQ_STORE_TIMEOUT_MS
    client: MongoClient[dict[str, Any]] = MongoClient(
        uri,
        serverSelectionTimeoutMS=timeout,
        connectTimeoutMS=timeout,
        tz_aware=False,
        event_listeners=[listener],
    )
    monkeypatch.setitem(clients._cache, (os.getpid(), "mongo", uri, timeout), client)
    yield listener
    client.close()
