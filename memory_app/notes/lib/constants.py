"""Names fixed by the qq agent (see shared/qq-data-contract.md). Exact spelling matters."""

from __future__ import annotations

import re

SECTIONS: tuple[str, ...] = (
    "Key Topics",
    "Important Facts",
    "People & Entities",
    "Ongoing Threads",
    "File Knowledge",
)

CORE_CATEGORIES: tuple[str, ...] = ("Identity", "Projects", "Relationships", "System")

DEFAULT_DATABASE = "qq_memory"
DEFAULT_COLLECTION = "notes"
DEFAULT_IMPORTANCE = 0.5
DEFAULT_DECAY_RATE = 0.01

# New ids: "note_" + 12 hex chars of a uuid4. Legacy ids: 16 hex chars of sha256(content).
NOTE_ID_RE = re.compile(r"^(note_[0-9a-f]{12}|[0-9a-f]{16})$")
