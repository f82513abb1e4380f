"""The export format: NDJSON, one JSON object per line, each with a ``kind``.

Pure functions (no Django, no stores): encode a record as one line, read the lines of a
file back as records, checking the header's format and version. docs/backup-and-restore.md
("The format") documents the records; in short:

- ``header`` first: ``format`` "qqweb-export", ``version`` 1, ``created_at``, ``stores``;
- ``note``: ``document``, a notes document in MongoDB extended JSON where types would
  otherwise be lost (``$oid``, ``$date``, ``$numberLong``, ``$binary``, ...; doubles are
  plain JSON numbers, always written with a ``.`` or an exponent, and ints of 32 bits plain
  integers);
- ``file_line``: ``name`` and ``text`` (or ``base64`` for a line that is not UTF-8), one
  line of a memory-directory file with its ``\\n``; then ``file_end`` with ``lines`` and
  the ``sha256`` of the file;
- ``node``: ``id`` (its element id in the exported graph), ``labels``, ``props``;
  ``relationship``: ``start``, ``type``, ``end`` (node ids), ``props``. Neo4j temporal
  values are ``{"$neo4j": "DateTime", "iso": "...123456789+00:00"}`` (nanoseconds kept),
  points and byte arrays are tagged the same way;
- ``fact``: ``document``, a facts document, encoded like a note;
- ``pin``: a memory test's pinned recall: ``source``, ``query``, ``item_id``,
  ``item_text``, ``comment``, ``created_by``, ``created_at`` (ISO 8601);
- ``end`` last: ``counts`` of every kind. A file without it was cut short and is refused.

Reading (:func:`read_lines`) tells two kinds of trouble apart. A file that is not an export
this version reads (no header, another format or version, empty, cut short, a record after
the end) raises :class:`ExportFormatError`. A line that cannot be read (not UTF-8, not
JSON, nested too deep, not an object, an unknown kind, a malformed ``$oid`` or ``$date``)
is yielded as a :class:`Line` with its ``problem`` in words, so the preview can list it
with every other refused record.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bson import json_util
from bson.int64 import Int64
from bson.json_util import JSONMode, JSONOptions

from qqweb.lib.mongo.safe_values import MAX_DEPTH

FORMAT = "qqweb-export"
VERSION = 1
KINDS = (
    "header",
    "note",
    "file_line",
    "file_end",
    "node",
    "relationship",
    "fact",
    "pin",
    "end",
)
DOCUMENT_KINDS = ("note", "fact")
COUNTED = ("note", "file_line", "node", "relationship", "fact", "pin")

_BSON_OPTIONS = JSONOptions(json_mode=JSONMode.CANONICAL, tz_aware=False)


class ExportFormatError(ValueError):
    """The file is not an export this version can read; says where and why."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


