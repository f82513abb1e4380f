"""JSON shapes of the facts API (``XOut``: what ``response=`` filters and documents)."""

from __future__ import annotations

from typing import Annotated, Any

from ninja import Field, Schema
from pydantic import field_validator

from qqweb.lib.api_types import NotAPage, ShortText, UtcDateTime
from qqweb.lib.judge.schemas import VerdictOut
from qqweb.recall.effect_schemas import PinsEffectOut
from qqweb.recall.lost_pins import ConfirmLostPins

# The facts' own pages at the place of a fact's id: a fact whose ``_id`` is one of these
# words is not reached through the API (the agent's ids are ObjectIds).
FACTS_PAGES = ("next-start", "lint", "archive", "vanished", "contradictions")
FactId = Annotated[
    str,
    Field(description="The fact's ``_id``: 24 hex digits for an ObjectId, else as stored."),
    NotAPage(FACTS_PAGES),
]


class FactOut(Schema):
    id: str
    kind: str  # fact, turn (legacy conversation turn), foreign
    content: str
    timestamp: Any  # a date as the agent writes it; anything else as stored
    embedding: str  # ok, missing, empty, zero, invalid ("" for non-facts)
    legacy: bool
    deleted_at_next_start: bool
    anchor_id: str  # the older fact whose cleanup deletes this one


class FactsPageOut(Schema):
    items: list[FactOut]
    next_cursor: str | None
    total: int
    next_start_deletions: int
    breaks: int


class NeighbourOut(Schema):
    id: str
    content: str
    score: float
    mark: str


class PairOut(Schema):
    anchor_id: str
    anchor_content: str
    anchor_timestamp: Any
    deleted_id: str
    deleted_content: str
    deleted_timestamp: Any
    score: float
    borderline: bool
    tie: bool
    verdict: VerdictOut | None = Field(
        None,
        description="What the newer fact (right) is to the older (left), judged once per "
        "pair of texts; on the next start's deletions and the possible contradictions",
    )


class FindingOut(Schema):
    code: str
    severity: str
    target: str
    message: str
    fix: str


class FactDetailOut(Schema):
    id: str
    kind: str
    id_time: UtcDateTime | None
    timestamp: Any
    document: dict[str, Any]  # every stored field but the vector
    embedding: str
    dimension: int | None
    norm: float | None
    neighbours: list[NeighbourOut]
    deleted_by: PairOut | None
    deletes: list[PairOut]
    findings: list[FindingOut]


class NextStartOut(Schema):
    aborted: bool
    aborted_by: list[str]
    considered: int
    deletions: list[PairOut]
    near_misses: list[PairOut]
    pins: PinsEffectOut = Field(
        description="What the deletions would do to the pinned recalls of facts (a pin on a "
        "deleted fact follows to the fact the agent keeps)"
    )


class LintOut(Schema):
    agent_broken: bool
    findings: list[FindingOut]


# --- writes ------------------------------------------------------------------------------

FactText = Annotated[str, Field(max_length=20_000)]


class WriteOptions(Schema):
    archive: list[ShortText] = Field(
        default=[], max_length=1000
    )  # the ids the preview said qqweb also archives: confirmed
    dry_run: bool = False  # only the preview


class FactDeleteIn(WriteOptions):
    """``POST /api/facts/{fact_id}/delete``: the delete with its options in a JSON body,
    for an ``archive`` list longer than a URL carries."""


# DELETE /api/facts/{id} takes its options in the query string, and a request line is at
# most 8,190 bytes (gunicorn's largest; nginx's default is 8 KB): 200 ids of at most 24
# unreserved characters (an ObjectId's 24 hex digits) are 6,600 bytes with their
# "&archive=". The 260 of a report answered 414, from gunicorn, before the app.
URL_ARCHIVE_MAX = 200
UrlFactId = Annotated[str, Field(min_length=1, max_length=24, pattern=r"^[A-Za-z0-9_.~-]+$")]


class DeleteQuery(Schema):
    archive: list[UrlFactId] = Field(
        default=[],
        description=f"At most {URL_ARCHIVE_MAX} ids that fit a URL (24 characters each, "
        "unreserved); more, or other ids: POST /api/facts/{fact_id}/delete with a JSON body.",
        json_schema_extra={"maxItems": URL_ARCHIVE_MAX},
    )
    dry_run: bool = False
    confirm_lost_pins: ConfirmLostPins = False

    @field_validator("archive")
    @classmethod
    def _fits_a_url(cls, value: list[str]) -> list[str]:
        if len(value) > URL_ARCHIVE_MAX:
            raise ValueError(
                f"at most {URL_ARCHIVE_MAX} ids fit in a URL, not {len(value)}: send them in "
                "the JSON body of POST /api/facts/{fact_id}/delete (up to 1000)"
            )
        return value


class FactCreateIn(WriteOptions):
    content: FactText


class FactEditIn(WriteOptions):
    expected_content: FactText  # the text the curator saw (the guard of the in-place edit)
    content: FactText


class PairResolveIn(WriteOptions):
    anchor_id: ShortText
    deleted_id: ShortText
    how: ShortText  # keep-older, keep-newer-text, delete-both


class VerdictIn(Schema):
    a_id: ShortText
    b_id: ShortText
    verdict: ShortText  # both-true, contradiction


class AddVerdictOut(Schema):
    refused: bool  # the agent itself would not have saved this text
    best_id: str | None
    best_content: str | None
    best_score: float | None
    borderline: bool


class ResolutionOut(Schema):
    archive_id: str
    archive_content: str
    keeps_written: bool  # archived so that the written text survives
    pair: PairOut


class PlanOut(Schema):
    add: AddVerdictOut | None
    archive: list[str]  # what qqweb archives besides: send back in `archive` to confirm
    resolutions: list[ResolutionOut]
    new_deletions: list[PairOut]  # what the next start would delete that it does not now
    next_start_deletions: int  # after the write


class FactActionOut(Schema):
    action: str
    applied: bool
    fact_id: str
    event_id: int | None
    archived: list[str]
    preview: PlanOut
    pins: PinsEffectOut | None = Field(
        None,
        description="A preview's effect on the pinned recalls of facts (what it archives, "
        "a resolution's kept fact followed); null once applied",
    )


class ArchivedFactOut(Schema):
    id: int
    fact_id: str
    content: str
    timestamp: UtcDateTime | None
    reason: str
    detail: str
    actor: str
    archived_at: UtcDateTime
    restored_at: UtcDateTime | None
    restored_id: str


class VanishedOut(Schema):
    fact_id: str
    content: str
    cause: str  # replaced, duplicate, unknown
    related_id: str
    related_content: str
    score: float | None
    vanished_at: UtcDateTime | None
    archive_id: int | None  # restore it with POST /api/facts/archive/{archive_id}/restore


class ScanOut(Schema):
    seen: int
    new: int
    vanished: int


class ContradictionOut(Schema):
    pair: PairOut
    verdict: str
