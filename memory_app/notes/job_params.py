"""The parameters of the notes jobs, each job's declared once, as a typed schema (the base,
:class:`qqweb.jobs.params.JobParams`, and its validation are the jobs app's).

The three front doors use the same schema: the API takes it as the body's ``params`` (and
documents it), the Jobs page builds its form fields from it, the management
commands their options. :func:`qqweb.jobs.runner.job_create` validates with it and
stores the validated dict on the run; the job function reads a typed object built from
that dict. What the caller
leaves out takes the setting's value at that moment (QQ_ARCHIVE_THRESHOLD,
QQ_DEDUP_THRESHOLD, QQ_ARCHIVE_RETENTION_DAYS), never a literal.
"""

from __future__ import annotations

from typing import Annotated, Literal

from django.conf import settings
from pydantic import Field

from qqweb.jobs.params import JobParams
from qqweb.lib.api_types import NoBool

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
