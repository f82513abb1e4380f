"""What the agent would inject into its context for a message: the retrieval preview."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from memory_app.notes.lib.domain import Note
from memory_app.notes.selectors.notes import notes_search
from memory_app.notes.stores import core_notes
from qqweb.lib.errors import InvalidInput, QQError
from qqweb.lib.links import RelatedEntity, entities_reader


@dataclass
class RetrievalPreview:
    message: str
    core: dict[str, list[str]]
    notes: list[Note]
    entities: list[RelatedEntity]
    warnings: list[str] = field(default_factory=list)

    @property
    def markdown(self) -> str:
        """The block as the agent's prompt would carry it."""
        parts = ["## Core Memory"]
        for category, items in self.core.items():
            if items:
                parts.append(f"### {category}")
                parts.extend(f"- {item}" for item in items)
        if self.notes:
            parts.append("\n## Relevant Notes")
            parts.extend(f"- {n.content} (relevance {n.score or 0:.2f})" for n in self.notes)
        if self.entities:
            parts.append("\n## Related Entities")
            for e in self.entities:
                line = f"- {e.name} ({e.label})"
                if e.description:
                    line += f": {e.description}"
                parts.append(line)
                parts.extend(f"  - {'→' if r.outgoing else '←'} {r.type} {r.other}" for r in e.rels)
        return "\n".join(parts)


PREVIEW_LIMIT = 10  # the notes the preview cites at most (the memory tests' k)


def retrieval_preview(*, message: str, limit: int = PREVIEW_LIMIT) -> RetrievalPreview:
    """Core notes (always injected), the notes scoring at least QQ_CITE_THRESHOLD whose
    effective importance is at least QQ_MIN_RETRIEVAL_IMPORTANCE, and the graph entities
    the message names (read from the graph app through ``qqweb.lib.links``). A store that
    is down is a warning, not an error."""
    message = message.strip()
    if not message:
        raise InvalidInput("message", "type the message the agent would receive")
    preview = RetrievalPreview(message, core_notes().get_all_items(), [], [])
    try:
        found = notes_search(query=message, min_score=settings.QQ_CITE_THRESHOLD, limit=limit)
        preview.notes = [
            n
            for n in found.results
            if (n.effective_importance or 0.0) >= settings.QQ_MIN_RETRIEVAL_IMPORTANCE
        ]
        if len(preview.notes) < len(found.results):
            preview.warnings.append(
                f"{len(found.results) - len(preview.notes)} matching notes left out: their "
                f"effective importance is below {settings.QQ_MIN_RETRIEVAL_IMPORTANCE}"
            )
    except QQError as e:
        preview.warnings.append(str(e))
    related = entities_reader().entities_mentioned_in(message, limit=limit)
    preview.entities = related.entities
    if related.unavailable:
        preview.warnings.append(related.unavailable)
    return preview
