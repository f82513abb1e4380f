"""Who did it: a person, an API token or a job. Written into every audit event."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qqweb.models import ApiToken


@dataclass(frozen=True)
class Actor:
    kind: str  # "user", "token" or "job"
    name: str
    user_id: int | None = None

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.name}"

    @classmethod
    def from_request(cls, request: Any) -> Actor:
        token = getattr(request, "auth", None)
        if isinstance(token, ApiToken):
            return cls("token", f"{token.name} ({token.user.get_username()})", token.user_id)
        return cls("user", request.user.get_username(), request.user.pk)

    @classmethod
    def job(cls, name: str) -> Actor:
        return cls("job", name)
