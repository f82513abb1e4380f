"""The plan items of the notes' destructive jobs, typed, and their JSON on the run.

A dry run of decay, archival, archive purge or auto-consolidation keeps its plan on the
run (``Run.plan``, JSON): one item per note it would change (per pair for
auto-consolidation), each ``{"note_id", "text", "before", "after", "guard"}`` where the
``guard`` holds what the note was when it was planned (what its apply's compare-and-set
checks). In the code an item is one of the dataclasses below, with the guard's fields
typed; :func:`plan_to_json` and :func:`plan_from_json` are the one pair of functions
between them and the JSON, which keeps the shape the runs stored so far have (the API's
plan rows are that JSON without the guard)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Self

from qqweb.audit import snapshots
from qqweb.jobs.errors import RunRefused


def _when(value: Any) -> datetime | None:
    decoded = snapshots.from_json(value)
    return decoded if isinstance(decoded, datetime) else None


def _guard(data: Mapping[str, Any]) -> Mapping[str, Any]:
    guard = data.get("guard")
    return guard if isinstance(guard, Mapping) else {}


@dataclass(frozen=True)
class PlanItem:
    """What the run page and the API show of a planned change."""

    kind: ClassVar[str]
    # the guard's keys its apply needs (what the compare-and-set checks, the audit's before)
    guarded: ClassVar[tuple[str, ...]] = ()
    note_id: str
    text: str  # the first characters of the note ("" where the page reads it: decay)
    before: str  # in words: "effective importance 0.041"
    after: str  # in words: "archived"

    def to_json(self) -> dict[str, Any]:
        return {**self.row(), "guard": self._guard_json()}

    def row(self) -> dict[str, Any]:
        """The item as the run page and the API list it: its JSON without the guard."""
        return {
            "note_id": self.note_id,
            "text": self.text,
            "before": self.before,
            "after": self.after,
        }

    def _guard_json(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        raise NotImplementedError

    def planned_at(self) -> dict[str, datetime | None]:
        """Each planned note's ``updated_at`` when it was planned, by id (what the apply
        guards; nothing for an archive line)."""
        return {}

    @classmethod
    def to_apply(cls, data: Mapping[str, Any]) -> Self:
        """The item for its apply (what :class:`qqweb.jobs.registry.PlanApply` loads):
        refused (RunRefused) when its guard lacks what the apply checks, so a plan whose
        guards were lost fails before it changes anything instead of being applied with no
        compare-and-set (``from_json``, for the pages, reads what is there)."""
        guard = data.get("guard")
        missing = [k for k in cls.guarded if not isinstance(guard, Mapping) or k not in guard]
        if not missing:
            missing = cls._also_missing(guard if isinstance(guard, Mapping) else {}, data)
        if missing:
            raise RunRefused(
                f"the plan's item for {data.get('note_id')!r} has no {', '.join(missing)} "
                "in its guard: it cannot be applied safely; preview the job again"
            )
        return cls.from_json(data)

    @classmethod
    def _also_missing(cls, guard: Mapping[str, Any], data: Mapping[str, Any]) -> list[str]:
        return []


@dataclass(frozen=True)
class ArchivalItem(PlanItem):
    kind: ClassVar[str] = "archival"
    guarded: ClassVar[tuple[str, ...]] = ("updated_at", "value")
    updated_at: datetime | None  # the note's, when planned
    value: float  # its effective importance (the archive reason says it)

    def _guard_json(self) -> dict[str, Any]:
        return {"updated_at": snapshots.to_json(self.updated_at), "value": self.value}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        guard = _guard(data)
        return cls(
            str(data["note_id"]),
            str(data.get("text") or ""),
            str(data.get("before") or ""),
            str(data.get("after") or ""),
            updated_at=_when(guard.get("updated_at")),
            value=float(guard.get("value") or 0.0),
        )

    def planned_at(self) -> dict[str, datetime | None]:
        return {self.note_id: self.updated_at}


@dataclass(frozen=True)
class DecayItem(PlanItem):
    kind: ClassVar[str] = "decay"
    guarded: ClassVar[tuple[str, ...]] = ("expected", "base", "new", "prev")
    expected: float  # the stored importance read (the write's compare-and-set)
    base: float  # the undecayed importance
    new: float  # the value to write
    prev: dict[str, Any]  # the fields as they were (the audit event's "before", for undo)

    def _guard_json(self) -> dict[str, Any]:
        return {
            "expected": self.expected,
            "base": self.base,
            "new": self.new,
            "prev": snapshots.to_json(self.prev),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        guard = _guard(data)
        prev = snapshots.from_json(guard.get("prev"))
        return cls(
            str(data["note_id"]),
            str(data.get("text") or ""),
            str(data.get("before") or ""),
            str(data.get("after") or ""),
            expected=float(guard["expected"]),
            base=float(guard["base"]),
            new=float(guard["new"]),
            prev=prev if isinstance(prev, dict) else {},
        )

    def planned_at(self) -> dict[str, datetime | None]:
        when = self.prev.get("updated_at")
        return {self.note_id: when if isinstance(when, datetime) else None}


@dataclass(frozen=True)
class PurgeItem(PlanItem):
    kind: ClassVar[str] = "archive_purge"
    guarded: ClassVar[tuple[str, ...]] = ("entry",)
    entry: dict[
        str, Any
    ]  # the archive line as planned, kept whole: the purge drops it only if unchanged

    def _guard_json(self) -> dict[str, Any]:
        return {"entry": self.entry}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        entry = _guard(data).get("entry")
        return cls(
            str(data["note_id"]),
            str(data.get("text") or ""),
            str(data.get("before") or ""),
            str(data.get("after") or ""),
            entry=dict(entry) if isinstance(entry, Mapping) else {},
        )


@dataclass(frozen=True)
class PairItem(PlanItem):
    """A pair auto-consolidation merges: ``note_id`` and ``other_id``."""

    kind: ClassVar[str] = "auto_consolidation"
    guarded: ClassVar[tuple[str, ...]] = ("updated_at", "similarity")
    other_id: str
    other_text: str
    similarity: float
    updated_at: dict[str, datetime | None]  # both notes', when planned

    def row(self) -> dict[str, Any]:
        return {
            "note_id": self.note_id,
            "other_id": self.other_id,
            "text": self.text,
            "other_text": self.other_text,
            "before": self.before,
            "after": self.after,
        }

    def _guard_json(self) -> dict[str, Any]:
        return {
            "similarity": self.similarity,
            "updated_at": {i: snapshots.to_json(v) for i, v in self.updated_at.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        guard = _guard(data)
        updated = guard.get("updated_at")
        return cls(
            str(data["note_id"]),
            str(data.get("text") or ""),
            str(data.get("before") or ""),
            str(data.get("after") or ""),
            other_id=str(data["other_id"]),
            other_text=str(data.get("other_text") or ""),
            similarity=float(guard.get("similarity") or 0.0),
            updated_at={
                str(i): _when(v)
                for i, v in (updated.items() if isinstance(updated, Mapping) else ())
            },
        )

    def planned_at(self) -> dict[str, datetime | None]:
        return dict(self.updated_at)

    @classmethod
    def _also_missing(cls, guard: Mapping[str, Any], data: Mapping[str, Any]) -> list[str]:
        """Both notes' ``updated_at``: the merge guards only the notes the plan names."""
        planned = guard["updated_at"]
        ids = (data.get("note_id"), data.get("other_id"))
        if not isinstance(planned, Mapping):
            return ["updated_at"]
        return [f"updated_at of {i!r}" for i in ids if i not in planned]


ITEM_TYPES: dict[str, type[PlanItem]] = {
    cls.kind: cls for cls in (ArchivalItem, DecayItem, PurgeItem, PairItem)
}


def plan_to_json(items: Iterable[PlanItem]) -> list[dict[str, Any]]:
    """The plan as the run keeps it (``Run.plan``)."""
    return [item.to_json() for item in items]


def plan_from_json(kind: str, plan: Iterable[Mapping[str, Any]]) -> list[PlanItem]:
    """The plan a run of ``kind`` keeps, as items (a KeyError for a kind with no plan)."""
    cls = ITEM_TYPES[kind]
    return [cls.from_json(item) for item in plan]
