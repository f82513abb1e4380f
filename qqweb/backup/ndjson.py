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
- ``end`` last: ``counts`` of every kind. A file without it was cut short and is refused.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from bson import json_util
from bson.int64 import Int64
from bson.json_util import JSONMode, JSONOptions

FORMAT = "qqweb-export"
VERSION = 1
KINDS = ("header", "note", "file_line", "file_end", "node", "relationship", "fact", "end")
DOCUMENT_KINDS = ("note", "fact")
COUNTED = ("note", "file_line", "node", "relationship", "fact")

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


def _bson_hook(pairs: list[tuple[str, Any]]) -> Any:
    return json_util.object_pairs_hook(pairs, json_options=_BSON_OPTIONS)


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
    if "text" in record:
        return str(record["text"]).encode("utf-8")
    return base64.b64decode(str(record["base64"]))


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every record of an export, the header first; documents decoded to BSON values.
    Raises :class:`ExportFormatError` on the first line that does not fit."""
    with open(path, encoding="utf-8") as handle:
        yield from _records(handle)


def _records(handle: IO[str]) -> Iterator[dict[str, Any]]:
    number = 0
    ended = False
    for number, line in enumerate(handle, start=1):
        if ended:
            raise ExportFormatError(number, "a record after the end record")
        record = _parse(number, line)
        kind = record.get("kind")
        if number == 1:
            _check_header(record)
        elif kind not in KINDS or kind == "header":
            raise ExportFormatError(number, f"unknown record kind {kind!r}")
        ended = kind == "end"
        yield record
    if number == 0:
        raise ExportFormatError(1, "the file is empty")
    if not ended:
        raise ExportFormatError(number, "the file ends before its end record (cut short?)")


def _parse(number: int, line: str) -> dict[str, Any]:
    try:
        if line.startswith(('{"kind":"note"', '{"kind":"fact"')):
            record = json.loads(line, object_pairs_hook=_bson_hook)
        else:
            record = json.loads(line)
    except (ValueError, TypeError) as e:
        raise ExportFormatError(number, f"not JSON: {e}") from e
    if not isinstance(record, dict):
        raise ExportFormatError(number, "not a JSON object")
    if record.get("kind") in DOCUMENT_KINDS and not isinstance(record.get("document"), dict):
        raise ExportFormatError(number, "a document record without its document")
    return record


def _check_header(record: Mapping[str, Any]) -> None:
    if record.get("kind") != "header" or record.get("format") != FORMAT:
        raise ExportFormatError(1, f"not a {FORMAT} file (no header)")
    version = record.get("version")
    if version != VERSION:
        raise ExportFormatError(
            1, f"version {version!r}: this qqweb reads version {VERSION} exports only"
        )
