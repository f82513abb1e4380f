"""A dry run's plan read a page at a time, in the database.

``Run.plan`` is one JSON array (an item per note a destructive job would change); a
plan of a large memory holds thousands. The run page and the API list it a page at a
time, and a page reads only its own items: the slice is taken in the database
(SQLite's ``json_each``, PostgreSQL's ``jsonb_array_elements``), so the rows sent to
Python are the page's, whatever the plan's size, and the count is the database's
``json_array_length`` (or the run's ``plan_size``)."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from django.db import connection

from qqweb.jobs.models import Run

_TABLE = Run._meta.db_table

_SLICE = {
    "sqlite": (
        f"SELECT e.value FROM {_TABLE} AS r, json_each(r.plan) AS e "  # noqa: S608 (a constant)
        "WHERE r.id = %s AND e.key >= %s AND e.key < %s ORDER BY e.key"
    ),
    "postgresql": (
        f"SELECT e.value FROM {_TABLE} AS r, "  # noqa: S608 (a constant)
        "jsonb_array_elements(r.plan) WITH ORDINALITY AS e(value, n) "
        "WHERE r.id = %s AND e.n > %s AND e.n <= %s ORDER BY e.n"
    ),
}
_NAMING = {  # the items whose note_id or other_id is among the ids given (a JSON array)
    "sqlite": (
        f"SELECT e.value FROM {_TABLE} AS r, json_each(r.plan) AS e "  # noqa: S608 (a constant)
        "WHERE r.id = %s AND (json_extract(e.value, '$.note_id') IN (SELECT value FROM "
        "json_each(%s)) OR json_extract(e.value, '$.other_id') IN (SELECT value FROM "
        "json_each(%s))) ORDER BY e.key"
    ),
    "postgresql": (
        f"SELECT e.value FROM {_TABLE} AS r, "  # noqa: S608 (a constant)
        "jsonb_array_elements(r.plan) WITH ORDINALITY AS e(value, n) "
        "WHERE r.id = %s AND (e.value->>'note_id' IN (SELECT jsonb_array_elements_text(%s::jsonb)) "
        "OR e.value->>'other_id' IN (SELECT jsonb_array_elements_text(%s::jsonb))) ORDER BY e.n"
    ),
}
_LENGTH = {
    "sqlite": f"SELECT json_array_length(plan) FROM {_TABLE} WHERE id = %s",  # noqa: S608
    "postgresql": f"SELECT jsonb_array_length(plan) FROM {_TABLE} WHERE id = %s",  # noqa: S608
}


def plan_slice(*, run_id: int, offset: int, limit: int) -> list[dict[str, Any]]:
    """The items ``offset`` to ``offset + limit`` of the run's plan, as stored (JSON)."""
    if limit <= 0:
        return []
    sql = _SLICE[connection.vendor]
    with connection.cursor() as cursor:
        cursor.execute(sql, [run_id, offset, offset + limit])
        rows = cursor.fetchall()
    return [value if isinstance(value, dict) else json.loads(value) for (value,) in rows]


def plan_items_naming(*, run_id: int, note_ids: Collection[str]) -> list[dict[str, Any]]:
    """The items of the run's plan that name one of ``note_ids`` (as ``note_id``, or a
    pair's ``other_id``), as stored: the plan is searched in the database, and only those
    items come back (what changed since a plan, of a plan of thousands)."""
    if not note_ids:
        return []
    ids = json.dumps(sorted(note_ids))
    with connection.cursor() as cursor:
        cursor.execute(_NAMING[connection.vendor], [run_id, ids, ids])
        rows = cursor.fetchall()
    return [value if isinstance(value, dict) else json.loads(value) for (value,) in rows]


def plan_length(*, run: Run) -> int:
    """How many items the run's plan holds (its ``plan_size``, else counted in SQL)."""
    if run.plan_size is not None:
        return run.plan_size
    with connection.cursor() as cursor:
        cursor.execute(_LENGTH[connection.vendor], [run.pk])
        row = cursor.fetchone()
    return int(row[0] or 0) if row else 0
