"""Roles, access checks and the login wall.

Roles are Django groups, ordered: ``viewer`` reads; ``curator`` also edits, merges,
archives and promotes; ``admin`` also restores, purges, runs jobs and manages
users and API tokens. A superuser is an admin. Every permission question goes through
:func:`has_role`; views use :func:`role_required`, API functions :func:`require_role`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase

VIEWER = "viewer"
CURATOR = "curator"
ADMIN = "admin"
ROLES: tuple[str, ...] = (VIEWER, CURATOR, ADMIN)

F = TypeVar("F", bound=Callable[..., HttpResponse])


ROLE_CACHE = "_qqweb_role"  # on the user object, as Django caches its permissions


def user_role(user: Any) -> str | None:
    """The highest role a user holds, or None. Asked several times per page (the view's
    check, the layout's menu and buttons), it reads the user's groups once per user
    object: like Django's own permission cache, a role changed meanwhile is seen from the
    next request (each loads its user afresh)."""
    if user is None or not user.is_authenticated or not user.is_active:
        return None
    if user.is_superuser:
        return ADMIN
    if hasattr(user, ROLE_CACHE):
        return getattr(user, ROLE_CACHE)
    names = set(user.groups.values_list("name", flat=True))
    role = next((r for r in reversed(ROLES) if r in names), None)
    setattr(user, ROLE_CACHE, role)
    return role


def role_at_least(held: str | None, role: str) -> bool:
    """Does a holder of ``held`` (None: no role) have ``role`` or a higher one?"""
    if held is None or held not in ROLES:
        return False
    return ROLES.index(held) >= ROLES.index(role)


def has_role(user: Any, role: str) -> bool:
    return role_at_least(user_role(user), role)


def token_manageable(*, actor: Any, owner: Any) -> bool:
    """May ``actor`` see and revoke the tokens of ``owner``? A superuser: anyone's. Another
    admin: its own, and those of the users it manages (neither an admin nor a superuser),
    so no admin can cut off the superuser's or another admin's scripts."""
    if actor is None or actor.is_superuser or actor.pk == owner.pk:
        return True
    return not owner.is_superuser and not has_role(owner, ADMIN)


def require_role(request: HttpRequest, role: str) -> None:
    """For API functions: raise PermissionDenied (mapped to 403 JSON once in qqweb.api)."""
    if not has_role(request.user, role):
        raise PermissionDenied(f"this needs the {role} role")


def role_required(role: str) -> Callable[[F], F]:
    """For views: the user must hold ``role`` (or a higher one), else 403."""

    def decorator(view: F) -> F:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            require_role(request, role)
            return view(request, *args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorator


class LoginRequiredMiddleware(DjangoLoginRequired):
    """Django's login wall, minus the JSON API (it answers 401 itself, for tokens too)
    and the static files. ``/healthz`` opts out with ``@login_not_required``."""

    open_prefixes = ("/api/", "/static/")

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponseBase | None:
        if request.path.startswith(self.open_prefixes):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)
