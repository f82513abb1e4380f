"""Merging two entities, as a pure plan: what the survivor's properties become, which
relationships move, which combine with one the survivor already has, and which are
dropped because they joined the two (they would become self-loops). No I/O: the same
plan is the preview a curator reads and the write the store then makes.

Properties: the survivor's values win; missing ones are filled from the merged entity.
``aliases`` gain the merged entity's name and aliases; ``mention_count`` is the sum;
``first_seen`` / ``last_seen`` widen (with ``source_first_id`` / ``source_latest_id``
following them). A relationship both had (same type, direction and other end, the
agent's merge key) keeps the survivor's properties with the counts summed and the
seen-dates widened, the same rules as the entities.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph_app.knowledge.states import EntityState, RelState

SUMMED = ("mention_count",)


def _earlier(a: Any, b: Any) -> bool:
    try:
        return bool(a < b)
    except TypeError:  # a missing date, aware vs naive, not comparable: keep the survivor's
        return False


def combine_props(keep: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``keep`` wins; ``extra`` fills gaps; counts add up; first/last seen widen."""
    out = {**extra, **keep}
    for key in SUMMED:
        if isinstance(keep.get(key), int | float) and isinstance(extra.get(key), int | float):
            out[key] = keep[key] + extra[key]
    if _earlier(extra.get("first_seen"), keep.get("first_seen")):
        out["first_seen"] = extra["first_seen"]
        if "source_first_id" in extra:
            out["source_first_id"] = extra["source_first_id"]
    if _earlier(keep.get("last_seen"), extra.get("last_seen")):
        out["last_seen"] = extra["last_seen"]
        if "source_latest_id" in extra:
            out["source_latest_id"] = extra["source_latest_id"]
    return out


@dataclass
class EntityMergePlan:
    source: EntityState
    target: EntityState
    props: dict[str, Any]
    moved: list[RelState] = field(default_factory=list)
    combined: list[tuple[RelState, dict[str, Any]]] = field(default_factory=list)
    dropped: list[RelState] = field(default_factory=list)
    description_changed: bool = False

    def relationships_after(self) -> list[tuple[str, bool, str, str | None]]:
        """The survivor's relationships once the plan is applied: (type, outgoing, other
        label, other key), sorted, each once."""
        kept = [
            (r.type, r.outgoing, r.other.label, r.other.key)
            for r in self.target.rels
            if r.other.id != self.source.id  # deleted with the merged entity
        ]
        moved = [(r.type, r.outgoing, r.other.label, r.other.key) for r in self.moved]
        return sorted(kept + moved, key=lambda t: (t[0], t[1], t[2], str(t[3])))


def plan_entity_merge(
    source: EntityState, target: EntityState, description: str | None = None
) -> EntityMergePlan:
    """Merge ``source`` into ``target`` (``target`` survives under its label and name).
    ``description`` overrides the survivor's description when given."""
    props = combine_props(target.props, source.props)
    props["name"] = target.props.get("name")
    aliases: list[str] = []
    for alias in [
        *(target.props.get("aliases") or []),
        source.props.get("name"),
        *(source.props.get("aliases") or []),
    ]:
        if isinstance(alias, str) and alias and alias != props["name"] and alias not in aliases:
            aliases.append(alias)
    if aliases:
        props["aliases"] = aliases
    if description is not None:
        props["description"] = description
    changed = props.get("description") != target.props.get("description")
    if not changed and target.props.get("embedding") is not None:
        props["embedding"] = target.props["embedding"]

    plan = EntityMergePlan(source, target, props, description_changed=changed)
    existing = {r.merge_key(): r for r in target.rels}
    combined: dict[str, tuple[RelState, dict[str, Any]]] = {}
    seen_self_loops: set[str] = set()
    for rel in source.rels:
        if rel.other.id == target.id:
            plan.dropped.append(rel)
            continue
        other_id = target.id if rel.other.id == source.id else None
        if other_id and rel.rid in seen_self_loops:
            continue  # a self-loop is listed once
        seen_self_loops.add(rel.rid)
        key = rel.merge_key(other_id)
        if key in existing:
            mine = existing[key]
            if any(m is mine for m in plan.moved):  # parallel duplicates in the source
                mine.props = combine_props(mine.props, rel.props)
            else:
                base = combined.get(mine.rid, (mine, mine.props))[1]
                combined[mine.rid] = (mine, combine_props(base, rel.props))
        else:
            moved = RelState(rel.rid, rel.type, rel.outgoing, rel.other, dict(rel.props))
            if other_id:
                moved.other = target.ref
            plan.moved.append(moved)
            existing[key] = moved
    plan.combined = list(combined.values())
    return plan
