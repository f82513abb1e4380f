"""core.md (protected notes) and notes.md (working notes), in the agent's templates.

Both are markdown files of ``## <Section>`` headings with ``- `` bullets, newest first
(a new item goes right under its heading, after core.md's comment line). Every write
takes the agent's lock (``core.lock`` / ``notes.lock``), re-reads the file under it and
replaces the file through a temp file. An empty file (the agent's purge truncates it) is
recreated from the template.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from memory_app.notes.lib.constants import CORE_CATEGORIES, SECTIONS
from memory_app.notes.lib.errors import InvalidNote
from qqweb.lib.files import atomic_write_text, file_lock

_LAST_UPDATED_RE = re.compile(r"Last updated: .*")


def _stamp() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M")


class MarkdownNotesFile:
    file_name = ""
    lock_name = ""
    sections: tuple[str, ...] = ()

    def __init__(self, memory_dir: str | Path = "./memory") -> None:
        self.memory_dir = Path(memory_dir).expanduser()
        self.path = self.memory_dir / self.file_name
        self.lock_file = self.memory_dir / self.lock_name

    def template(self) -> str:
        raise NotImplementedError

    def _read_unlocked(self) -> str:
        text = self.path.read_text(encoding="utf-8") if self.path.exists() else ""
        return text if text.strip() else self.template()

    def read_text(self) -> str:
        with file_lock(self.lock_file, exclusive=False):
            return self._read_unlocked()

    def items_by_section(self) -> dict[str, list[str]]:
        return parse_sections(self.read_text(), self.sections)

    def add_item(self, section: str, content: str) -> bool:
        """Insert ``- content`` right under the heading; False if it is there already."""
        if section not in self.sections:
            raise InvalidNote("section", f"must be one of {', '.join(self.sections)}")
        line = " ".join(content.split())
        if not line:
            raise InvalidNote("content", "must not be empty")
        if "Last updated:" in line:
            raise InvalidNote("content", "must not contain 'Last updated:'")
        with file_lock(self.lock_file, exclusive=True):
            text = self._read_unlocked()
            if line.lower() in (item.lower() for item in _all_items(text, self.sections)):
                return False
            heading = re.search(rf"^## {re.escape(section)}\n(?:<!--.*?-->\n)?", text, re.M)
            if heading is None:
                text = text.rstrip("\n") + f"\n\n## {section}\n"
                heading = re.search(rf"^## {re.escape(section)}\n", text, re.M)
                assert heading is not None
            text = text[: heading.end()] + f"- {line}\n" + text[heading.end() :]
            self._write_unlocked(text)
        return True

    def remove_item(self, section: str, content: str) -> bool:
        """Remove the bullet whose text is exactly ``content`` (case-insensitive)."""
        return self._edit_item(section, content, None)

    def replace_item(self, section: str, old: str, new: str) -> bool:
        line = " ".join(new.split())
        if not line:
            raise InvalidNote("content", "must not be empty")
        if "Last updated:" in line:
            raise InvalidNote("content", "must not contain 'Last updated:'")
        return self._edit_item(section, old, line)

    def _edit_item(self, section: str, content: str, replacement: str | None) -> bool:
        if section not in self.sections:
            raise InvalidNote("section", f"must be one of {', '.join(self.sections)}")
        wanted = " ".join(content.split()).lower()
        with file_lock(self.lock_file, exclusive=True):
            text = self._read_unlocked()
            lines = text.splitlines(keepends=True)
            current = None
            for index, raw in enumerate(lines):
                if raw.startswith("## "):
                    current = raw[3:].strip()
                elif (
                    current == section
                    and raw.strip().startswith("- ")
                    and " ".join(raw.strip()[2:].split()).lower() == wanted
                ):
                    if replacement is None:
                        del lines[index]
                    else:
                        lines[index] = f"- {replacement}\n"
                    self._write_unlocked("".join(lines))
                    return True
        return False

    def ensure_exists(self) -> None:
        with file_lock(self.lock_file, exclusive=True):
            if not self.path.exists() or not self.path.read_text(encoding="utf-8").strip():
                self._write_unlocked(self.template())

    def _write_unlocked(self, text: str) -> None:
        atomic_write_text(self.path, _LAST_UPDATED_RE.sub(f"Last updated: {_stamp()}", text, 1))


_CORE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Identity", re.compile(r"\b(my name|i am|i'm|i prefer|call me)\b")),
    ("Identity", re.compile(r"\b(my role|i work|my job|i do)\b")),
    ("Identity", re.compile(r"\b(i live|my location|i'm from|i'm in)\b")),
    ("Identity", re.compile(r"\b(my email|my phone|contact me)\b")),
    ("Projects", re.compile(r"\b(my project|i'm (building|working on|developing))\b")),
    ("Projects", re.compile(r"\b(our (project|system|app))\b")),
    ("Relationships", re.compile(r"\b(collaborat|colleague|team|partner|friend)\b")),
    ("System", re.compile(r"\b(hardware|gpu|cpu|server|machine|setup|config)\b")),
)


def core_category(content: str) -> tuple[bool, str]:
    """The agent's core-candidate patterns, first match wins: (is candidate, category)."""
    text = content.lower()
    for category, pattern in _CORE_RULES:
        if pattern.search(text):
            return True, category
    return False, ""


