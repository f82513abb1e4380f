"""Who did it: a person, an API token or a job. Written into every audit event."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qqweb.lib.auth import user_role
from qqweb.models import ApiToken


@dataclass(frozen=True)
class Actor:
    kind: str  # "user", "token" or "job"
    name: str
    user_id: int | None = None
    # The role the person or token acts with (qqweb.lib.auth.ROLES), for the actions that
    # check it themselves (undo needs the role its action needed); None for jobs.
    role: str | None = None

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.name}"

    @classmethod
    def from_request(cls, request: Any) -> Actor:
        token = getattr(request, "auth", None)
        role = user_role(request.user)
        if isinstance(token, ApiToken):
            name = f"{token.name} ({token.user.get_username()})"
            return cls("token", name, token.user_id, role)
        return cls("user", request.user.get_username(), request.user.pk, role)

    @classmethod
    def of_user(cls, kind: str, name: str, user_id: int | None) -> Actor:
        """The person (or token owner) ``user_id`` acting later, in a worker, with the role
        they hold now: a role taken away since the request no longer counts."""
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
        return cls(kind, name, user_id, user_role(user))

    @classmethod
    def job(cls, name: str) -> Actor:
        return cls("job", name)
