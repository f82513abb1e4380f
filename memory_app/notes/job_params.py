"""The parameters of the maintenance jobs, each job's declared once, as a typed schema.

The three front doors use the same schema: the API takes it as the body's ``params`` (and
documents it), the Maintenance page builds its form fields from it, the management
commands their options. :func:`job_create` validates with it and stores the validated dict
on the run; the job function reads a typed object built from that dict. What the caller
leaves out takes the setting's value at that moment (QQ_ARCHIVE_THRESHOLD,
QQ_DEDUP_THRESHOLD, QQ_ARCHIVE_RETENTION_DAYS), never a literal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from django.conf import settings
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic import ValidationError as PydanticValidationError

from qqweb.lib.api_types import NoBool
from qqweb.lib.errors import InvalidInput

MAX_DAYS = 36_500  # a hundred years: today minus that many days is still a date


Threshold = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False), NoBool]
Days = Annotated[int, Field(ge=0, le=MAX_DAYS), NoBool]


def _archive_threshold() -> float:
    return float(settings.QQ_ARCHIVE_THRESHOLD)


def _dedup_threshold() -> float:
    return float(settings.QQ_DEDUP_THRESHOLD)


def _consolidation_threshold() -> float:
    return float(settings.QQ_CONSOLIDATION_THRESHOLD)


def _retention_days() -> int:
    return int(settings.QQ_ARCHIVE_RETENTION_DAYS)


class JobParams(BaseModel):
    """Unknown parameters are refused; a default from a setting is validated too, so a
    misconfigured setting fails the run before it starts rather than half-way."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    @field_validator("*", mode="before")
    @classmethod
    def _numbers_are_not_booleans(cls, value: Any, info: ValidationInfo) -> Any:
        # pydantic would take true for 1: a threshold of 1 archives nearly every note
        wanted = cls.model_fields[str(info.field_name)].annotation
        if isinstance(value, bool) and wanted in (int, float):
            raise ValueError("must be a number, not true or false")
        return value


class NoParams(JobParams):
    """This job takes no parameters."""


class ArchivalParams(JobParams):
    threshold: Threshold = Field(
        default_factory=_archive_threshold,
        description="Archive the notes whose effective importance is below this "
        "(0 < threshold <= 1; default QQ_ARCHIVE_THRESHOLD).",
    )


class DedupScanParams(JobParams):
    threshold: Threshold = Field(
        default_factory=_dedup_threshold,
        description="Cosine similarity from which two notes are a pair "
        "(0 < threshold <= 1; default QQ_DEDUP_THRESHOLD).",
    )
    full: bool = Field(
        False,
        description="Compare every note with every note. Otherwise (the default) only the "
        "notes changed since the last complete scan at this threshold or a lower one are "
        "compared, each with every note; with no such scan yet the scan is full anyway.",
    )


class ArchivePurgeParams(JobParams):
    days: Days = Field(
        default_factory=_retention_days,
        description=f"Drop the archive lines older than this many days "
        f"(0 to {MAX_DAYS}; default QQ_ARCHIVE_RETENTION_DAYS).",
    )


class ReembedParams(JobParams):
    scope: Literal["missing", "all"] = Field(
        "missing",
        description="missing: the notes with no embedding or one of another dimension; "
        "all: every note.",
    )


class AutoConsolidationParams(JobParams):
    threshold: Threshold = Field(
        default_factory=_consolidation_threshold,
        description="Merge the pairs at or above this cosine similarity, except those whose "
        "texts differ in a value, left for review (0 < threshold <= 1; default "
        "QQ_CONSOLIDATION_THRESHOLD, 0.95).",
    )
    merge: Literal["copies", "unflagged"] = Field(
        "copies",
        description="copies (the default): merge only the pairs whose texts are copies of "
        "each other apart from punctuation, case and small words; unflagged: also the "
        "rewordings in which the pair analysis finds no difference of value. A pair whose "
        "texts differ in a value, or contradict each other, is never merged: it is left for "
        "review.",
    )
    force: bool = Field(False, description="Run even with no more than QQ_MAX_WORKING_NOTES.")
    use_llm: bool = Field(
        False,
        description="Ask the LLM at QQ_LLM_URL for each merged text (the simple merge when "
        "it does not answer, as the agent does).",
    )


class InvalidJobParams(InvalidInput):
    """Parameters a job does not take, or values out of its bounds. ``errors`` lists every
    (parameter, message); ``field`` and ``message`` are the first."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__(*errors[0])
        self.errors = errors


def params_validate(
    schema: type[JobParams], params: Mapping[str, Any] | JobParams | None
) -> JobParams:
    """``params`` as ``schema``, with the settings' values for what is left out; raises
    :class:`InvalidJobParams` naming each bad parameter."""
    if isinstance(params, JobParams):
        params = params.model_dump()
    try:
        return schema.model_validate(dict(params or {}))
    except PydanticValidationError as e:
        raise InvalidJobParams([_error(schema, err) for err in e.errors()]) from e


def _error(schema: type[JobParams], err: Any) -> tuple[str, str]:
    field = ".".join(str(part) for part in err["loc"]) or "params"
    if err["type"] == "extra_forbidden":
        takes = ", ".join(schema.model_fields) or "no parameters"
        return field, f"not a parameter of this job (it takes {takes})"
    return field, str(err["msg"]).removeprefix("Value error, ")