def parse_sections(text: str, sections: tuple[str, ...]) -> dict[str, list[str]]:
    result: dict[str, list[str]] = {name: [] for name in sections}
    current: str | None = None
    for raw in text.splitlines():
        if raw.startswith("## "):
            current = raw[3:].strip()
            result.setdefault(current, [])
        elif current is not None and raw.strip().startswith("- "):
            result[current].append(raw.strip()[2:])
    return result


def _all_items(text: str, sections: tuple[str, ...]) -> list[str]:
    return [item for items in parse_sections(text, sections).values() for item in items]


class CoreNotesManager(MarkdownNotesFile):
    file_name = "core.md"
    lock_name = "core.lock"
    sections = CORE_CATEGORIES

    def template(self) -> str:
        return (
            "# Core Memory\n\n"
            f"Last updated: {_stamp()}\n\n"
            "These are protected notes that will never be automatically forgotten.\n\n"
            "## Identity\n"
            "<!-- User's personal information: name, location, role, preferences -->\n\n"
            "## Projects\n<!-- Active projects the user is working on -->\n\n"
            "## Relationships\n<!-- Important people, collaborators, contacts -->\n\n"
            "## System\n<!-- Hardware, setup, configuration details -->\n\n"
        )

    def add_core(self, content: str, category: str, source: str = "auto") -> bool:
        return self.add_item(category, content)

    def remove_core(self, pattern: str, category: str | None = None) -> bool:
        """The agent's API: remove bullets containing ``pattern`` (literally)."""
        removed = False
        for name in [category] if category else list(self.sections):
            for item in self.items_by_section().get(name or "", []):
                if pattern.lower() in item.lower():
                    removed = self.remove_item(str(name), item) or removed
        return removed

    @staticmethod
    def is_core_candidate(content: str) -> tuple[bool, str]:
        return core_category(content)

    def suggest_promotion(self, content: str, importance: float) -> str | None:
        if importance < 0.8:
            return None
        ok, category = core_category(content)
        return category if ok else None

    def get_all_items(self) -> dict[str, list[str]]:
        return self.items_by_section()


class NotesManager(MarkdownNotesFile):
    file_name = "notes.md"
    lock_name = "notes.lock"
    sections = SECTIONS

    def __init__(self, memory_dir: str | Path = "./memory", agent_id: str | None = None) -> None:
        if agent_id is not None:
            if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", agent_id):
                raise InvalidNote("agent_id", "letters, digits, '-' and '_' only")
            # the agent's sub-agents lock their own file: notes.<id>.md, notes.<id>.lock
            self.file_name = f"notes.{agent_id}.md"
            self.lock_name = f"notes.{agent_id}.lock"
        super().__init__(memory_dir)

    def template(self) -> str:
        body = "".join(f"## {name}\n\n" for name in SECTIONS)
        return f"# QQ Memory Notes\n\nLast updated: {_stamp()}\n\n{body}"

    def add_note(self, section: str, content: str) -> bool:
        return self.add_item(section, content)

    def get_all_items(self) -> dict[str, list[str]]:
        return self.items_by_section()
