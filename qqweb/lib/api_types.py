"""What every API route shares at its edge: the error body it answers with, and bounded
types for its parameters, declared so that the OpenAPI document tells clients the limits
and ninja refuses a value outside them with a 422 naming the field.

- Integers have both bounds (``Limit200``, ``Offset``): a 31-digit number never reaches
  a store (Neo4j takes 64-bit integers, MongoDB too, Python dates end in year 9999).
- Floats are finite (``Fraction``, ``Similarity``): ``NaN`` and ``Infinity`` are refused,
  as JSON has no such numbers and a comparison with NaN is never true.
- Numbers are numbers: ``true`` and ``false`` are refused where a number is asked
  (pydantic's lax mode would read them as 1 and 0), and a string such as ``"0.5"`` is
  still read, as query parameters arrive as strings.
- Strings have a maximum length (``Cursor``, ``ShortText``, ``SearchText``).
- An item's id in a path (``NotAPage``) is never one of its collection's own pages: ``GET
  /facts/lint`` is the lint, so no fact is reached as ``/facts/lint``; the OpenAPI
  document says so with a pattern, and the id is refused with a 422 where it would reach
  the item route (``POST /facts/lint/embed``).
- Dates the API answers carry their offset (``UtcDateTime``, RFC 3339): MongoDB gives back
  naive UTC datetimes, which are UTC and are said to be.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any

from ninja import Schema
from ninja.operation import Operation
from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

MAX_OFFSET = 100_000
MAX_CURSOR_LENGTH = 512
MAX_SHORT_TEXT = 300  # names, labels, ids, filters
MAX_SEARCH_TEXT = 500  # text filters matched against content


def not_a_boolean(value: Any) -> Any:
    """Refuse ``true`` / ``false`` where a number is asked (before pydantic's lax mode
    reads them as 1 and 0)."""
    if isinstance(value, bool):
        raise ValueError("must be a number, not true or false")
    return value


NoBool = BeforeValidator(not_a_boolean)

Limit200 = Annotated[int, Field(ge=1, le=200, description="How many to answer, 1 to 200."), NoBool]
Limit1000 = Annotated[
    int, Field(ge=1, le=1000, description="How many to answer, 1 to 1000."), NoBool
]
Offset = Annotated[
    int, Field(ge=0, le=MAX_OFFSET, description=f"How many to skip, 0 to {MAX_OFFSET}."), NoBool
]
Cursor = Annotated[
    str,
    Field(
        max_length=MAX_CURSOR_LENGTH,
        description="The ``next_cursor`` of the previous page; empty for the first.",
    ),
]
ShortText = Annotated[str, Field(max_length=MAX_SHORT_TEXT)]
SearchText = Annotated[str, Field(max_length=MAX_SEARCH_TEXT)]
Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False), NoBool]
Similarity = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False), NoBool]


_REGEX_SYNTAX = re.compile(r"[\\^$.*+?()[\]{}|/]")


@dataclass(frozen=True)
class NotAPage:
    """Metadata for an item id in a path whose collection has pages of its own at the same
    place (``/facts/next-start`` beside ``/facts/{fact_id}``): Django routes those words
    to the pages, so an item of that id cannot be reached there, whatever the method.
    The schema's pattern excludes them (a client learns it from the OpenAPI document), and
    the id is refused (422) on routes where the word would reach the item's handler. A
    test checks that every such collision is declared (``tests/qqweb/test_api_routes.py``)."""

    pages: tuple[str, ...]

    @property
    def pattern(self) -> str:
        """A regex both Python and a JavaScript client (ECMA-262, unicode mode: what
        OpenAPI validators compile) read: only their syntax characters are escaped, not
        "-" as ``re.escape`` does, which JavaScript refuses ("Invalid escape")."""
        words = "|".join(_REGEX_SYNTAX.sub(r"\\\g<0>", page) for page in self.pages)
        return f"^(?!(?:{words})$)[^/]+$"

    def _refuse_a_page(self, value: str) -> str:
        if value in self.pages:
            raise ValueError(f"{value!r} is the collection's own page, not an item's id")
        return value

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_after_validator_function(self._refuse_a_page, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        json_schema["pattern"] = self.pattern
        return json_schema


def _with_offset(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


UtcDateTime = Annotated[datetime, AfterValidator(_with_offset)]


# A named count (a section, a label, a relationship type): every app's overview answers
# its breakdowns in this one shape. (A comment, not a docstring: it would enter the
# OpenAPI document.)
class CountOut(Schema):
    name: str
    count: int


class ErrorDetailOut(Schema):
    """``code`` says what kind of error (``invalid``, ``not_found``, ``stale``,
    ``store_unavailable`` ...), ``message`` says it in words; the other keys name what it
    is about (``field``, ``fields``, ``note_id``, ``label`` ...)."""

    model_config = ConfigDict(extra="allow")

    code: str
    message: str


class ErrorOut(Schema):
    error: ErrorDetailOut


# Every route can answer these: a body that is not JSON or a value a service refuses (400),
# no login or a bad token (401), a role the user lacks or a CSRF failure (403), a parameter
# outside its schema (422), a token past its rate or an address past its failed tokens (429).
ALWAYS = (400, 401, 403, 422, 429)


def errors(*codes: int) -> dict[int, type[ErrorOut]]:
    """The error statuses a route answers, for its ``response=``: :data:`ALWAYS` and
    ``codes`` (404 not found, 409 a conflict, 413 a body too large, 503 a store down),
    each with :class:`ErrorOut`."""
    return dict.fromkeys(sorted({*ALWAYS, *codes}), ErrorOut)


# django-ninja wraps each (status, type) of a route's ``response=`` in a pydantic model of its
# own (``Operation._create_response_model``): with :func:`errors` giving every route 5-8
# statuses, 700 of the 959 models the application built when it started, about 0.45 s of
# the gunicorn master's import before the first search after a restart. The wrapper
# depends on the type alone (a one-field model, ``response``), so one is kept per type
# and reused; ninja offers no hook for it. tests/qqweb/test_openapi.py checks the
# OpenAPI document is unchanged and counts the wrappers.
_response_wrappers: dict[Any, Any] = {}
_wrap_response = Operation._create_response_model


def _shared_response_model(operation: Operation, response_param: Any) -> Any:
    try:
        return _response_wrappers[response_param]
    except KeyError:
        model = _response_wrappers[response_param] = _wrap_response(operation, response_param)
        return model
    except TypeError:  # a type that cannot be a key: its own wrapper, as ninja makes it
        return _wrap_response(operation, response_param)


Operation._create_response_model = _shared_response_model  # type: ignore[method-assign,assignment]
