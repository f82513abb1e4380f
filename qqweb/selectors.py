"""Reads of the project itself: the API tokens an admin manages."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from qqweb.lib.auth import token_manageable
from qqweb.models import ApiToken


@dataclass(frozen=True)
class TokenRow:
    pk: int
    name: str
    user: str
    key_prefix: str  # empty: not shown to this admin (another user's token)
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


def api_tokens_for(*, actor: Any) -> list[TokenRow]:
    """The tokens ``actor`` may manage (:func:`qqweb.lib.auth.token_manageable`), newest
    first; the key prefix of its own tokens only, unless it is a superuser."""
    rows = []
    for token in ApiToken.objects.select_related("user"):
        if not token_manageable(actor=actor, owner=token.user):
            continue
        shown = actor.is_superuser or token.user_id == actor.pk
        rows.append(
            TokenRow(
                pk=token.pk,
                name=token.name,
                user=str(token.user),
                key_prefix=token.key_prefix if shown else "",
                created_at=token.created_at,
                last_used_at=token.last_used_at,
                revoked_at=token.revoked_at,
            )
        )
    return rows
