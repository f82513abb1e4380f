"""Moving a database through its migrations, for the tests of a model that moved app
without moving its table (the audit log, the runs and job locks)."""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

Targets = list[tuple[str, str | None]]


def migrate(targets: Targets) -> MigrationExecutor:
    """Migrate the test database to ``targets`` (an app at ``None``: unapplied)."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor


def leaf_migrations() -> Targets:
    """Every app's last migration: where a test puts the database back."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes()
