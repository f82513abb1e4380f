"""Every record of an export checked before an import writes anything.

:class:`RecordChecker` takes the lines of a file (``ndjson.read_lines``) one by one and
refuses, with a reason in words, each record the stores would not take as qqweb's own
writes: it calls the stores' own checks (notes: ``note_document_problem``, facts:
``fact_document_problem``, graph: ``node_problem`` / ``relationship_problem``, pins:
``pin_record_problem``, the API's own checks of a pin; memory files:
``checked_file_name``; each ``archive.jsonl`` line: ``archive_entry_problem``, what a
restore asks of it) and adds what only the whole file can tell: a note id or ``_id``, fact
id or node id given twice, a relationship whose end is not a node before it in the file
(or is a refused one), a memory file whose lines do not match its ``file_end``, an end
record whose counts do not match the file. An archive line is refused alone: its file is
taken without it. No store is read here but for the notes' vector dimension, given as a
function and asked only when a vector needs it.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from graph_app.knowledge.backup_checks import node_problem, relationship_problem
from memory_app.facts.lib.domain import fact_document_problem
from memory_app.notes.lib import InvalidBackupFile
from memory_app.notes.lib.archive.entries import archive_entry_problem
from memory_app.notes.lib.backup_files import ARCHIVE, checked_file_name
from memory_app.notes.lib.documents import note_document_problem
from qqweb.backup import ndjson
from qqweb.backup.ndjson import ExportFormatError, Line
from qqweb.recall.backup import pin_record_problem

LISTED = 1000  # refused records listed by a preview (all are counted, and left out)


@dataclass(frozen=True)
class Refusal:
    line: int  # the first line of the record (of a memory file: its first line)
    kind: str  # note, fact, node, relationship, file, or "" for a line not read
    what: str  # the record's name in the file: a note id, a node id, a file name
    reason: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        name = f" {self.what}" if self.what else ""
        return f"line {self.line} ({self.kind or 'unreadable'}{name}): {self.reason}"


@dataclass
class _OpenFile:
    name: str
    first: int
    lines: list[int] = field(default_factory=list)
    digest: Any = field(default_factory=hashlib.sha256)
    problem: str = ""


def archive_line_problem(data: bytes) -> tuple[str, str]:
    """An ``archive.jsonl`` line of a backup read as the archive page reads it, and checked
    as a restore checks it (``archive_entry_problem``): ``(note_id, why it is refused)``,
    the reason '' when it is taken. A blank line is taken (the archive skips it)."""
    if not data.strip():
        return "", ""
    try:
        entry = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        return "", "it is not UTF-8 text"
    except (ValueError, RecursionError) as e:
        return "", f"it is not a JSON object of an archived note ({str(e)[:80]})"
    if not isinstance(entry, dict):
        return "", "it is not a JSON object of an archived note"
    return _what(entry.get("note_id")), archive_entry_problem(entry)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _what(value: Any) -> str:
    return value[:80] if isinstance(value, str) else ""


class RecordChecker:
    """Feed it every :class:`~qqweb.backup.ndjson.Line` (:meth:`take`), then
    :meth:`finish`; ``refused_lines`` are the line numbers an import leaves out."""

    def __init__(self, dimension: Callable[[], int | None]) -> None:
        self._dimension = dimension
        self._dimension_known = False
        self._dimension_value: int | None = None
        self.refusals: list[Refusal] = []
        self.refused_count = 0
        self.refused_lines: set[int] = set()
        # archive.jsonl's lines refused one by one: their file, when taken, is written
        # without them (they are not in ``refused_lines``, which leaves out whole records)
        self.left_out_lines: set[int] = set()
        self.seen: Counter[str] = Counter()  # readable records of each counted kind
        self.unreadable = 0
        self.counts: dict[str, int] = {}
        self._note_ids: set[str] = set()
        self._note_object_ids: set[Any] = set()
        self._fact_ids: set[Any] = set()
        self._nodes: dict[str, bool] = {}  # node id -> taken (False: refused)
        self._file: _OpenFile | None = None

    # --- the lines --------------------------------------------------------------------

    def take(self, line: Line) -> None:
        if line.record is None:
            self.unreadable += 1
            self._refuse(line.number, "", "", line.problem)
            return
        record, kind = line.record, line.kind
        if kind in ndjson.COUNTED:
            self.seen[kind] += 1
        if kind not in ("file_line", "file_end"):
            self._close_open_file("it is not closed by its file_end")
        if kind == "note":
            self._note(line.number, record["document"])
        elif kind == "fact":
            self._fact(line.number, record["document"])
        elif kind == "node":
            self._node(line.number, record)
        elif kind == "relationship":
            self._relationship(line.number, record)
        elif kind == "pin":
            problem = pin_record_problem(record)
            if problem:
                self._refuse(line.number, "pin", _what(record.get("query")), problem)
        elif kind == "file_line":
            self._file_line(line.number, record)
        elif kind == "file_end":
            self._file_end(line.number, record)
        elif kind == "end":
            self._end(line.number, record)

    def finish(self) -> None:
        """The end record's counts against the file (a file whose counts do not match
        was cut or edited: refused whole, raising :class:`ExportFormatError`)."""
        self._close_open_file("it is not closed by its file_end")
        missing = sum(self.counts.values()) - sum(self.seen.values())
        for kind in ndjson.COUNTED:
            expected, count = self.counts.get(kind, 0), self.seen.get(kind, 0)
            # lines that cannot be read may be the records missing from a kind's count
            if count > expected or (count < expected and missing > self.unreadable):
                raise ExportFormatError(
                    0, f"the end record counts {expected} {kind} records, the file holds {count}"
                )

    # --- each kind --------------------------------------------------------------------

    def _refuse(self, line: int, kind: str, what: str, reason: str, lines: Any = None) -> None:
        self.refused_count += 1
        self.refused_lines.update(lines if lines is not None else (line,))
        if len(self.refusals) < LISTED:
            self.refusals.append(Refusal(line, kind, what, reason))

    def _notes_dimension(self) -> int | None:
        if not self._dimension_known:
            self._dimension_value = self._dimension()
            self._dimension_known = True
        return self._dimension_value

    def _note(self, number: int, doc: dict[str, Any]) -> None:
        vector = doc.get("embedding")
        needs_dimension = isinstance(vector, list) and bool(vector)
        dimension = self._notes_dimension() if needs_dimension else None
        problem = note_document_problem(doc, dimension=dimension)
        note_id, object_id = doc.get("note_id"), doc.get("_id")
        if not problem and note_id in self._note_ids:
            problem = f"the note id {note_id!r} is given twice in the file"
        if not problem and object_id is not None and object_id in self._note_object_ids:
            problem = f"its _id {object_id} is given twice in the file"
        if problem:
            self._refuse(number, "note", _what(note_id), problem)
        else:
            self._note_ids.add(str(note_id))
            if object_id is not None:
                self._note_object_ids.add(object_id)

    def _fact(self, number: int, doc: dict[str, Any]) -> None:
        problem = fact_document_problem(doc)
        fact_id = doc.get("_id")
        if not problem and fact_id in self._fact_ids:
            problem = f"the fact id {fact_id} is given twice in the file"
        if problem:
            self._refuse(number, "fact", str(fact_id)[:80] if fact_id else "", problem)
        else:
            self._fact_ids.add(fact_id)

    def _node(self, number: int, record: dict[str, Any]) -> None:
        node_id = record.get("id")
        problem = node_problem(node_id, record.get("labels"), record.get("props"))
        if not problem and node_id in self._nodes:
            problem = f"the node id {node_id!r} is given twice in the file"
        if problem:
            self._refuse(number, "node", _what(node_id), problem)
        if isinstance(node_id, str) and node_id not in self._nodes:
            self._nodes[node_id] = not problem

    def _relationship(self, number: int, record: dict[str, Any]) -> None:
        start, rel_type, end = record.get("start"), record.get("type"), record.get("end")
        problem = relationship_problem(start, rel_type, end, record.get("props"))
        for name, node_id in (("start", start), ("end", end)):
            if problem:
                break
            taken = self._nodes.get(str(node_id))
            if taken is None:
                problem = f"its {name} node {node_id!r} is not a node before it in the file"
            elif not taken:
                problem = f"its {name} node {node_id!r} is refused"
        if problem:
            self._refuse(number, "relationship", f"{_what(start)}-{_what(rel_type)}", problem)

    def _file_line(self, number: int, record: dict[str, Any]) -> None:
        name = record.get("name")
        if self._file is not None and self._file.name != name:
            self._close_open_file("the next file starts before its file_end")
        if self._file is None:
            self._file = _OpenFile(_what(name) or "?", number)
            try:
                checked_file_name(name)  # type: ignore[arg-type]
            except InvalidBackupFile as e:
                self._file.problem = e.message
        self._file.lines.append(number)
        if self._file.problem:
            return
        try:
            data = ndjson.file_line_bytes(record)
        except ValueError as e:
            self._file.problem = f"its line {number} is not readable: {e}"
            return
        self._file.digest.update(data)
        if self._file.name != ARCHIVE and not _utf8(data):
            # the agent and the core page read the markdown files as UTF-8, strictly
            self._file.problem = f"its line {number} is not UTF-8 text"
        elif self._file.name == ARCHIVE:
            note_id, problem = archive_line_problem(data)
            if problem:
                self._refuse(number, "archive line", note_id, problem, lines=())
                self.left_out_lines.add(number)

    def _file_end(self, number: int, record: dict[str, Any]) -> None:
        name = record.get("name")
        if self._file is None:  # an empty file: no lines, then its end
            self._file = _OpenFile(_what(name) or "?", number)
            try:
                checked_file_name(name)  # type: ignore[arg-type]
            except InvalidBackupFile as e:
                self._file.problem = e.message
        opened = self._file
        opened.lines.append(number)
        if not opened.problem and name != opened.name:
            opened.problem = f"it is closed by the file_end of {_what(name)!r}"
        if not opened.problem and (
            record.get("lines") != len(opened.lines) - 1
            or record.get("sha256") != opened.digest.hexdigest()
        ):
            opened.problem = "its lines do not match its line count and SHA-256"
        if opened.problem:
            self._refuse(opened.first, "file", opened.name, opened.problem, opened.lines)
        self._file = None

    def _close_open_file(self, reason: str) -> None:
        opened, self._file = self._file, None
        if opened is not None:
            self._refuse(opened.first, "file", opened.name, opened.problem or reason, opened.lines)

    def _end(self, number: int, record: dict[str, Any]) -> None:
        counts = record.get("counts")
        if not isinstance(counts, dict) or not all(
            type(counts.get(k, 0)) is int and counts.get(k, 0) >= 0 for k in ndjson.COUNTED
        ):
            raise ExportFormatError(number, "the end record's counts are not whole numbers")
        self.counts = {k: int(counts.get(k, 0)) for k in ndjson.COUNTED}
