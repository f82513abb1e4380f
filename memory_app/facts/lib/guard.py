"""Rule 3 of contract 4.2 as a pure function: before every write, what the agent would do
with the resulting state, and what qqweb archives in the same step so that it never
leaves a >= 0.95 pair of its own making.

``before`` is the collection's facts now, ``after`` the facts once the write and the
action's own archives are done, ``written`` the ids qqweb writes (created, edited,
restored, embedded). Resolved, in rounds until nothing is left (chains: removing a fact
can let another one delete):

- every pair of the simulated cleanup that holds a written fact: qqweb archives the
  *other* fact, so the curator's text survives (an edit that is >= 0.95 to an older fact
  would otherwise be deleted by the agent, contract 4.5 (a));
- every other deletion the write brings about (not in the plan before it): qqweb
  archives the fact the agent would delete, so it can be restored.

Deletions already planned before the write are left alone: they are not qqweb's making,
and the "deleted at the next start" review lists them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from memory_app.facts.lib.domain import EmbeddingState, Fact
from memory_app.facts.lib.rules import (
    AddVerdict,
    CleanupPlan,
    Deletion,
    add_check,
    cleanup_plan,
)
from qqweb.lib.differences import Difference, differences


@dataclass(frozen=True)
class Resolution:
    pair: Deletion  # the pair of the simulated cleanup
    archive: Fact  # what qqweb archives now
    keeps_written: bool  # archived so that the written fact survives (its partner)

    @property
    def changes(self) -> tuple[Difference, ...]:
        """How the pair's newer text differs from the older (kept) one: a pair that
        differs in a value is a correction, not a copy."""
        return differences(self.pair.anchor.text, self.pair.deleted.text)

    @property
    def contradiction(self) -> bool:
        return any(c.contradiction for c in self.changes)


@dataclass(frozen=True)
class WritePlan:
    add: AddVerdict | None  # W1 on the written text: would the agent have saved it?
    resolutions: list[Resolution]  # archived in the same step, shown first
    remaining: CleanupPlan  # what the agent's next start still deletes afterwards
    before: CleanupPlan
    # How the written text differs from the fact that makes the agent refuse it (``add``):
    # "the agent would not save this" about a text that changes a port is a correction the
    # agent would lose, not a copy.
    add_changes: tuple[Difference, ...] = field(default=())

    @property
    def add_contradiction(self) -> bool:
        return any(c.contradiction for c in self.add_changes)

    @property
    def archive_ids(self) -> list[str]:
        return [r.archive.hex_id for r in self.resolutions]

    @property
    def new_deletions(self) -> list[Deletion]:
        """Deletions the next start would make after the write that it would not make
        now; empty once resolved (the invariant the tests check)."""
        planned = self.before.deleted_ids
        return [d for d in self.remaining.deletions if d.deleted.hex_id not in planned]


def _resolution(pair: Deletion, written: Collection[str], planned: set[str]) -> Resolution | None:
    anchor, deleted = pair.anchor.hex_id, pair.deleted.hex_id
    if deleted in written and anchor not in written:
        return Resolution(pair, pair.anchor, keeps_written=True)
    if anchor in written:  # the written fact survives anyway; its partner would go
        return Resolution(pair, pair.deleted, keeps_written=False)
    if deleted not in planned:
        return Resolution(pair, pair.deleted, keeps_written=False)
    return None


def write_plan(
    before: Sequence[Fact], after: Sequence[Fact], written: Collection[str]
) -> WritePlan:
    """The add test on the first written fact with a usable vector, and the archives that
    leave no new deletion (module docstring).

    The add test compares the written text with the facts of ``before`` that ``after``
    still holds: a fact the same action archives or replaces is no reason for the agent
    to refuse the text (keep-newer-text moves the newer fact's text onto the older fact and
    archives the newer one; compared with it, the text would be "1.000000 to itself")."""
    written = set(written)
    kept = {f.hex_id for f in after}
    before_plan = cleanup_plan(before)
    planned = before_plan.deleted_ids
    add = None
    add_changes: tuple[Difference, ...] = ()
    for fact in after:
        if fact.hex_id in written and fact.embedding is EmbeddingState.OK:
            others = [f for f in before if f.hex_id not in written and f.hex_id in kept]
            add = add_check(fact.content_embedding, others)
            if add.refused and add.best is not None:
                add_changes = differences(add.best.text, fact.text)
            break
    archived: dict[str, Resolution] = {}
    while True:
        state = [f for f in after if f.hex_id not in archived]
        plan = cleanup_plan(state)
        found = [r for d in plan.deletions if (r := _resolution(d, written, planned))]
        if not found:
            return WritePlan(add, list(archived.values()), plan, before_plan, add_changes)
        for resolution in found:
            archived.setdefault(resolution.archive.hex_id, resolution)
