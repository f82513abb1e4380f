"""A job's parameters: the base of each job's schema, and their validation.

The three front doors use a job's schema: the API takes it as the body's ``params`` (and
documents it), the jobs page builds its form fields from it, the management commands
their options (:mod:`qqweb.jobs.command`). :func:`qqweb.jobs.runner.job_create` validates
with it and stores the validated dict on the run; the job function reads a typed object
built from that dict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator
from pydantic import ValidationError as PydanticValidationError

from qqweb.lib.errors import InvalidInput


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
