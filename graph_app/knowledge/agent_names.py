"""What the agent does with entity names, which a curator must know before a rename or a
merge (the contract's Neo4j section): its lookups match ``name`` only and never consult
``aliases``, so an old name kept as an alias does not stop it from creating a new entity
of that name the next time it meets it; and its ``create_entity`` with aliases replaces
the whole ``aliases`` list. Pure text, no I/O: the previews (pages and API) show it, in
words (names in curly quotes, no function names of the agent).
"""

from __future__ import annotations

from collections.abc import Iterable

MERGED_BEFORE = "merged before"


def forgotten_names_warnings(names: Iterable[str], survivor: str) -> list[str]:
    """The warnings of an action after which ``names`` live on only as aliases of
    ``survivor`` (a rename: the old name; a merge: the merged entity's name and aliases)."""
    shown = ", ".join(f"“{n}”" for n in dict.fromkeys(n for n in names if n))
    if not shown:
        return []
    return [
        f"The agent looks entities up by name only and never reads aliases: the next time "
        f"it meets {shown}, a new entity of that name is created beside “{survivor}”. Such "
        f'an entity shows up first among the duplicate candidates, marked "{MERGED_BEFORE}".',
        "When the agent writes an entity with aliases, it replaces the whole alias list: "
        f"the aliases kept on “{survivor}” last until the agent writes its aliases again.",
    ]


def merged_before_note(alias: str, holder: str) -> str:
    """Why an entity named like an alias of another of its label is a duplicate."""
    return (
        f"{alias!r} is an alias of {holder!r} (a rename or a merge kept it): the agent, "
        "which never reads aliases, created it again"
    )
