"""Reads over the memory stores, shaped for pages and the API."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memory_app.memory import MemoryLibraryError, StoreUnavailable
from memory_app.memory.constants import CORE_CATEGORIES, SECTIONS
from memory_app.stores import archive_manager, core_notes, notes_store, working_notes
from qqweb.clients import embedder


@dataclass
class MemoryOverview:
    notes_total: int | None = None
    notes_by_section: list[tuple[str, int]] = field(default_factory=list)
    archive: dict[str, Any] | None = None
    core_by_category: list[tuple[str, int]] = field(default_factory=list)
    working_by_section: list[tuple[str, int]] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def largest_section_count(self) -> int:
        return max((n for _, n in self.notes_by_section), default=0)


def _ordered_counts(counts: dict[Any, int], names: tuple[str, ...]) -> list[tuple[str, int]]:
    rows = [(name, counts.get(name, 0)) for name in names]
    extra = sorted(
        ((str(k) if k else "(no section)", n) for k, n in counts.items() if k not in names),
        key=lambda row: -row[1],
    )
    return rows + extra


def memory_overview() -> MemoryOverview:
    """Counts from every memory store; a store that fails is reported, the rest shown."""
    overview = MemoryOverview()
    try:
        by_section = notes_store().count_by_section()
        overview.notes_by_section = _ordered_counts(by_section, SECTIONS)
        overview.notes_total = sum(by_section.values())
    except StoreUnavailable as e:
        overview.errors["mongodb"] = e.message
    try:
        overview.archive = archive_manager().get_archive_stats()
        core = core_notes().get_all_items()
        overview.core_by_category = _ordered_counts(
            {k: len(v) for k, v in core.items()}, CORE_CATEGORIES
        )
        working = working_notes().get_all_items()
        overview.working_by_section = _ordered_counts(
            {k: len(v) for k, v in working.items()}, SECTIONS
        )
    except (OSError, MemoryLibraryError) as e:
        overview.errors["memory_dir"] = str(e)
    return overview


@dataclass(frozen=True)
class EmbedderStatus:
    model: str
    dimension: int | None
    stored: dict[int, int]
    ok: bool
    message: str


def embedder_status() -> EmbedderStatus:
    """Does the configured embedder produce vectors the stored notes can be compared with?
    Says plainly when it does not (the agent would silently truncate)."""
    model = embedder()
    stored = {d: n for d, n in notes_store().stored_dimensions().items() if d}
    try:
        dim: int | None = model.dimension
    except StoreUnavailable as e:
        return EmbedderStatus(model.model_name, None, stored, False, e.message)
    if not stored:
        return EmbedderStatus(model.model_name, dim, stored, True, "no stored vectors yet")
    if dim in stored:
        others = {d: n for d, n in stored.items() if d != dim}
        message = (
            "matches the stored vectors"
            if not others
            else (
                f"matches {stored[dim]} notes; {sum(others.values())} notes have vectors of "
                f"another dimension ({', '.join(map(str, others))}) and are left out of search"
            )
        )
        return EmbedderStatus(model.model_name, dim, stored, True, message)
    main = max(stored, key=lambda d: stored[d])
    return EmbedderStatus(
        model.model_name,
        dim,
        stored,
        False,
        f"the embedding model {model.model_name!r} makes {dim}-dimensional vectors but the "
        f"stored notes have {main} dimensions: configure the model the agent uses "
        f"(QQ_EMBEDDING_BACKEND / QQ_EMBEDDING_MODEL / TEI_URL) or re-embed the notes",
    )
