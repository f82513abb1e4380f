"""Where a fact went, for a write that names a fact no longer in the collection. The agent
never edits in place: its update deletes the fact and inserts the new text under a new
``_id`` (contract W2), and its start's cleanup deletes the newer of two copies (W3). So an
edit of a fact shown a moment ago finds it gone, and the curator is told, as a 409
``stale``, which fact holds its place now, found the ways the facts domain follows a fact:

1. the vanished-facts tracker's own finding (``SeenFact.related_id``: the update that
   replaced it, or the older copy the cleanup kept), when that fact is still there;
2. qqweb's archive: another curator deleted it (or a resolution archived it) since;
3. the same text under another ``_id`` (a copy the cleanup kept, or an update that wrote
   the text again);
4. the agent's update, as the tracker matches one: of the facts inserted since the gone
   fact (``metadata`` empty, embedded), the most similar to its last vector (the tracker's
   snapshot, else its text embedded with the agent's model), named "probably" and only at a
   cosine of at least :data:`REPLACED_AT`: an update rewrites a value ("drinks green tea
   every morning" / "drinks black coffee": 0.56 with the agent's model), while two facts
   about one person share far less (0.26 for "likes jazz").

A fact the tracker saw and that none of these explains was deleted by the agent (409 too);
one nothing knows of is a 404 (it never was, or went before any scan saw it).
"""

from __future__ import annotations

from memory_app.facts.lib import Fact
from memory_app.facts.lib.domain import (
    EmbeddingState,
    document_from_bson,
    inserted_at,
    written_since,
)
from memory_app.facts.lib.errors import FactChanged, FactGone, FactReplaced
from memory_app.facts.lib.extjson import document_loads
from memory_app.facts.lib.rules import cosine
from memory_app.facts.models import ArchivedFact, SeenFact
from memory_app.facts.services.actions import agent_vector
from qqweb.lib.embeddings import Embedder
from qqweb.lib.errors import QQError

REPLACED_AT = 0.5  # the least cosine at which a fact inserted since is named its update

_UPDATE = "the agent replaced it with an update (a delete, then an insert)"


def gone_error(
    *,
    facts: list[Fact],
    location: str,
    fact_id: str,
    expected: str,
    embedder: Embedder | None = None,
) -> FactChanged:
    """The error for a write on ``fact_id``, shown with the text ``expected`` and not in
    ``facts`` any more: :class:`FactReplaced` naming the fact in its place, FactChanged
    when it is known gone without one, :class:`FactGone` (404) when nothing knows it."""
    by_id = {f.hex_id: f for f in facts}
    seen = SeenFact.objects.filter(location=location, fact_id=fact_id).first()
    if seen is not None and seen.related_id in by_id:
        how = (
            _UPDATE if seen.cause == SeenFact.REPLACED else "the agent's start deleted it as a copy"
        )
        return FactReplaced(fact_id, seen.related_id, by_id[seen.related_id].text, how)
    archived = (
        ArchivedFact.objects.filter(location=location, fact_id=fact_id)
        .exclude(reason=ArchivedFact.VANISHED)
        .order_by("-archived_at")
        .first()
    )
    if archived is not None:
        return FactChanged(fact_id, f"qqweb archived it ({archived.reason}, by {archived.actor})")
    same = [f for f in facts if f.text == expected]
    if same:
        newest = max(same, key=lambda f: f.hex_id)
        return FactReplaced(fact_id, newest.hex_id, newest.text, "it is gone; its text is under")
    update = _likely_update(facts, fact_id, expected, seen, embedder)
    if update is not None:
        return FactReplaced(fact_id, update.hex_id, update.text, f"{_UPDATE}, probably")
    if seen is not None:
        return FactChanged(fact_id, "the agent deleted it")
    return FactGone(fact_id)


def _likely_update(
    facts: list[Fact],
    fact_id: str,
    expected: str,
    seen: SeenFact | None,
    embedder: Embedder | None,
) -> Fact | None:
    """The fact the agent most likely inserted as ``fact_id``'s update (the module's 4)."""
    inserted = inserted_at(fact_id)
    if inserted is None:
        return None
    new = [
        f
        for f in facts
        if f.metadata == {}
        and f.embedding is EmbeddingState.OK
        and written_since(f.hex_id, inserted)
    ]
    if not new:
        return None
    vector = _last_vector(seen, expected, embedder)
    if vector is None:
        return None
    score, best = max(((cosine(vector, f.content_embedding), f) for f in new), key=lambda t: t[0])
    return best if score >= REPLACED_AT else None


def _last_vector(
    seen: SeenFact | None, expected: str, embedder: Embedder | None
) -> list[float] | None:
    """The gone fact's vector as the tracker last saw it, else its text embedded with the
    agent's model (None when the configured embedder is not the agent's)."""
    if seen is not None:
        doc = document_from_bson(document_loads(seen.document))
        if isinstance(doc, Fact) and doc.embedding is EmbeddingState.OK:
            return list(doc.content_embedding)
    try:
        return agent_vector(expected, embedder)
    except QQError:
        return None
