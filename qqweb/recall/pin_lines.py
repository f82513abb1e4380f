"""Reading a labelled set (JSONL) into pins, line by line, with every refused line named.

The file is split on ``\\n`` only (a ``\\r`` before it is dropped), as JSON Lines says: a
raw U+2028, U+0085 or form feed inside a JSON string is part of its line, not a line
break (``str.splitlines`` would cut the line there). A line holding only JSON white space
(space, tab) is skipped.

Each line must be one JSON object with the keys ``query``, ``item_id`` and optionally
``source`` and ``comment``, each a text :func:`qqweb.recall.pin_values.pin_value_problem`
accepts. A line that cannot be read is refused with its reason in words, never a 500:
not JSON (with where), nested too deeply to read, a number too long to read (Python
refuses integers of more than 4300 digits; a pin holds no number anyway), a key given
twice, an unknown key (``itemid``, ``$where``). Whether the memory holds the item is the
service's check (:func:`qqweb.recall.services.pins_import`). Pure: no database."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from qqweb.recall.pin_values import pin_value_problem, value_kind

FIELDS = ("query", "item_id", "source", "comment")
DEFAULT_SOURCE = "notes"
JSON_BLANK = " \t\r"  # JSON's white space, but \n, which ends the line
LINE = "line"  # the field of a problem with the line as a whole


@dataclass(frozen=True)
class LineProblem:
    """Why line ``line`` was refused: ``field`` names the key at fault (``"line"`` when
    the line as a whole is), ``message`` the reason in words."""

    line: int
    field: str
    message: str

    def __str__(self) -> str:
        if self.field == LINE:
            return f"line {self.line}: {self.message}"
        return f"line {self.line}: {self.field}: {self.message}"


@dataclass(frozen=True)
class PinLine:
    """A line that reads as a pin (its values stripped; whether the memory holds the item
    is not checked yet)."""

    line: int
    source: str
    query: str
    item_id: str
    comment: str


class _DuplicateKey(ValueError):
    pass


class _Number:
    """A JSON number, not converted: a pin holds none, and a 5,000-digit integer would
    raise in ``int()`` (Python's limit on digits)."""


_NUMBER = _Number()


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _DuplicateKey(key)
        found[key] = value
    return found


def _kind(value: Any) -> str:
    return "a number" if isinstance(value, _Number) else value_kind(value)


def lines_of(text: str) -> Iterator[tuple[int, str]]:
    """The non-blank lines of ``text`` with their numbers (1-based, counting blank ones)."""
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if line.strip(JSON_BLANK):
            yield number, line


def _parsed(line: str) -> Any:
    return json.loads(
        line,
        object_pairs_hook=_object,
        parse_int=lambda _: _NUMBER,
        parse_float=lambda _: _NUMBER,
        parse_constant=lambda _: _NUMBER,
    )


def read_pin_line(number: int, line: str) -> PinLine | list[LineProblem]:
    """The pin of one line, or every problem found in it."""

    def refused(field: str, message: str) -> list[LineProblem]:
        return [LineProblem(number, field, message)]

    try:
        data = _parsed(line)
    except json.JSONDecodeError as e:
        what = e.msg.lower().removesuffix(" at")  # "unterminated string starting at"
        return refused(LINE, f"is not JSON: {what} at character {e.pos + 1}")
    except _DuplicateKey as e:
        return refused(str(e)[:60], "is given twice in the object")
    except RecursionError:
        return refused(LINE, "nests too deeply to be read (a pin is one flat JSON object)")
    if not isinstance(data, dict):
        return refused(LINE, f"must be a JSON object, not {_kind(data)}")
    problems = [
        LineProblem(number, key[:60], f"is not a field (the fields are {', '.join(FIELDS)})")
        for key in data
        if key not in FIELDS
    ]
    values = {"source": DEFAULT_SOURCE, "comment": "", **data}
    for name in FIELDS:
        if name not in values:
            problems.append(LineProblem(number, name, "is missing"))
            continue
        value = values[name]
        if name == "comment" and value is None:  # no comment
            values[name] = value = ""
        if isinstance(value, _Number):
            problem = "must be a text, not a number"
        else:
            problem = pin_value_problem(name, value)
        if problem:
            problems.append(LineProblem(number, name, problem))
    if problems:
        return problems
    return PinLine(
        number,
        values["source"].strip(),
        values["query"].strip(),
        values["item_id"].strip(),
        values["comment"].strip(),
    )
