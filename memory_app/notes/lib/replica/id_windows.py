"""Windows of note ids for reading every vector in bounded queries, whatever the ids look
like (``follow.every_vector``).

**Why windows, not "the next ``batch`` after the last id".** Keyset paging
(``note_id > last``, sorted, ``limit batch``) is bounded on a server that stops reading at
the limit (the Rust server, MongoDB). SecantusDB's Python daemon does not: it reads and
decodes every document the filter's index range matches, *then* sorts, cuts to the limit
and projects (``Storage.find_matching``). "Every id above the last one" is the rest of the
collection, so each page would decode the rest again (quadratic) and hold it all in
memory. A query there costs what its range holds, so each query is given an upper edge
too: ``last < note_id < high`` (or ``low <= note_id``), sorted by ``note_id``, at most
``batch`` rows. The rows returned are bounded on every server; the rows the daemon
decodes are the window's.

**Where the upper edge comes from.** Each edge is estimated from the ids already read:
ids are read as numbers whose digits are the characters seen so far (an alphabet learned
from the ids, seeded with the contract's ``note_`` and hex characters), so hex ids,
uuid4s and counters (``note_000001``...) are each about evenly spread in that number line;
the next window is as wide as the last one's density says holds about half a batch, and
at most :data:`GROWTH` times wider than the last. A window that turns out to hold more
than ``batch`` notes costs the daemon one larger read, returns only its first ``batch``
rows, and the next window starts after its last row at the density just measured. A
coarse grid of the contract's id shapes (``note_`` + hex and bare hex, :func:`grid`)
caps every window, so a window never reaches across a whole shape; after a grid cell
found empty the next window starts :data:`RESTART_STEPS` growths small, so a block of ids
unlike the grid (a counter) is met by a small window, not a whole cell.

What this cannot promise: a block of ids much narrower than the empty stretch before it,
within one grid cell, is met by a window as wide as that stretch (geometric growth), so
the daemon reads that block in one query once, returns its first ``batch`` rows, and goes
on at the block's density. The rows returned per query are bounded in every case.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

GRID_DIGITS = 6  # hex digits of the grid's edges
GRID_BATCHES = 4  # a grid cell holds about this many batches when ids are uniform hex
GROWTH = 2  # a window at most this many times wider than the last one that held notes
EMPTY_GROWTH = 2  # ... than the last one, empty, among notes
RESTART_GROWTH = 8  # ... than the last one, empty, since an empty grid cell
RESTART_BITS = 40  # after an empty grid cell the next window is 2**40 times smaller
# What the id space knows before any id is read: the grid's characters, and digits to
# this length (a counter's width), so a first window can be narrower than a grid cell.
PRIOR_LENGTH = 28


def grid(total: int, batch: int) -> list[str]:
    """Edges of windows of note ids that split ``total`` notes into windows of about
    ``batch`` or fewer *if* the ids have the contract's shapes (``note_`` + hex of a uuid4
    or bare hex of a SHA-256, both uniform): evenly spaced edges of six hex digits, for
    both shapes. The windows cover every string however the ids look."""
    cells = min(max(1, -(-total // max(1, batch))), 16**GRID_DIGITS)
    edges = sorted({(i * 16**GRID_DIGITS) // cells for i in range(cells)})
    hexes = [f"{e:0{GRID_DIGITS}x}" for e in edges]
    return [*hexes, *(f"note_{h}" for h in hexes)]


CLASSES = (
    "0123456789",
    "abcdef",
    "ghijklmnopqrstuvwxyz",
    "ABCDEF",
    "GHIJKLMNOPQRSTUVWXYZ",
)
_CLASS_OF = {c: cls for cls in CLASSES for c in cls}


class IdSpace:
    """Strings as integers of mixed radix, one digit a character position: position
    ``i``'s digits are the characters of every class seen there (digits, hex letters,
    other lower-case letters, their capitals; any other character alone), 0 when the
    string ended before it. Order-preserving (``value`` never decreases as strings
    increase, ``string`` never decreases as values increase), so widths in it estimate
    how many ids lie between two strings: a counter's positions are decimal, a hex id's
    hexadecimal, a ``note_`` prefix one digit each."""

    def __init__(self) -> None:
        self._seen: list[set[str]] = []  # the characters' classes seen at each position
        self._alphabets: list[list[str]] = []
        self._digits: list[dict[str, int]] = []
        self._weights: list[int] = [1]
        self._top = 1

    def top(self) -> int:
        return self._top

    def learn(self, ids: Iterable[str]) -> float:
        """Take in the characters of ``ids``; the factor by which widths measured before
        grew (1.0 when nothing new was seen)."""
        grew = False
        for text in ids:
            for i, c in enumerate(text):
                if i == len(self._seen):
                    self._seen.append(set())
                cls = _CLASS_OF.get(c, c)
                if cls not in self._seen[i]:
                    self._seen[i].add(cls)
                    grew = True
        if not grew:
            return 1.0
        before = self._top
        self._alphabets = [sorted(set("".join(classes))) for classes in self._seen]
        self._digits = [{c: d + 1 for d, c in enumerate(a)} for a in self._alphabets]
        weights = [1]
        for alphabet in reversed(self._alphabets):
            weights.append(weights[-1] * (len(alphabet) + 1))
        self._top = weights[-1]
        self._weights = weights[-2::-1]  # position i's weight
        return self._top / before

    def value(self, text: str) -> int:
        """``text`` as a number (a character of a class not seen at its position counts
        as the nearest one below it)."""
        value = 0
        for i, alphabet in enumerate(self._alphabets):
            if i >= len(text):
                break
            c = text[i]
            digit = self._digits[i].get(c)
            if digit is None:
                digit = bisect.bisect_right(alphabet, c)
            value += digit * self._weights[i]
            if digit == 0 or alphabet[digit - 1] != c:  # the rest is below the next digit
                value += self._weights[i] - 1 if digit else 0
                break
        return value

    def string(self, value: int) -> str:
        """The smallest string whose value is ``value`` or more (``value`` below
        :meth:`top`)."""
        chars = []
        for i, alphabet in enumerate(self._alphabets):
            digit, value = divmod(value, self._weights[i])
            if digit == 0:
                if value:  # between two strings: the next one up
                    chars.append(alphabet[0])
                break
            chars.append(alphabet[digit - 1])
        return "".join(chars)


@dataclass
class Window:
    """``low < note_id`` (``after``) or ``low <= note_id`` (None: from the first), and
    ``note_id < high`` (None: to the last)."""

    low: str | None
    high: str | None
    after: bool = False


class WindowPlanner:
    """The next window to read, from what the last one returned (:meth:`read`)."""

    def __init__(self, total: int, batch: int) -> None:
        self.batch = max(1, batch)
        self.target = max(1, self.batch // 2)
        self.edges = grid(total, self.batch * GRID_BATCHES)
        self.space = IdSpace()
        self.space.learn(["0" * PRIOR_LENGTH, "note_" + "0" * (PRIOR_LENGTH - 5)])
        self.width: int | None = None  # ids-space width expected to hold ``target`` notes
        self.window: Window | None = Window(None, None)
        self._cap: str | None = None
        self._restarted = False  # no note seen since the width was set small

    def windows(self) -> Iterator[Window]:
        """Each window to read; call :meth:`read` with its note ids before the next."""
        while self.window is not None:
            yield self._next(self.window)

    def _next(self, start: Window) -> Window:
        low = start.low
        at = bisect.bisect_right(self.edges, low) if low is not None else 0
        self._cap = self.edges[at] if at < len(self.edges) else None
        space = self.space
        if self._cap is not None:  # where the window may end must be a known string
            grew = space.learn([self._cap])
            if self.width is not None and grew != 1.0:
                self.width = max(1, int(self.width * grew))
        low_v = space.value(low or "")
        cap_v = space.value(self._cap) if self._cap is not None else space.top()
        if self.width is None:  # from nothing known: small, then growing
            self._restarted = True
            self.width = max(1, (cap_v - low_v) >> RESTART_BITS)
        high_v = low_v + self.width
        # below the cap, the string is above ``low``: its value is more than low's
        high = self._cap if high_v >= cap_v else space.string(high_v)
        self.window = Window(low, high, start.after)
        return self.window

    def read(self, note_ids: list[str]) -> None:
        """What the window just given returned (its note ids, in order)."""
        window = self.window
        assert window is not None
        grew = self.space.learn(note_ids)
        if self.width is not None and grew != 1.0:
            self.width = max(1, int(self.width * grew))
        space = self.space
        low_v = space.value(window.low or (note_ids[0] if note_ids else ""))
        if len(note_ids) >= self.batch:  # more in this window: on from its last row
            self._restarted = False
            # the density among its rows (its low edge may lie far below the first)
            span = max(1, space.value(note_ids[-1]) - space.value(note_ids[0]))
            self.width = max(1, span * self.target // max(1, len(note_ids) - 1))
            self.window = Window(note_ids[-1], None, after=True)
            return
        if window.high is None:  # the last window, read whole
            self.window = None
            return
        span = max(1, space.value(window.high) - low_v)
        if note_ids:
            self._restarted = False
            self.width = max(1, min(span * GROWTH, span * self.target // len(note_ids)))
        elif window.high == self._cap:  # a whole cell empty: the next one starts small
            self.width = None
        else:
            asked = self.width or span  # what it was sized to, not where its edge fell
            self.width = asked * (RESTART_GROWTH if self._restarted else EMPTY_GROWTH)
        self.window = Window(window.high, None)
