"""Curation writes of :class:`GraphStore`: each is one Neo4j transaction that first reads
the node again and refuses (:class:`EntityChanged`) when it is no longer the state the
caller planned from, so the audit log's ``before`` is always what was really replaced,
and a crash half-way leaves the graph untouched (the transaction rolls back).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, LiteralString, TypeVar, cast

from neo4j import Driver, ManagedTransaction

from graph_app.knowledge import cypher_writes as cw
from graph_app.knowledge.domain import EntitySummary, RecreatedName, SameNameGroup
from graph_app.knowledge.errors import (
    AmbiguousEntity,
    EntityChanged,
    EntityNotFound,
    GraphRefusal,
    NameTaken,
    RelationshipNotFound,
    driver_errors_classified,
)
from graph_app.knowledge.identifiers import checked_label, checked_rel_type
from graph_app.knowledge.merging import EntityMergePlan
from graph_app.knowledge.states import EntityState, NodeRef, RelationshipState, RelState

T = TypeVar("T")


class EndpointGone(GraphRefusal):
    """A node a relationship must be put back on no longer exists."""

    def __init__(self, ref: NodeRef) -> None:
        super().__init__(f"the {ref.label or 'node'} {ref.key!r} it was linked to no longer exists")
        self.ref = ref


def _q(text: str) -> LiteralString:
    return cast(LiteralString, text)


def _rows(tx: ManagedTransaction, text: str, **params: Any) -> list[dict[str, Any]]:
    return [record.data() for record in tx.run(_q(text), params)]


def _summary_of(node: dict[str, Any]) -> EntitySummary:
    return EntitySummary(
        id=node["id"],
        label=node["label"] or "",
        name=node["name"],
        mentions=int(node["mentions"] or 0),
    )


def read_node(tx: ManagedTransaction, element_id: str) -> EntityState | None:
    rows = _rows(tx, cw.NODE_STATE, id=element_id)
    if not rows:
        return None
    row = rows[0]
    rels = [
        RelState(
            r["rid"],
            r["type"],
            bool(r["outgoing"]),
            NodeRef(r["other_id"], tuple(r["other_labels"]), r["other_key"]),
            dict(r["props"]),
        )
        for r in row["rels"]
        if r is not None
    ]
    return EntityState(row["id"], list(row["labels"]), dict(row["props"]), rels)


def _labels_clause(labels: Iterable[str]) -> str:
    return "".join(f":{checked_label(label)}" for label in labels)


def _resolve(tx: ManagedTransaction, ref: NodeRef, id_map: dict[str, str]) -> str:
    """The element id ``ref`` has now: remapped when the undo recreated it, the same id
    when that node still has the same label and key, else found by label and key."""
    if ref.id in id_map:
        return id_map[ref.id]
    found = _rows(tx, cw.NODE_REF, id=ref.id)
    if found and tuple(found[0]["labels"]) == ref.labels and found[0]["key"] == ref.key:
        return ref.id
    if ref.key is None or not ref.labels:
        raise EndpointGone(ref)
    by_key = _rows(tx, cw.NODES_BY_KEY.format(label=checked_label(ref.labels[0])), key=ref.key)
    if len(by_key) != 1:
        raise EndpointGone(ref)
    return str(by_key[0]["id"])


def _create_relationships(tx: ManagedTransaction, rows: list[tuple[str, dict[str, Any]]]) -> None:
    """``rows``: ``(type, {start, end, props})``, created with one query per type."""
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rel_type, row in rows:
        by_type[rel_type].append(row)
    for rel_type, group in by_type.items():
        text = cw.CREATE_RELATIONSHIPS.format(rel_type=checked_rel_type(rel_type))
        tx.run(_q(text), {"rows": group}).consume()


class CurationMixin:
    _driver: Driver
    _database: str

    def curate(self, work: Callable[[ManagedTransaction], T]) -> T:
        """Run ``work`` in one write transaction. Our own errors roll it back and pass
        through; anything else is classified (outage or bug) by the store boundary."""
        with driver_errors_classified(), self._driver.session(database=self._database) as session:
            return session.execute_write(work)

    # --- reading exact states -------------------------------------------------------------

    def entity_state(self, label: str, name: str) -> EntityState:
        """The one entity with this label and name, with every relationship."""
        checked_label(label)

        def read(tx: ManagedTransaction) -> EntityState:
            ids = [r["id"] for r in _rows(tx, cw.NODES_NAMED, name=name) if label in r["labels"]]
            if not ids:
                raise EntityNotFound(label, name)
            if len(ids) > 1:
                raise AmbiguousEntity(name, [label] * len(ids))
            state = read_node(tx, ids[0])
            if state is None:
                raise EntityNotFound(label, name)
            return state

        return self.curate(read)

    def labels_named(self, name: str) -> list[str]:
        """Every label under which an entity has exactly this name (lookups by name alone
        are ambiguous when there is more than one)."""
        return self.curate(
            lambda tx: sorted(
                label for r in _rows(tx, cw.NODES_NAMED, name=name) for label in r["labels"][:1]
            )
        )

    def same_name_groups(self, limit: int = 200) -> list[SameNameGroup]:
        """Entities whose names are equal ignoring case, most crowded groups first."""
        rows = self.curate(lambda tx: _rows(tx, cw.SAME_NAME_GROUPS, limit=int(limit)))
        return [
            SameNameGroup(key=row["key"], entities=tuple(_summary_of(n) for n in row["nodes"]))
            for row in rows
        ]

    def recreated_names(self, limit: int = 200) -> list[RecreatedName]:
        """Entities named like an alias of another entity of their label (see
        :class:`RecreatedName`), most mentioned first."""
        rows = self.curate(lambda tx: _rows(tx, cw.RECREATED_NAMES, limit=int(limit)))
        return [
            RecreatedName(holder=_summary_of(row["holder"]), entity=_summary_of(row["entity"]))
            for row in rows
        ]

    @staticmethod
    def _current(tx: ManagedTransaction, state: EntityState, *, props_only: bool) -> EntityState:
        now = read_node(tx, state.id)
        what = f"the {state.label} {state.name!r}"
        if now is None:
            raise EntityChanged(what + " (it is gone)")
        same = (
            now.props_fingerprint() == state.props_fingerprint()
            if props_only
            else now.fingerprint() == state.fingerprint()
        )
        if not same:
            raise EntityChanged(what)
        return now

    # --- entity writes -------------------------------------------------------------------

    def write_entity_props(self, state: EntityState, props: dict[str, Any]) -> EntityState:
        """Replace every property of the node read as ``state`` (name included: a rename
        refuses a (label, name) another node has)."""

        def work(tx: ManagedTransaction) -> EntityState:
            self._current(tx, state, props_only=True)
            new_name = props.get("name")
            if new_name != state.name:
                taken = [
                    r
                    for r in _rows(tx, cw.NODES_NAMED, name=new_name)
                    if state.label in r["labels"]
                ]
                if taken:
                    raise NameTaken(state.label, str(new_name))
            tx.run(_q(cw.SET_NODE_PROPS), {"id": state.id, "props": props}).consume()
            after = read_node(tx, state.id)
            assert after is not None
            return after

        return self.curate(work)

    def delete_entity(self, state: EntityState) -> None:
        """DETACH DELETE the node, if it is still exactly ``state``."""

        def work(tx: ManagedTransaction) -> None:
            self._current(tx, state, props_only=False)
            tx.run(_q(cw.DETACH_DELETE_NODE), {"id": state.id}).consume()

        self.curate(work)

    def apply_merge(self, plan: EntityMergePlan) -> EntityState:
        """Write a merge plan: combine, move, delete the merged node, set the survivor's
        properties. Refused when either node changed since the plan was made."""

        def work(tx: ManagedTransaction) -> EntityState:
            self._current(tx, plan.source, props_only=False)
            self._current(tx, plan.target, props_only=False)
            if plan.combined:
                rows = [{"rid": rel.rid, "props": props} for rel, props in plan.combined]
                tx.run(_q(cw.SET_RELATIONSHIP_PROPS), {"rows": rows}).consume()
            created = []
            for rel in plan.moved:
                other = plan.target.id if rel.other.id == plan.target.id else rel.other.id
                ends = (plan.target.id, other) if rel.outgoing else (other, plan.target.id)
                created.append((rel.type, {"start": ends[0], "end": ends[1], "props": rel.props}))
            _create_relationships(tx, created)
            tx.run(_q(cw.DETACH_DELETE_NODE), {"id": plan.source.id}).consume()
            tx.run(_q(cw.SET_NODE_PROPS), {"id": plan.target.id, "props": plan.props}).consume()
            after = read_node(tx, plan.target.id)
            assert after is not None
            return after

        return self.curate(work)

    def restore_entities(
        self,
        *,
        recreate: list[EntityState] | None = None,
        replace: list[tuple[EntityState, EntityState]] | None = None,
    ) -> dict[str, str]:
        """Put states back exactly, in one transaction: nodes in ``recreate`` are created
        again; each ``(now, wanted)`` in ``replace`` must still be ``now`` and gets
        ``wanted``'s properties and relationships. Every relationship of every state is
        created once. Returns old element id -> new one for the recreated nodes."""
        recreate, replace = recreate or [], replace or []

        def work(tx: ManagedTransaction) -> dict[str, str]:
            for now, _ in replace:
                self._current(tx, now, props_only=False)
            id_map: dict[str, str] = {}
            for state in recreate:
                text = cw.CREATE_NODE.format(labels=_labels_clause(state.labels))
                id_map[state.id] = _rows(tx, text, props=state.props)[0]["id"]
            for now, wanted in replace:
                id_map[wanted.id] = now.id  # the node may have a new id since ``wanted``
                tx.run(_q(cw.DELETE_NODE_RELATIONSHIPS), {"id": now.id}).consume()
                tx.run(_q(cw.SET_NODE_PROPS), {"id": now.id, "props": wanted.props}).consume()
            created, seen = [], set()
            for owner in [*recreate, *(wanted for _, wanted in replace)]:
                for rel in owner.rels:
                    if rel.rid in seen:
                        continue  # a relationship between two restored nodes
                    seen.add(rel.rid)
                    mine = id_map.get(owner.id, owner.id)
                    other = _resolve(tx, rel.other, id_map)
                    ends = (mine, other) if rel.outgoing else (other, mine)
                    created.append(
                        (rel.type, {"start": ends[0], "end": ends[1], "props": rel.props})
                    )
            _create_relationships(tx, created)
            return id_map

        return self.curate(work)

    # --- relationships ---------------------------------------------------------------------

    def relationship_between(
        self, start: tuple[str, str], rel_type: str, end: tuple[str, str]
    ) -> RelationshipState:
        """The relationship ``(start)-[:rel_type]->(end)``, ends named by (label, name)."""
        checked_label(start[0])
        checked_label(end[0])
        text = cw.RELATIONSHIPS_BETWEEN.format(rel_type=checked_rel_type(rel_type))
        description = f"({start[0]} {start[1]!r})-[:{rel_type}]->({end[0]} {end[1]!r})"

        def read(tx: ManagedTransaction) -> RelationshipState:
            found = _rows(
                tx,
                text,
                start_label=start[0],
                start_name=start[1],
                end_label=end[0],
                end_name=end[1],
            )
            if not found:
                raise RelationshipNotFound(description)
            if len(found) > 1:
                raise AmbiguousEntity(description, [f"copy {i + 1}" for i in range(len(found))])
            state = _relationship(tx, found[0]["rid"])
            if state is None:
                raise RelationshipNotFound(description)
            return state

        return self.curate(read)

    def rewrite_relationship(
        self, state: RelationshipState, rel_type: str, props: dict[str, Any]
    ) -> RelationshipState:
        """Give the relationship read as ``state`` new properties, and a new type (a new
        relationship between the same ends: Neo4j cannot retype one in place)."""
        checked_rel_type(rel_type)

        def work(tx: ManagedTransaction) -> RelationshipState:
            _current_relationship(tx, state)
            if rel_type == state.type:
                rows = [{"rid": state.rid, "props": props}]
                tx.run(_q(cw.SET_RELATIONSHIP_PROPS), {"rows": rows}).consume()
                rid = state.rid
            else:
                tx.run(_q(cw.DELETE_RELATIONSHIP), {"rid": state.rid}).consume()
                rid = _create_one(tx, rel_type, state.start.id, state.end.id, props)
            after = _relationship(tx, rid)
            assert after is not None
            return after

        return self.curate(work)

    def delete_relationship(self, state: RelationshipState) -> None:
        def work(tx: ManagedTransaction) -> None:
            _current_relationship(tx, state)
            tx.run(_q(cw.DELETE_RELATIONSHIP), {"rid": state.rid}).consume()

        self.curate(work)

    def recreate_relationship(self, state: RelationshipState) -> RelationshipState:
        """Create ``state`` again between its ends (found again if they were recreated)."""

        def work(tx: ManagedTransaction) -> RelationshipState:
            start, end = _resolve(tx, state.start, {}), _resolve(tx, state.end, {})
            rid = _create_one(tx, state.type, start, end, state.props)
            after = _relationship(tx, rid)
            assert after is not None
            return after

        return self.curate(work)


def _create_one(
    tx: ManagedTransaction, rel_type: str, start: str, end: str, props: dict[str, Any]
) -> str:
    text = cw.CREATE_ONE_RELATIONSHIP.format(rel_type=checked_rel_type(rel_type))
    return str(_rows(tx, text, start=start, end=end, props=props)[0]["rid"])


def _relationship(tx: ManagedTransaction, rid: str) -> RelationshipState | None:
    rows = _rows(tx, cw.RELATIONSHIP_STATE, rid=rid)
    if not rows:
        return None
    r = rows[0]
    return RelationshipState(
        r["rid"],
        r["type"],
        NodeRef(r["start_id"], tuple(r["start_labels"]), r["start_key"]),
        NodeRef(r["end_id"], tuple(r["end_labels"]), r["end_key"]),
        dict(r["props"]),
    )


def _current_relationship(tx: ManagedTransaction, state: RelationshipState) -> None:
    now = _relationship(tx, state.rid)
    if now is None or now.fingerprint() != state.fingerprint():
        raise EntityChanged(f"the relationship {state.describe()}")
