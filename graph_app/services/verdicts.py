"""Verdicts on duplicate-entity candidates: merge them, or remember they are not duplicates."""

from __future__ import annotations

from typing import Any

from graph_app.knowledge.errors import InvalidGraphValue
from graph_app.knowledge.states import pair_key
from graph_app.models import EntityPairVerdict
from graph_app.services.merge import MergeOutcome, entity_merge
from qqweb.audit.services import audit_begin, audited
from qqweb.lib.actors import Actor

NOT_DUPLICATE = "not_duplicate"
MERGE = "merge"


def entity_pair_verdict(
    *,
    actor: Actor,
    a: tuple[str, str],
    b: tuple[str, str],
    verdict: str,
    keep: str = "a",
) -> MergeOutcome | EntityPairVerdict:
    """``merge`` (``b`` into ``a``, or ``a`` into ``b`` when ``keep`` is ``"b"``) or
    ``not_duplicate``, which is remembered so the pair is not proposed again."""
    if verdict == MERGE:
        if keep not in ("a", "b"):
            raise InvalidGraphValue("keep", "must be 'a' or 'b'")
        source, target = (b, a) if keep == "a" else (a, b)
        return entity_merge(actor=actor, source=source, target=target)
    if verdict != NOT_DUPLICATE:
        raise InvalidGraphValue("verdict", f"must be {MERGE} or {NOT_DUPLICATE}")
    if tuple(a) == tuple(b):
        raise InvalidGraphValue("b", "the two entities are the same")
    ka, kb = pair_key(a, b)
    event = audit_begin(actor, "entity_pair.verdict", "entity", f"{ka} ~ {kb}"[:300], None, None)

    def write() -> dict[str, Any]:
        verdict_row, _ = EntityPairVerdict.objects.get_or_create(
            entity_a=ka, entity_b=kb, defaults={"decided_by": actor.label}
        )
        return {"verdict_id": verdict_row.pk, "entity_a": ka, "entity_b": kb}

    audited(event, write)
    return EntityPairVerdict.objects.get(entity_a=ka, entity_b=kb)


def _undo_pair_verdict(before: Any, after: dict[str, Any]) -> dict[str, Any]:
    EntityPairVerdict.objects.filter(
        entity_a=after["entity_a"], entity_b=after["entity_b"]
    ).delete()
    return after


UNDO_HANDLERS = {
    "entity_pair.verdict": _undo_pair_verdict,
}
