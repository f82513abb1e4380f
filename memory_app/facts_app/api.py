"""JSON front door of the facts store: a ninja router added to ``qqweb.api`` under
``/facts``. Read-only in this step; the viewer role reads."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema

from memory_app.facts import MISSING
from memory_app.facts.lint import agent_broken
from memory_app.facts.rules import Deletion
from memory_app.facts_app import selectors
from memory_app.facts_app.schemas import (
    FactDetailOut,
    FactsPageOut,
    LintOut,
    NextStartOut,
)
from qqweb.api_types import Cursor, Limit200, SearchText, errors
from qqweb.auth import VIEWER, require_role

router = Router(tags=["facts"])


def pair_out(d: Deletion) -> dict[str, Any]:
    return {
        "anchor_id": d.anchor.hex_id,
        "anchor_content": d.anchor.text,
        "anchor_timestamp": _json_value(d.anchor.timestamp) if d.anchor.timestamp_is_date else None,
        "deleted_id": d.deleted.hex_id,
        "deleted_content": d.deleted.text,
        "deleted_timestamp": _json_value(d.deleted.timestamp)
        if d.deleted.timestamp_is_date
        else None,
        "score": d.score,
        "borderline": d.borderline,
        "tie": d.tie,
    }


def _json_value(value: Any) -> Any:
    """A stored value as JSON can hold it (dates and ids as strings)."""
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime):  # pymongo's are naive UTC: said with their offset
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()
    return str(value)


class FactsQuery(Schema):
    q: SearchText = ""
    embedding: str = Field("", max_length=10, description="ok, missing or invalid")
    legacy: bool = False
    next_start: bool = False
    cursor: Cursor | None = None
    limit: Limit200 = 50


@router.get("/facts", response={200: FactsPageOut, **errors(404, 503)})
def facts_list(request: HttpRequest, query: Query[FactsQuery]) -> dict[str, Any]:
    """Newest first on ``(timestamp, _id)``; ``next_cursor`` gives the next page."""
    require_role(request, VIEWER)
    embedding = query.embedding if query.embedding in selectors.EMBEDDING_FILTERS else ""
    listing = selectors.facts_list(
        text=query.q,
        embedding=embedding,
        legacy=query.legacy,
        next_start=query.next_start,
        cursor=query.cursor,
        limit=query.limit,
    )
    return {
        "items": [
            {
                "id": row.id,
                "kind": row.kind,
                "content": row.text,
                "timestamp": _json_value(row.timestamp) if row.timestamp is not MISSING else None,
                "embedding": row.embedding,
                "legacy": row.legacy,
                "deleted_at_next_start": row.deleted_at_next_start,
                "anchor_id": row.anchor_id,
            }
            for row in listing.rows
        ],
        "next_cursor": listing.next_cursor,
        "total": listing.total,
        "next_start_deletions": listing.next_start_deletions,
        "breaks": listing.breaks,
    }


@router.get("/facts/next-start", response={200: NextStartOut, **errors(404, 503)})
def facts_next_start(request: HttpRequest) -> dict[str, Any]:
    """What the agent hard-deletes at its next start, pair by pair (its cleanup, exactly:
    float64 cosine >= 0.95, oldest ``timestamp`` first, greedy). ``borderline``: within
    1e-6 of 0.95; ``tie``: equal timestamps (the agent keeps either one)."""
    require_role(request, VIEWER)
    plan = selectors.next_start_plan()
    return {
        "aborted": plan.aborted,
        "aborted_by": [f.hex_id for f in plan.aborted_by],
        "considered": plan.considered,
        "deletions": [pair_out(d) for d in plan.deletions],
        "near_misses": [pair_out(d) for d in plan.near_misses],
    }


@router.get("/facts/lint", response={200: LintOut, **errors(404, 503)})
def facts_lint(request: HttpRequest) -> dict[str, Any]:
    """Every document or index that breaks the agent (``breaks``) or bends what it does."""
    require_role(request, VIEWER)
    findings = selectors.facts_lint()
    return {"agent_broken": agent_broken(findings), "findings": [asdict(f) for f in findings]}


@router.get("/facts/{fact_id}", response={200: FactDetailOut, **errors(404, 503)})
def fact_get(request: HttpRequest, fact_id: str) -> dict[str, Any]:
    """One document: every field but the vector, the vector's dimension and norm, its
    nearest facts (``duplicate`` >= 0.95, ``similar`` >= 0.85), and the cleanup pairs it
    is in."""
    require_role(request, VIEWER)
    detail = selectors.fact_detail(fact_id)
    doc = detail.doc.to_document()
    doc.pop("content_embedding", None)
    return {
        "id": detail.doc.hex_id,
        "kind": detail.doc.kind,
        "id_time": detail.id_time,
        "timestamp": _json_value(detail.doc.timestamp)
        if detail.doc.timestamp is not MISSING
        else None,
        "document": _json_value(doc),
        "embedding": detail.embedding,
        "dimension": detail.dimension,
        "norm": detail.norm,
        "neighbours": [
            {"id": n.fact.hex_id, "content": n.fact.text, "score": n.score, "mark": n.mark}
            for n in detail.neighbours
        ],
        "deleted_by": pair_out(detail.deleted_by) if detail.deleted_by else None,
        "deletes": [pair_out(d) for d in detail.deletes],
        "findings": [asdict(f) for f in detail.findings],
    }
