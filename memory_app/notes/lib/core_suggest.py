"""The core.md category a promotion candidate is offered with (the Core page, a note's
page). A simple rule, first answer wins:

1. the agent's own core-candidate patterns (``markdown_notes.core_category``: "my name",
   "our project", "colleague", "server" ...), as the agent would file it;
2. words of a category, whole words only: a setting, a machine or a program is System
   ("Tailscale is configured with a 5 second timeout"), work on a project is Projects, a
   person close to the user is Relationships;
3. a note of the section "People & Entities" is Relationships (about someone else);
4. a name, home, taste or contact is Identity.

Otherwise no category: the form asks "Choose…" and promotes nothing until one is
picked (the first of the list was once the default, and a setting landed in Identity).
"""

from __future__ import annotations

import re

from memory_app.notes.lib.markdown_notes import core_category

_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "System",
        re.compile(
            r"\b(config\w*|settings?|timeouts?|ports?|hosts?|servers?|install\w*|versions?|"
            r"deploy\w*|databases?|network\w*|vpn|ssh|docker|kubernetes|linux|macos|windows|"
            r"laptop|desktop|disk|ram|gpu|cpu|os|api keys?|environment|backups?|"
            r"tailscale|nginx|postgres\w*|mongo\w*|redis|neo4j|python|node)\b"
        ),
    ),
    (
        "Projects",
        re.compile(
            r"\b(projects?|repo(sitory|sitories|s)?|codebase|releases?|milestones?|roadmap|"
            r"sprints?|features?|launch\w*|prototype|mvp|deadline)\b"
        ),
    ),
    (
        "Relationships",
        re.compile(
            r"\b(wife|husband|partner|girlfriend|boyfriend|friends?|colleagues?|coworkers?|"
            r"manager|boss|mentor|mother|father|mom|mum|dad|sister|brother|daughter|son|"
            r"kids?|children|family|cousin|aunt|uncle|neighbou?r)\b"
        ),
    ),
    (
        "Identity",
        re.compile(
            r"\b(name|birthday|born|lives|prefers|likes|dislikes|favou?rite|allergic|"
            r"vegetarian|vegan|pronouns|email|phone|timezone|time zone)\b"
        ),
    ),
)

_SECTIONS = {"People & Entities": "Relationships"}


def core_category_suggest(content: str, section: str | None = None) -> str:
    """The category to offer for a note (see the module's rule), or "" for "Choose…"."""
    ok, category = core_category(content)
    if ok:
        return category
    text = content.lower()
    for name, pattern in _WORDS[:-1]:
        if pattern.search(text):
            return name
    if section and section in _SECTIONS:
        return _SECTIONS[section]
    return "Identity" if _WORDS[-1][1].search(text) else ""
