from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from ninja import Field, Schema
from pydantic import ConfigDict, create_model, field_validator

from memory_app.notes.job_params import MAX_DAYS, ArchivePurgeParams
from memory_app.notes.lib.listing import NoteFilter
from qqweb.jobs.params import JobParams, NoParams
from qqweb.lib.api_types import (
    CountOut,
    Cursor,
    Fraction,
    NotAPage,
    SearchText,
    ShortText,
    UtcDateTime,
)
from qqweb.recall.effect_schemas import PinsEffectOut

# The notes' own pages at the place of a note's id: a note of one of these ids is not
# reached through the API.
NOTES_PAGES = ("histogram", "search", "bulk")
NoteId = Annotated[str, Field(description="The note's ``id``."), NotAPage(NOTES_PAGES)]


class MemoryOverviewOut(Schema):
    notes_total: int | None
    notes_by_section: list[CountOut]
    archive: dict[str, Any] | None
    core_by_category: list[CountOut]
    working_by_section: list[CountOut]
    errors: dict[str, str]
    loading: bool = Field(
        False,
        description="the read model of a process that just started is still loading: "
        "notes_total is the collection's metadata count and notes_by_section is empty",
    )


class NoteOut(Schema):
    note_id: str
    content: str
    section: str | None = None
    importance: float | None = None
    effective_importance: float | None = None
    decay_rate: float | None = None
    access_count: int = 0
    created_at: UtcDateTime | None = None
    updated_at: UtcDateTime | None = None
    last_accessed: UtcDateTime | None = None
    metadata: dict[str, Any] = {}
    source: dict[str, Any] | None = None
    source_history: list[dict[str, Any]] = []
    embedding_dimension: int | None = None
    score: float | None = None


class NotesPageOut(Schema):
    items: list[NoteOut]
    next_cursor: str | None
    offset: int | None = Field(
        None, description="how many notes of the list come before this page (null: unknown)"
    )
    total: int | None = Field(
        None,
        description="how many notes the list holds (null: not counted, e.g. a text of "
        "several words, only known by reading the matching documents)",
    )


class NotesQuery(Schema):
    section: ShortText | None = None
    min_importance: Fraction | None = None
    max_importance: Fraction | None = None
    min_effective: Fraction | None = None
    max_effective: Fraction | None = None
    importance_below: Fraction | None = Field(None, description="importance < this")
    effective_below: Fraction | None = Field(None, description="effective importance < this")
    created_after: datetime | None = Field(None, description="created after (UTC)")
    created_until: datetime | None = Field(None, description="created at or before (UTC)")
    source_type: ShortText | None = None
    source_file: ShortText | None = None
    no_source: bool = Field(False, description="notes with no source type (no source)")
    never_accessed: bool = False
    stale_days: int | None = Field(None, ge=0, le=MAX_DAYS)
    no_embedding: bool = False
    text: SearchText | None = Field(
        None,
        description="notes whose content has this text at the start of a word, ignoring "
        "case (lumen finds Lumens, not illumen); at least one letter or digit",
    )
    sort: str = Field(
        "updated",
        max_length=20,
        description="importance, created, updated, last_accessed or access_count",
    )
    direction: str = Field("desc", max_length=4, description="asc or desc")
    cursor: Cursor | None = None
    limit: int = Field(50, ge=1, le=200)

    def note_filter(self) -> NoteFilter:
        return NoteFilter(**self.model_dump(exclude={"sort", "direction", "cursor", "limit"}))


class NoteCreateIn(Schema):
    content: str = Field(min_length=1, max_length=20_000)
    section: str | None = Field(
        None, max_length=64, description="one of the five sections, or null"
    )
    importance: Fraction | None = Field(None, description="null: the agent's own score of the text")


class NotePatchIn(Schema):
    expected_updated_at: datetime = Field(
        description="updated_at of the copy the edit was made from (from GET); a stale copy "
        "is refused with 409"
    )
    content: str | None = Field(None, max_length=20_000)
    section: ShortText | None = None
    importance: Fraction | None = None

    @field_validator("expected_updated_at")
    @classmethod
    def _in_utc(cls, value: datetime) -> datetime:
        """A time with an offset, as UTC; one that has no UTC (year 1 at +14:00) is
        refused here rather than failing the comparison later."""
        try:
            return value.astimezone(UTC) if value.tzinfo else value
        except OverflowError as e:
            raise ValueError("is out of the range of dates") from e


class ArchiveLineOut(Schema):
    note_id: str
    content: str
    section: str | None = None
    importance: float | None = None
    reason: str
    archived_at: str


class SearchIn(Schema):
    query: str = Field(..., min_length=1, max_length=2000)
    section: ShortText | None = None
    min_score: float | None = Field(None, ge=-1, le=1, allow_inf_nan=False)
    limit: int = Field(20, ge=1, le=100)


class SearchOut(Schema):
    results: list[NoteOut]
    compared: int
    skipped_other_dimensions: dict[int, int]
    model: str
    without_vector: int | None = Field(
        None,
        description="notes stored with no vector, which search cannot find (null: not counted)",
    )


class HistogramOut(Schema):
    edges: list[float]
    counts: list[int]


class BulkIn(Schema):
    action: str = Field(description="archive, set_importance or move_section", max_length=20)
    note_ids: list[ShortText] | None = Field(None, max_length=10_000)
    filter: NotesQuery | None = None
    importance: Fraction | None = None
    section: ShortText | None = None


