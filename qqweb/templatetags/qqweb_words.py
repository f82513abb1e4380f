"""``{{ key|words }}``: a stored key ("of_notes", "agent_differs_rate", "archive_purge")
as a curator reads it ("of the notes", "agent differs", "Archive purge"): the labels
below, else the key with its underscores as spaces. A page never shows a raw key."""

from __future__ import annotations

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

LABELS = {
    "of_notes": "of the notes",
    "agent_differs_rate": "share where the agent differs",
    "full_because": "a full scan, because",
    "vectors_read_from": "vectors read from",
    "use_llm": "use an LLM",
    "dry_run": "dry run",
    "left_for_review": "left for review",
    "archive_purge": "archive purge",
    "auto_consolidation": "auto-consolidation",
    "dedup_scan": "duplicate scan",
    "promotion_scan": "promotion scan",
    "vector_index_rebuild": "vector index rebuild",
    "graph_orphan_scan": "graph orphan scan",
    "graph_reembed": "graph re-embedding",
    "reembed": "re-embedding",
}


@register.filter
def words(key: object) -> str:
    text = str(key)
    return LABELS.get(text, text.replace("_", " "))


@register.filter
def ticks_as_code(text: object) -> SafeString:
    """A message whose commands are written in backticks ("`make dev` is starting it"),
    escaped, with each `command` shown as code instead of its backticks."""
    parts = conditional_escape(str(text)).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: shown as it is
        return mark_safe("`".join(parts))  # noqa: S308 (escaped above)
    shown = [f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)]
    return mark_safe("".join(shown))  # noqa: S308 (escaped above)
