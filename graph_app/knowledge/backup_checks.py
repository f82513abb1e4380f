"""Is an exported node or relationship one the graph can take and qqweb's pages can show?
Pure functions answering with a reason in words ('' when there is none), for an import to
check every record before it writes anything.

Labels and relationship types are checked as every query of the store checks them
(:func:`~.identifiers.checked_label`); property values are decoded as the import will
decode them (:func:`~.backup.decode_value`) and must be values Neo4j stores: a string, a
boolean, a 64-bit integer, a finite float, a tagged temporal value, point or byte array,
or a list of one such type. A node needs a label, and the key the import and the pages
know it by: ``name`` for an entity, ``source_id`` for a ``:Source``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from graph_app.knowledge.backup import decode_value
from graph_app.knowledge.errors import InvalidIdentifier
from graph_app.knowledge.identifiers import checked_label, checked_rel_type
from graph_app.knowledge.states import SOURCE_LABEL

_INT64 = (-(2**63), 2**63 - 1)


def _scalar_problem(value: Any) -> str:
    if isinstance(value, bool | str):
        return ""
    if isinstance(value, int):
        return "" if _INT64[0] <= value <= _INT64[1] else "an integer beyond 64 bits"
    if isinstance(value, float):
        return "" if math.isfinite(value) else f"{value!r}, not a finite number"
    if isinstance(value, dict | list):
        return "a nested list or an object (Neo4j stores neither in a property)"
    return ""  # a decoded temporal value, point or byte array


def _value_problem(raw: Any) -> str:
    if isinstance(raw, dict) and "$neo4j" not in raw:
        return "an object (Neo4j stores none in a property)"
    try:
        value = decode_value(raw)
    except Exception:  # a malformed tag: any parser's error means the same
        return f"a tagged value that cannot be read ({str(raw)[:80]})"
    if value is None:
        return ""
    if isinstance(value, list):
        kinds = {type(v) for v in value}
        if len(kinds) > 1:
            return "a list of mixed types (Neo4j stores lists of one type)"
        if None in value:
            return "a list holding null"
        for item in value:
            problem = _scalar_problem(item)
            if problem:
                return problem
        return ""
    return _scalar_problem(value)


def props_problem(props: Any) -> str:
    """Why these exported properties cannot be set on a node or relationship ('' when
    they can)."""
    if not isinstance(props, Mapping):
        return "its props are not an object"
    for key, raw in props.items():
        if not isinstance(key, str) or not key or key.startswith("$") or "." in key:
            return f"the property name {key!r} is not allowed (empty, '$'-prefixed or dotted)"
        if "\x00" in key:  # Neo4j refuses the name (TokenNameError)
            return f"the property name {key!r} holds a null character"
        problem = _value_problem(raw)
        if problem:
            return f"its property {key!r} is {problem}"
    return ""


def node_problem(node_id: Any, labels: Any, props: Any) -> str:
    """Why an exported node may not be imported, in words ('' when it may)."""
    if not isinstance(node_id, str) or not node_id:
        return "its id is not a non-empty string"
    if not isinstance(labels, list) or not labels:
        return "it has no label (every node the agent writes has one)"
    for label in labels:
        try:
            checked_label(label)
        except InvalidIdentifier as e:
            return str(e)
    problem = props_problem(props)
    if problem:
        return problem
    key = "source_id" if SOURCE_LABEL in labels else "name"
    value = props.get(key)
    if not isinstance(value, str) or not value.strip():
        what = "a :Source" if key == "source_id" else "an entity"
        return f"it is {what} without a {key} (a non-empty string)"
    return ""


def relationship_problem(start: Any, rel_type: Any, end: Any, props: Any) -> str:
    """Why an exported relationship may not be imported, its ends aside (the import knows
    which nodes the file holds); '' when it may."""
    for end_name, value in (("start", start), ("end", end)):
        if not isinstance(value, str) or not value:
            return f"its {end_name} is not a node id"
    try:
        checked_rel_type(rel_type)
    except InvalidIdentifier as e:
        return str(e)
    return props_problem(props)