class BulkOut(Schema):
    batch_id: str
    action: str
    done: list[str]
    failed: list[dict[str, str]]


class AuditEventOut(Schema):
    id: int
    created_at: UtcDateTime
    actor: str
    action: str
    target_type: str
    target_id: str
    batch_id: str
    status: str
    detail: str
    before: Any = None
    after: Any = None
    undone_at: UtcDateTime | None = None
    undo_of: int | None = None


class BatchUndoOut(Schema):
    undone: int = Field(description="how many actions were undone")
    refused: list[str] = Field(description="each action that could not be, with the reason")


class ArchivedNoteOut(Schema):
    note_id: str
    content: str
    section: str | None = None
    importance: float
    reason: str
    archived_at: str
    original_created_at: str | None = None
    access_count: int
    source: dict[str, Any] | None = None
    source_history: list[dict[str, Any]] = []
    restored: bool
    restored_at: str | None = None


class ArchiveOut(Schema):
    items: list[ArchivedNoteOut]
    total: int
    restored: int
    by_reason: list[CountOut]
    unreadable_lines: list[dict[str, Any]]
    unreadable: int = Field(description="every unreadable line (the first 100 are listed)")
    older: int | None = Field(
        description="send as `before` for the next, older lines; null: the start of the file"
    )
    matching: int | None = Field(
        None,
        description="how many lines the filters list (reason, section, month, restored); "
        "null with a text search `q`",
    )


class RestoreIn(Schema):
    new_id: str | None = Field(
        None,
        pattern=r"^note_[0-9a-f]{12}$",
        description="restore under this id when the old one is taken",
    )
    keep_days: int | None = Field(
        None,
        ge=0,
        le=3650,
        description="days the restored note is kept from the archival pass "
        "(default QQ_RESTORE_GRACE_DAYS; 0: the next pass may archive it again)",
    )


class PurgeIn(ArchivePurgeParams):
    """The archive purge job's parameters (``days`` defaults to QQ_ARCHIVE_RETENTION_DAYS),
    and a dry run unless told otherwise."""

    dry_run: bool = True


class PurgeOut(Schema):
    days: int
    would_drop: int
    dropped: int
    sample: list[str]
    pins: PinsEffectOut | None = Field(
        None, description="A dry run's effect on the pinned recalls of notes; null once applied"
    )


class CoreOut(Schema):
    core: dict[str, list[str]]
    working: dict[str, list[str]]


class PromotionCandidateOut(NoteOut):
    suggested_category: str


class PromoteIn(Schema):
    note_id: ShortText
    category: ShortText | None = Field(
        None,
        description="Identity, Projects, Relationships or "
        "System; suggested from the agent's patterns when left out",
    )


class PromoteOut(Schema):
    note_id: str
    category: str
    content: str


class RetrievalIn(Schema):
    message: str = Field(..., min_length=1, max_length=4000)
    limit: int = Field(10, ge=1, le=50)


class RetrievalOut(Schema):
    markdown: str
    core: dict[str, list[str]]
    notes: list[NoteOut]
    entities: list[dict[str, Any]]
    warnings: list[str]


class RunOut(Schema):
    id: int
    kind: str
    status: str = Field(description="queued, running, done, failed or cancelled")
    started_by: str
    params: dict[str, Any]
    dry_run: bool
    processed: int
    total: int | None
    stats: dict[str, Any]
    error: str
    created_at: UtcDateTime
    finished_at: UtcDateTime | None
    cancel_requested_at: UtcDateTime | None
    plan_size: int | None = Field(
        None, description="A dry run of a destructive job: how many changes its plan holds"
    )
    plan_of: int | None = Field(None, description="The dry run whose plan this run applies")
    undo_of: int | None = Field(None, description="The run this run undoes")

    @staticmethod
    def resolve_plan_of(obj: Any) -> int | None:
        return obj.plan_of_id

    @staticmethod
    def resolve_undo_of(obj: Any) -> int | None:
        return obj.undo_of_id


class PlanItemOut(Schema):
    note_id: str
    other_id: str | None = None
    text: str
    other_text: str | None = None
    before: str
    after: str


class PlanOut(Schema):
    run: int
    summary: str
    total: int
    items: list[PlanItemOut]
    pins: PinsEffectOut | None = Field(
        None,
        description="What the plan would do to the pinned recalls (memory tests), "
        "computed on the plan with the agent's retrieval; null for an empty plan",
    )


class JobIn(Schema):
    """The body of ``POST /api/maintenance/{job}``; each job has its own, whose ``params``
    is that job's schema (see :func:`job_in`)."""

    model_config = ConfigDict(extra="forbid")

    dry_run: bool = Field(False, description="Report what would change; change nothing.")
    params: JobParams = Field(default_factory=NoParams)


def job_in(kind: str, params: type[JobParams]) -> type[JobIn]:
    """``JobIn`` with ``params`` typed as the job's own schema, named after the job
    (``archival`` → ``ArchivalJobIn``) in the OpenAPI document."""
    return create_model(
        "".join(part.title() for part in kind.split("_")) + "JobIn",
        __base__=JobIn,
        __module__=__name__,
        __doc__=f"The body of POST /api/maintenance/{kind}.",
        params=(
            params,
            Field(
                default_factory=params,
                description="The job's parameters; one left out takes its setting's value "
                "at this time.",
            ),
        ),
    )
