"""The Overview's numbers and pictures answered from the read model (``replica/read_model.py``):
pure functions of its columns, vectorised, no MongoDB query.

Each answers what the pass over every document answered before (``tests/memory_app/
test_read_model.py`` compares them on planted data after every kind of write):

- notes per section, as the database's ``$group`` on ``section`` (no section and an empty
  one are the same "no section" here);
- the stored-importance histogram, as the database's ``$bucket``;
- the effective (decayed) importance at ``now`` and some days on, bucketed as
  ``np.histogram`` over [0, 1] after clipping, and the archive what-if: how many notes
  are below the threshold now;
- notes per source type ("(no source)" when there is none), the most used source files,
  notes created per week back from ``now``.

Ties in the source counts are broken by name (the scan's order before was the
collection's order, which no user could rely on).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from memory_app.notes.lib.replica.read_model import ReadModel

NO_SOURCE = "(no source)"
DECAY_DAYS = (0, 7, 30, 90)


@dataclass(frozen=True)
class ReadPictures:
    """The Overview's pictures as plain counts (the selector turns them into charts)."""

    total: int
    stored: list[int]  # stored importance, ``bins`` buckets over [0, 1]
    effective: dict[int, list[int]]  # days from now -> effective importance, same buckets
    would_archive: int
    by_source_type: list[tuple[str, int]]
    top_files: list[tuple[str, int]]
    per_week: list[int]  # notes created ``weeks - 1`` .. 0 weeks ago, oldest first


def _live(model: ReadModel) -> np.ndarray:
    return model.live[: model.size]


def section_counts(model: ReadModel) -> dict[str | None, int]:
    """Notes per section (``None``: no section), as ``count_by_section`` groups them."""
    codes = model.columns["section"][: model.size][_live(model)]
    counts = np.bincount(codes + 1, minlength=len(model.tables["section"]) + 1)
    out: dict[str | None, int] = {}
    if counts[0]:
        out[None] = int(counts[0])
    for code, name in enumerate(model.tables["section"]):
        if counts[code + 1]:
            out[name] = int(counts[code + 1])
    return out


def _named_counts(model: ReadModel, table: str, empty: str | None) -> list[tuple[str, int]]:
    """(name, count) of a coded column, most first then by name; ``empty`` names the
    notes with no value (left out when None)."""
    codes = model.columns[table][: model.size][_live(model)]
    counts = np.bincount(codes + 1, minlength=len(model.tables[table]) + 1)
    rows = [(model.tables[table][c], int(n)) for c, n in enumerate(counts[1:].tolist()) if n]
    if empty is not None and counts[0]:
        rows.append((empty, int(counts[0])))
    return sorted(rows, key=lambda row: (-row[1], row[0]))


def weeks_created(model: ReadModel, now: datetime, weeks: int) -> list[int]:
    """Notes created in each of the last ``weeks`` weeks, oldest first (a note with no
    creation date, or created after ``now``, is in none)."""
    return model.created_per_week(now, weeks)


def would_archive(model: ReadModel, threshold: float, now: datetime) -> int:
    """How many notes the next archival pass would take: effective importance below
    ``threshold`` at ``now``."""
    return int((model.effective_importance(now) < threshold).sum())


def read_pictures(
    model: ReadModel, *, now: datetime, threshold: float, bins: int = 10, weeks: int = 26
) -> ReadPictures:
    """Every picture of the Overview, from the columns; the effective importance's
    buckets and the notes per week from what the read model keeps up to date
    (``replica/effective.py``), not a pass over every note."""
    days = {d: now + timedelta(days=d) for d in DECAY_DAYS}
    return ReadPictures(
        total=int(_live(model).sum()),
        stored=model.importance_histogram(bins=bins),  # kept up to date
        effective={d: model.effective_histogram(at, bins) for d, at in days.items()},
        would_archive=would_archive(model, threshold, now),
        by_source_type=_named_counts(model, "source_type", NO_SOURCE),
        top_files=_named_counts(model, "source_file", None)[:10],
        per_week=weeks_created(model, now, weeks),
    )
