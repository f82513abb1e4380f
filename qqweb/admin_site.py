"""Django admin for qqweb's admins, not only for superusers.

Who manages users: anyone holding the ``admin`` role (the ``admin`` group, or a
superuser). An admin who is not a superuser manages the viewers, curators and users
without a role: creates them, sets their password and their role (viewer or curator),
deactivates or deletes them. Admins and superusers are managed by a superuser only, so no
admin can raise anyone (itself included) to admin or superuser, or take over another
admin's login. Everything else in Django admin (groups, API tokens, the beat tables) stays
with superusers: tokens have their own page, the schedule the Jobs page.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest


def _is_admin(request: HttpRequest) -> bool:
    from qqweb.lib.auth import ADMIN, has_role  # imported while the apps load: lazily

    return has_role(request.user, ADMIN)


class QQAdminSite(admin.AdminSite):
    site_header = "qqweb administration"

    def has_permission(self, request: HttpRequest) -> bool:
        """Holders of the admin role, superusers or not (Django asks for ``is_staff``)."""
        return bool(request.user.is_active and _is_admin(request))


class QQAdminConfig(AdminConfig):
    default_site = "qqweb.admin_site.QQAdminSite"


def manageable_by_admins(user: Any) -> bool:
    """May an admin who is not a superuser manage ``user``? Not an admin nor a superuser."""
    from qqweb.lib.auth import ADMIN, has_role

    return not user.is_superuser and not has_role(user, ADMIN)
