"""Writes of the project itself: roles, the admin login, API tokens."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from qqweb.lib.auth import ADMIN, ROLES, has_role, token_manageable
from qqweb.models import ApiToken, hash_token


def roles_ensure() -> list[str]:
    """Create the role groups that do not exist yet; returns the names created."""
    created = []
    for role in ROLES:
        _, was_created = Group.objects.get_or_create(name=role)
        if was_created:
            created.append(role)
    return created


def admin_ensure(*, username: str, password: str = "") -> tuple[Any, str | None]:
    """Make sure an admin login exists. Returns (user, new password or None if the user
    existed already). An empty ``password`` means: generate one."""
    roles_ensure()
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is not None:
        return user, None
    new_password = password or secrets.token_urlsafe(12)
    user = User.objects.create_superuser(username=username, password=new_password, email="")
    user.groups.add(Group.objects.get(name="admin"))
    return user, new_password


def token_owner_allowed(*, creator: Any, owner: Any) -> bool:
    """May ``creator`` mint a token that acts as ``owner``? For themselves, or for a user
    who is neither an admin nor a superuser (a viewer, a curator, a script's own user);
    never for another admin or a superuser, so no admin's actions are audited under
    another admin's name. (The ``create_api_token`` command, run by whoever holds the
    server's shell, has no creator and may mint for anyone.)"""
    if creator is None or creator.pk == owner.pk:
        return True
    return not owner.is_superuser and not has_role(owner, ADMIN)


@transaction.atomic
def api_token_create(*, user: Any, name: str, created_by: Any = None) -> tuple[ApiToken, str]:
    """Create a token; the raw key is returned once and never stored. Refused (ValueError)
    for an owner ``created_by`` may not mint for (:func:`token_owner_allowed`)."""
    name = name.strip()
    if not name:
        raise ValueError("name: a token needs a name")
    if not token_owner_allowed(creator=created_by, owner=user):
        raise ValueError("user: a token for an admin is created by that admin only")
    raw = ApiToken.new_raw_key()
    token = ApiToken.objects.create(
        user=user,
        name=name[:100],
        key_hash=hash_token(raw),
        key_prefix=raw[:10],
        created_by=created_by,
    )
    return token, raw


def api_token_revoke(*, token_id: int, actor: Any = None) -> ApiToken:
    """Revoke a token (``actor``: who asks; None for the server's shell). Refused
    (PermissionDenied) for a token ``actor`` may not manage (:func:`token_manageable`)."""
    token = ApiToken.objects.select_related("user").get(pk=token_id)
    if not token_manageable(actor=actor, owner=token.user):
        raise PermissionDenied("this token belongs to an admin: only that admin or a superuser")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


# ``last_used_at`` is written at most this often per token: a request that only reads must
# not wait for SQLite's one writer (a dedup scan writing its pairs) to stamp its token.
LAST_USED_EVERY = timedelta(minutes=1)


def api_token_authenticate(raw: str) -> ApiToken | None:
    """The active token with this key (and its user). When it was last used is recorded
    at most once a :data:`LAST_USED_EVERY` (so the page says "last used" to the minute),
    never on every request."""
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=hash_token(raw), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is not None:
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
    return token
