"""A word-prefix index of the notes' text, kept in the read model (``replica/read_model.py``), so
the list's text filter finds its candidates without reading every document.

What it answers: the rows whose content has, for every word of the query, a word that
starts with it (words: runs of letters, digits and ``_``, lower-cased, cut to their first
24 UTF-8 bytes). That is a superset of the notes whose content contains the query text,
ignoring case, starting at the beginning of a word; the list confirms each candidate on
its fetched document (``replica/lists.py``), so the answer is exactly that.

Layout: a few sorted segments, each a vocabulary (``S24`` bytes, sorted), ``offsets`` into
``postings`` (the rows holding each word, int32). A prefix is one ``searchsorted`` range of
a vocabulary, so its postings are one contiguous slice: a query costs a few numpy slices.
``owner`` says which segment holds a row's current words (-1 none, -2 the small pending
map of notes changed since the last flush); postings of rows owned elsewhere are stale
and skipped, then dropped when segments merge. Pending rows are flushed into a new
segment every ``FLUSH_AT`` notes and segments are merged as a binary counter (a segment
merges with the one before it once it is at least half its size), so a million puts cost
a few seconds of sorting in all. A note whose text did not change (an access count bump)
is not re-indexed: ``digest`` keeps a hash of each row's content.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np

WORD = re.compile(r"\w+")
WORD_BYTES = 24
FLUSH_AT = 4096
NONE, PENDING = -1, -2


ASCII_WORD = re.compile(rb"\w+")  # the same words in ASCII text, found without decoding


def words_of(text: str) -> list[bytes]:
    """The distinct words of ``text`` as the index keeps them."""
    lowered = text.lower()
    if lowered.isascii():
        found = set(ASCII_WORD.findall(lowered.encode()))
    else:
        found = {w.encode() for w in WORD.findall(lowered)}
    if found and max(map(len, found)) > WORD_BYTES:
        found = {w[:WORD_BYTES] for w in found}
    return list(found)


def digest(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 1


class _Segment:
    def __init__(self, vocab: np.ndarray, offsets: np.ndarray, postings: np.ndarray) -> None:
        self.vocab, self.offsets, self.postings = vocab, offsets, postings

    def rows_with_prefix(self, prefix: bytes) -> np.ndarray:
        lo = int(np.searchsorted(self.vocab, prefix, side="left"))
        hi = int(np.searchsorted(self.vocab, prefix + b"\xff" * WORD_BYTES, side="right"))
        return self.postings[int(self.offsets[lo]) : int(self.offsets[hi])]

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        counts = np.diff(self.offsets)
        return np.repeat(np.arange(len(self.vocab), dtype=np.int64), counts), self.postings


def _segment(words: np.ndarray, rows: np.ndarray) -> _Segment:
    """A segment from ``(word, row)`` pairs."""
    if len(words) == 0:
        return _Segment(np.zeros(0, dtype=f"S{WORD_BYTES}"), np.zeros(1, np.int64), rows[:0])
    vocab, which = np.unique(words, return_inverse=True)
    order = np.argsort(which, kind="stable")
    offsets = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(np.bincount(which, minlength=len(vocab)), out=offsets[1:])
    return _Segment(vocab.astype(f"S{WORD_BYTES}"), offsets, rows[order].astype(np.int32))


class WordIndex:
    def __init__(self, capacity: int = 0) -> None:
        self.segments: list[_Segment] = []
        self.owner = np.full(capacity, NONE, dtype=np.int16)
        self.digest = np.zeros(capacity, dtype=np.int64)
        self.pending: dict[int, list[bytes]] = {}
        self._pending_words: dict[bytes, set[int]] | None = None

    def grow(self, capacity: int) -> None:
        extra = capacity - len(self.owner)
        if extra > 0:
            self.owner = np.concatenate([self.owner, np.full(extra, NONE, dtype=np.int16)])
            self.digest = np.concatenate([self.digest, np.zeros(extra, dtype=np.int64)])

    # --- writes -------------------------------------------------------------------------------

    def put(self, row: int, text: object) -> None:
        content = text if isinstance(text, str) else ""
        key = digest(content)
        if self.owner[row] != NONE and self.digest[row] == key:
            return  # same text: nothing to re-index
        self.pending[row] = words_of(content)
        self._pending_words = None
        self.owner[row], self.digest[row] = PENDING, key
        if len(self.pending) >= FLUSH_AT:
            self.flush()

    def forget(self, row: int) -> None:
        if self.pending.pop(row, None) is not None:
            self._pending_words = None
        self.owner[row], self.digest[row] = NONE, 0

    def flush(self, merge_all: bool = False) -> None:
        """Pending rows into a new segment; then merge segments as a binary counter (or
        into one, ``merge_all``)."""
        if self.pending:
            rows = np.fromiter((r for r, ws in self.pending.items() for _ in ws), dtype=np.int32)
            words = np.asarray(
                [w for ws in self.pending.values() for w in ws], dtype=f"S{WORD_BYTES}"
            )
            self.segments.append(_segment(words, rows))
            fresh = np.fromiter(self.pending, dtype=np.int64, count=len(self.pending))
            self.owner[fresh] = len(self.segments) - 1
            self.pending, self._pending_words = {}, None
        while len(self.segments) >= 2 and (
            merge_all or len(self.segments[-1].postings) * 2 >= len(self.segments[-2].postings)
        ):
            self._merge_last_two()

    def _merge_last_two(self) -> None:
        """One segment from the last two: their vocabularies united (sorted strings, a
        few per note), then the postings ordered by word number (integers, not strings),
        leaving out stale postings and words no note holds any more."""
        first, second = len(self.segments) - 2, len(self.segments) - 1
        parts = []
        for k in (first, second):
            segment = self.segments[k]
            which, posted = segment.pairs()
            keep = self.owner[posted] == k
            parts.append((segment.vocab, which[keep], posted[keep]))
        vocab = np.union1d(parts[0][0], parts[1][0]).astype(f"S{WORD_BYTES}")
        word_ids = np.concatenate([np.searchsorted(vocab, v)[w] for v, w, _ in parts])
        rows = np.concatenate([r for _, _, r in parts])
        counts = np.bincount(word_ids, minlength=len(vocab))
        present = counts > 0
        word_ids = (np.cumsum(present) - 1)[word_ids]
        offsets = np.zeros(int(present.sum()) + 1, dtype=np.int64)
        np.cumsum(counts[present], out=offsets[1:])
        order = np.argsort(word_ids, kind="stable")
        self.owner[self.owner == second] = first
        merged = _Segment(vocab[present], offsets, rows[order].astype(np.int32))
        self.segments[first:] = [merged]

    # --- questions ----------------------------------------------------------------------------

    def candidates(self, text: str, size: int) -> np.ndarray | None:
        """A mask of the rows in ``[0, size)`` that may contain ``text`` (see the module's
        docstring); None when the text has no word to look up."""
        words = words_of(text)
        if not words:
            return None
        mask = np.ones(size, dtype=bool)
        for word in words:
            mask &= self._rows_with_prefix(word, size)
        return mask

    def _rows_with_prefix(self, prefix: bytes, size: int) -> np.ndarray:
        hit = np.zeros(size, dtype=bool)
        owner = self.owner[:size]
        for k, segment in enumerate(self.segments):
            rows = segment.rows_with_prefix(prefix)
            rows = rows[rows < size]
            hit[rows[owner[rows] == k]] = True
        if self.pending:
            if self._pending_words is None:
                grouped: dict[bytes, set[int]] = {}
                for row, ws in self.pending.items():
                    for w in ws:
                        grouped.setdefault(w, set()).add(row)
                self._pending_words = grouped
            for word, rows_of in self._pending_words.items():
                if word.startswith(prefix):
                    hit[[r for r in rows_of if r < size]] = True
        return hit

    @property
    def nbytes(self) -> int:
        held = self.owner.nbytes + self.digest.nbytes
        for s in self.segments:
            held += s.vocab.nbytes + s.offsets.nbytes + s.postings.nbytes
        return held

    # --- copies and files ---------------------------------------------------------------------

    def copy(self) -> WordIndex:
        """Segments are never changed in place, so a copy shares them."""
        other = WordIndex()
        other.segments = list(self.segments)
        other.owner, other.digest = self.owner.copy(), self.digest.copy()
        other.pending = dict(self.pending)
        return other

    def save(self, directory: Path, size: int) -> None:
        """One merged segment (pending rows included) and the rows' owners and digests."""
        self.flush(merge_all=True)
        if self.segments:
            segment = self.segments[0]
        else:
            segment = _segment(np.zeros(0, dtype=f"S{WORD_BYTES}"), np.zeros(0, np.int32))
        np.save(directory / "words_vocab.npy", segment.vocab)
        np.save(directory / "words_offsets.npy", segment.offsets)
        np.save(directory / "words_postings.npy", segment.postings)
        np.save(directory / "words_owner.npy", self.owner[:size])
        np.save(directory / "words_digest.npy", self.digest[:size])

    @classmethod
    def open(cls, directory: Path, size: int) -> WordIndex:
        """Memory-mapped copy-on-write. A snapshot saved before the index existed has no
        such files: ``FileNotFoundError``, and the vector index then reads everything."""
        index = cls(size)
        index.segments = [
            _Segment(
                np.load(directory / "words_vocab.npy", mmap_mode="r"),
                np.load(directory / "words_offsets.npy", mmap_mode="r"),
                np.load(directory / "words_postings.npy", mmap_mode="r"),
            )
        ]
        index.owner = np.load(directory / "words_owner.npy", mmap_mode="c")
        index.digest = np.load(directory / "words_digest.npy", mmap_mode="c")
        return index
