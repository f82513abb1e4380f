"""JSON shapes of the facts API (``XOut``: what ``response=`` filters and documents)."""

from __future__ import annotations

from typing import Any

from ninja import Schema

from qqweb.api_types import UtcDateTime


class FactOut(Schema):
    id: str
    kind: str  # fact, turn (legacy conversation turn), foreign
    content: str
    timestamp: Any  # a date as the agent writes it; anything else as stored
    embedding: str  # ok, missing, empty, zero, invalid ("" for non-facts)
    legacy: bool
    deleted_at_next_start: bool
    anchor_id: str  # the older fact whose cleanup deletes this one


class FactsPageOut(Schema):
    items: list[FactOut]
    next_cursor: str | None
    total: int
    next_start_deletions: int
    breaks: int


class NeighbourOut(Schema):
    id: str
    content: str
    score: float
    mark: str


class PairOut(Schema):
    anchor_id: str
    anchor_content: str
    anchor_timestamp: Any
    deleted_id: str
    deleted_content: str
    deleted_timestamp: Any
    score: float
    borderline: bool
    tie: bool


class FindingOut(Schema):
    code: str
    severity: str
    target: str
    message: str
    fix: str


class FactDetailOut(Schema):
    id: str
    kind: str
    id_time: UtcDateTime | None
    timestamp: Any
    document: dict[str, Any]  # every stored field but the vector
    embedding: str
    dimension: int | None
    norm: float | None
    neighbours: list[NeighbourOut]
    deleted_by: PairOut | None
    deletes: list[PairOut]
    findings: list[FindingOut]


class NextStartOut(Schema):
    aborted: bool
    aborted_by: list[str]
    considered: int
    deletions: list[PairOut]
    near_misses: list[PairOut]


class LintOut(Schema):
    agent_broken: bool
    findings: list[FindingOut]
