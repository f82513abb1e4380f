"""Embeddings straight from a document's raw BSON into float32 rows: no Python float per
coordinate (pymongo's decoding makes a list of ``dim`` floats per note, 10-20 us and ~30
bytes a coordinate; at 1M notes that is the scan's slowest and biggest part).

A BSON array of ``dim`` doubles has one fixed layout (its keys are "0", "1", ... in
order), so its byte length gives ``dim`` and its values sit at known offsets: they are
gathered with one numpy index and viewed as little-endian float64. An array of another
shape (integers in it, a sub-document) falls back to ordinary decoding, as does a
document of another shape.

:func:`document_with_row` does the same for a whole document the vector index reads
(``Reads.vector_rows``): the other fields decoded as usual, the embedding gathered. On
2,000 notes of 384 doubles pymongo's decoding took 82 ms and the rows' conversion to
float32 28 ms more. On its own it did not shorten the daemon's cold start (40.6 s against
40.1 s: the daemon's own work was the bound); asking the daemon for whole documents did
(27.6 s), and this keeps their decoding cheap.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from bson import decode as bson_decode
from bson.codec_options import CodecOptions

MAX_DIM = 8192
_DOUBLE, _STRING, _DOCUMENT, _ARRAY = 0x01, 0x02, 0x03, 0x04
# Bytes after an element's name, by type: fixed sizes, and those led by an int32 length
# (plus what comes beside it: a binary's subtype). Any other type: ordinary decoding.
_FIXED = {0x01: 8, 0x07: 12, 0x08: 1, 0x09: 8, 0x0A: 0, 0x10: 4, 0x11: 8, 0x12: 8, 0x13: 16}
_SIZED = {0x02: 4, 0x0D: 4, 0x0E: 4, 0x05: 5, _DOCUMENT: 0, _ARRAY: 0}


@lru_cache(maxsize=1)
def _lengths() -> np.ndarray:
    """Byte length of a BSON array of ``d`` doubles, for d = 0..MAX_DIM."""
    per = 1 + np.array([len(str(k)) for k in range(MAX_DIM)]) + 1 + 8
    return np.concatenate([[5], 5 + np.cumsum(per)])


@lru_cache(maxsize=16)
def _runs(dim: int) -> list[tuple[int, int, int, int]]:
    """``(first, count, type byte offset, stride)`` per run of keys of one length (0-9,
    10-99, ...): within a run the elements are evenly spaced."""
    runs, pos, first = [], 4, 0
    while first < dim:
        digits = len(str(first))
        count = min(dim, 10**digits) - first
        stride = 1 + digits + 1 + 8
        runs.append((first, count, pos, stride))
        pos += count * stride
        first += count
    return runs


def doubles(raw: bytes, start: int, size: int) -> np.ndarray | None:
    """The float32 row of the BSON array at ``raw[start:start + size]``; None when it is not
    an array of doubles."""
    lengths = _lengths()
    dim = int(np.searchsorted(lengths, size))
    if dim >= len(lengths) or lengths[dim] != size:
        return None
    row = np.empty(dim, dtype=np.float32)
    for first, count, pos, stride in _runs(dim):
        at = start + pos
        types = np.ndarray((count,), np.uint8, raw, at, (stride,))
        if not (types == _DOUBLE).all():
            return None
        digits = stride - 10
        row[first : first + count] = np.ndarray((count,), "<f8", raw, at + digits + 2, (stride,))
    return row


def _int32(raw: bytes, pos: int) -> int:
    return int.from_bytes(raw[pos : pos + 4], "little", signed=True)


def note_vector(raw: bytes | memoryview) -> tuple[str, np.ndarray] | None:
    """``(note_id, embedding as float32)`` of a raw document projected on both; None when
    it has no embedding."""
    note_id, row = note_row(raw)
    if note_id is None or row is None:
        return None
    return note_id, row


def note_row(raw: bytes | memoryview) -> tuple[str | None, np.ndarray | None]:
    """``(note_id, embedding as float32)`` of a raw document projected on both; the
    embedding None when it has none (empty, missing, not numbers)."""
    raw = bytes(raw)
    pos, end = 4, len(raw) - 1
    note_id: Any = None
    row: np.ndarray | None = None
    slow = False
    while pos < end:
        kind = raw[pos]
        key_end = raw.index(0, pos + 1)
        key = raw[pos + 1 : key_end]
        pos = key_end + 1
        if kind == _STRING:
            size = _int32(raw, pos)
            if key == b"note_id":
                note_id = raw[pos + 4 : pos + 3 + size].decode()
            pos += 4 + size
        elif kind in (_DOCUMENT, _ARRAY):
            size = _int32(raw, pos)
            if key == b"embedding":
                row = doubles(raw, pos, size) if kind == _ARRAY else None
                slow = row is None
            pos += size
        else:
            slow = True
            break
    if slow or note_id is None:
        doc = bson_decode(raw)
        values = doc.get("embedding")
        found = None if doc.get("note_id") is None else str(doc["note_id"])
        if not isinstance(values, list) or not values:
            return found, None
        try:
            return found, np.asarray(values, dtype=np.float32)
        except (TypeError, ValueError):
            return found, None
    if row is None or not len(row):
        return str(note_id), None
    return str(note_id), row


def document_with_row(raw: bytes | memoryview, options: CodecOptions[Any]) -> dict[str, Any]:
    """The document in ``raw`` decoded with ``options``, its ``embedding`` a float32 row
    when it is an array of doubles (as :func:`doubles` reads it); any other document
    exactly as pymongo decodes it (the embedding a list, or whatever it holds)."""
    raw = bytes(raw)
    pos, end = 4, len(raw) - 1
    while pos < end:
        kind, start = raw[pos], pos
        key_end = raw.index(0, pos + 1)
        pos = key_end + 1
        if kind in _FIXED:
            pos += _FIXED[kind]
            continue
        if kind not in _SIZED:
            break
        size = _int32(raw, pos)
        if kind == _ARRAY and raw[start + 1 : key_end] == b"embedding":
            row = doubles(raw, pos, size)
            if row is None or not len(row):  # an empty one stays a list
                break
            body = raw[4:start] + raw[pos + size :]  # the other fields, and the final NUL
            doc: dict[str, Any] = bson_decode((4 + len(body)).to_bytes(4, "little") + body, options)
            doc["embedding"] = row
            return doc
        pos += _SIZED[kind] + size
    return bson_decode(raw, options)
