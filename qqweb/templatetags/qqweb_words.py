"""``{{ key|words }}``: a stored key as a curator reads it (``qqweb.lib.words``),
``{{ reason|archive_reason }}`` and ``{{ rows|archive_reasons }}``: the agent's archive
reasons in words (with ``:"<url>?reason="`` each row links to its lines),
``{{ text|ticks_as_code }}``: a message's `commands` as code,
``{% bar_href row link none_link as href %}``: where a bar of ``_bars.html`` leads, and
``{{ moment|when }}``: a date and time in one format, the exact value in its title."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from urllib.parse import quote

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from qqweb.lib.dates import moment
from qqweb.lib.words import (
    action_words,
    actor_words,
    archive_reason_words,
    key_words,
    run_stats_words,
)

register = template.Library()


@register.filter
def words(key: object) -> str:
    return key_words(str(key))


@register.filter
def action(name: object) -> str:
    """``{{ e.action|action }}``: "Pin a recall" (``action_words``)."""
    return action_words(str(name or ""))


@register.filter
def who(label: object) -> str:
    """``{{ run.started_by|who }}``: "admin", "facts scan (automatic)" (``actor_words``)."""
    return actor_words(str(label or ""))


@register.filter
def archive_reason(reason: object) -> str:
    return archive_reason_words(str(reason or ""))


@register.filter
def archive_reasons(rows: Iterable[tuple[str, int]], link: str = "") -> list[tuple[object, ...]]:
    """(reason, count) rows (the Archive page's "By reason") with each reason in words;
    with ``link`` (a URL ending in ``reason=``) each row also carries its href, the link
    plus the reason as counted (the group's key, not its words)."""
    if not link:
        return [(archive_reason_words(reason), count) for reason, count in rows]
    return [
        (archive_reason_words(reason), count, f"{link}{quote(reason, safe='/')}")
        for reason, count in rows
    ]


@register.simple_tag
def bar_href(row: Sequence[object], link: object = "", none_link: object = "") -> str:
    """The href of a ``_bars.html`` row: its own third item, else ``link`` plus its name
    (quoted as Django's ``urlencode`` quotes), or for a "(no ...)" row ``none_link``; ""
    for no link."""
    if len(row) > 2:
        return str(row[2] or "")
    name = str(row[0])
    if name.startswith("("):
        return str(none_link or "")
    return f"{link}{quote(name, safe='/')}" if link else ""


@register.filter
def ticks_as_code(text: object) -> SafeString:
    """A message whose commands are written in backticks ("`make dev` is starting it"),
    escaped, with each `command` shown as code instead of its backticks."""
    parts = conditional_escape(str(text)).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: shown as it is
        return mark_safe("`".join(parts))  # noqa: S308 (escaped above)
    shown = [f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)]
    return mark_safe("".join(shown))  # noqa: S308 (escaped above)


@register.filter
def when(value: object) -> SafeString | str:
    """``{{ note.updated_at|when }}``: a moment in one format ("28 Nov 2026, 14:05 UTC")
    in a ``<time>`` that does not wrap, its exact stored value in the title
    (``qqweb.lib.dates``). Not a moment: the value as it is, escaped ("" for ``None``, so
    ``|default:"never"`` still works)."""
    found = moment(value)
    if found is None:
        return "" if value is None else conditional_escape(str(value))
    return format_html(
        '<time class="when" datetime="{}" title="{}">{}</time>',
        found.machine,
        found.exact,
        found.text,
    )


@register.filter
def stats_words(stats: object) -> list[tuple[str, str, str]]:
    """``{% for key, label, value in run.stats|stats_words %}``: a run's stats in words
    (``run_stats_words``), the same on its page and on the Jobs page."""
    return run_stats_words(stats)
