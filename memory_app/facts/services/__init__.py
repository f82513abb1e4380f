"""Writes of the facts store (contract 4.2): each action runs the agent's add test and
cleanup on its result first, archives before it deletes, and is one undoable audit event.

- :mod:`.actions`: the shared machinery (model check, confirmation, audit, undo);
- :mod:`.steps`: archive, set, insert, restore, embed, and their inverses;
- :mod:`.writes`: create, edit, delete, restore, embed a legacy fact;
- :mod:`.gone`: where a fact a write names went (the fact that replaced it), for its 409;
- :mod:`.pairs`: the next-start review's pair actions, contradiction verdicts;
- :mod:`.undo`: the undo of every action, refused when it would let the agent delete a
  fact written since;
- :mod:`.vanished`: the vanished-facts scan.
"""

from memory_app.facts.services.actions import FactAction, NeedsConfirmation, agent_vector
from memory_app.facts.services.pairs import (
    PAIR_ACTIONS,
    contradiction_verdict,
    pair_resolve,
    undo_verdict,
)
from memory_app.facts.services.undo import undo_action
from memory_app.facts.services.vanished import (
    VANISHED_SCAN_JOB,
    ScanCancelled,
    ScanReport,
    facts_scan,
    vanished_scan_run,
)
from memory_app.facts.services.writes import (
    fact_create,
    fact_delete,
    fact_edit,
    fact_embed,
    fact_restore,
)

UNDO_HANDLERS = {
    "fact.create": undo_action,
    "fact.edit": undo_action,
    "fact.delete": undo_action,
    "fact.restore": undo_action,
    "fact.embed": undo_action,
    **{f"fact.pair.{how}": undo_action for how in PAIR_ACTIONS},
    "fact.verdict": undo_verdict,
}

__all__ = [
    "PAIR_ACTIONS",
    "UNDO_HANDLERS",
    "VANISHED_SCAN_JOB",
    "FactAction",
    "NeedsConfirmation",
    "ScanCancelled",
    "ScanReport",
    "agent_vector",
    "contradiction_verdict",
    "fact_create",
    "fact_delete",
    "fact_edit",
    "fact_embed",
    "fact_restore",
    "facts_scan",
    "pair_resolve",
    "vanished_scan_run",
]