def bson_to_json(value: Any) -> Any:
    """A BSON value (as pymongo decodes it) as JSON-safe data that :func:`bson_from_json`
    turns back into the same value and type."""
    if isinstance(value, dict):
        return {str(k): bson_to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [bson_to_json(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, Int64):
        return {"$numberLong": str(int(value))}
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {
            "$numberDouble": "NaN" if math.isnan(value) else f"{'-' if value < 0 else ''}Infinity"
        }
    return json.loads(json_util.dumps(value, json_options=_BSON_OPTIONS))


def line_for(record: Mapping[str, Any]) -> str:
    """One record as one line (compact JSON, non-ASCII kept, with its newline)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


def document_record(kind: str, document: Mapping[str, Any]) -> dict[str, Any]:
    return {"kind": kind, "document": bson_to_json(document)}


def file_line_record(name: str, line: bytes) -> dict[str, Any]:
    try:
        return {"kind": "file_line", "name": name, "text": line.decode("utf-8")}
    except UnicodeDecodeError:
        return {"kind": "file_line", "name": name, "base64": base64.b64encode(line).decode()}


def file_line_bytes(record: Mapping[str, Any]) -> bytes:
    """The bytes of a ``file_line`` record; ValueError when it holds neither a ``text``
    string nor valid ``base64``."""
    if isinstance(record.get("text"), str):
        return str(record["text"]).encode("utf-8")
    if isinstance(record.get("base64"), str):
        try:
            return base64.b64decode(str(record["base64"]), validate=True)
        except binascii.Error as e:
            raise ValueError("its base64 is not valid base64") from e
    raise ValueError("it has neither a text string nor base64")


@dataclass(frozen=True)
class Line:
    """One line after the header: its ``record`` (documents decoded to BSON values), or
    None and the ``problem`` that kept it from being read, in words."""

    number: int
    record: dict[str, Any] | None
    problem: str = ""

    @property
    def kind(self) -> str:
        return str(self.record["kind"]) if self.record is not None else ""


class _BadValue(ValueError):
    def __init__(self, path: str, value: Any) -> None:
        super().__init__(path)
        self.path, self.value = path, value


_FLAT = frozenset({int, float, str, bool, type(None)})
# An escaped UTF-16 surrogate: a valid pair is text, a lone one cannot be stored.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_TAG_NAMES = {
    "$oid": "an ObjectId ($oid) must be 24 hexadecimal digits",
    "$date": "a date ($date) must be an ISO date or milliseconds since 1970",
    "$numberLong": "a 64-bit integer ($numberLong) must be digits",
    "$numberInt": "a 32-bit integer ($numberInt) must be digits",
    "$numberDouble": "a double ($numberDouble) must be a number",
    "$numberDecimal": "a decimal ($numberDecimal) must be a number",
    "$binary": "binary data ($binary) must be base64 with a subtype",
}


def _decoded(value: Any, path: str, depth: int = 0) -> Any:
    """``value`` with every extended-JSON object turned into its BSON value, as
    ``json.loads`` with bson's ``object_pairs_hook`` would, bottom-up; a value the hook
    refuses raises :class:`_BadValue` naming where it is."""
    if depth > MAX_DEPTH:
        raise _BadValue(path, "nested deeper than the limit")
    if isinstance(value, dict):
        pairs = [(k, _decoded(v, f"{path}.{k}", depth + 1)) for k, v in value.items()]
        try:
            return json_util.object_pairs_hook(pairs, json_options=_BSON_OPTIONS)
        except Exception as e:  # InvalidId, ValueError, OverflowError, InvalidBSON...: all
            raise _BadValue(path, value) from e  # mean "this tagged value cannot be read"
    if isinstance(value, list):
        if set(map(type, value)) <= _FLAT:
            return value
        return [_decoded(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    return value


def _bad_value_words(error: _BadValue) -> str:
    if isinstance(error.value, dict):
        for tag, words in _TAG_NAMES.items():
            if tag in error.value:
                return f"{error.path} cannot be read: {words}"
        tags = ", ".join(sorted(k for k in error.value if k.startswith("$")))
        return f"{error.path} is a MongoDB extended-JSON value ({tags}) that cannot be read"
    return f"{error.path} nests deeper than {MAX_DEPTH} levels"


def read_lines(path: Path) -> Iterator[Line]:
    """Every line of an export after its header (see the module); raises
    :class:`ExportFormatError` when the file is not one this version reads."""
    with open(path, "rb") as handle:
        number = 0
        ended = False
        for number, raw in enumerate(handle, start=1):
            if ended:
                raise ExportFormatError(number, "a record after the end record")
            line = _line(number, raw)
            if number == 1:
                if line.record is None:
                    raise ExportFormatError(1, f"not a {FORMAT} file: {line.problem}")
                _check_header(line.record)
                continue
            ended = line.kind == "end"
            yield line
    if number == 0:
        raise ExportFormatError(1, "the file is empty")
    if not ended:
        raise ExportFormatError(number, "the file ends before its end record (cut short?)")


def _line(number: int, raw: bytes) -> Line:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return Line(number, None, f"line {number} is not UTF-8 text (byte {e.start + 1})")
    if not text.strip():
        return Line(number, None, f"line {number} is empty")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        reason = f"is not valid JSON ({e.msg.lower()} at character {e.pos + 1})"
        return Line(number, None, f"line {number} {reason}")
    except RecursionError:
        return Line(number, None, f"line {number} nests too deeply to be read")
    if not isinstance(record, dict):
        return Line(number, None, f"line {number} is not a JSON object")
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(record, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return Line(number, None, f"line {number} holds a lone UTF-16 surrogate (not text)")
    kind = record.get("kind")
    if number > 1 and (kind not in KINDS or kind == "header"):
        return Line(number, None, f"line {number} is a record of unknown kind {str(kind)[:40]!r}")
    if kind in DOCUMENT_KINDS:
        if not isinstance(record.get("document"), dict):
            return Line(number, None, f"line {number} is a {kind} record without its document")
        try:
            record["document"] = _decoded(record["document"], "document")
        except _BadValue as e:
            return Line(number, None, f"line {number}: {_bad_value_words(e)}")
    return Line(number, record)


def _check_header(record: Mapping[str, Any]) -> None:
    if record.get("kind") != "header" or record.get("format") != FORMAT:
        raise ExportFormatError(1, f"not a {FORMAT} file (no header)")
    version = record.get("version")
    if type(version) is not int or version != VERSION:  # 1.0 and true are not 1
        raise ExportFormatError(
            1, f"version {version!r}: this qqweb reads version {VERSION} exports only"
        )
