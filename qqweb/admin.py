from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import Group
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from qqweb.admin_site import _is_admin, manageable_by_admins
from qqweb.lib.auth import ADMIN, CURATOR, VIEWER
from qqweb.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "key_prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("key_hash", "key_prefix", "created_at", "last_used_at")


User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class QQUserAdmin(UserAdmin):
    """Superusers manage everyone; other admins manage the users who are neither admins
    nor superusers, and may give them the viewer or curator role only
    (see qqweb/admin_site.py)."""

    def _limited(self, request: HttpRequest) -> bool:
        return not request.user.is_superuser and _is_admin(request)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        users = super().get_queryset(request)
        if self._limited(request):
            users = users.exclude(Q(is_superuser=True) | Q(groups__name=ADMIN)).distinct()
        return users

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._limited(request) or super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._may(request, obj) or super().has_view_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._may(request, obj) or super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._may(request, obj) or super().has_delete_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return self._limited(request) or super().has_add_permission(request)

    def _may(self, request: HttpRequest, obj: Any) -> bool:
        return self._limited(request) and (obj is None or manageable_by_admins(obj))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if self._limited(request):
            return ("is_superuser", "is_staff", "user_permissions", "last_login", "date_joined")
        return super().get_readonly_fields(request, obj)

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "groups" and self._limited(request):
            kwargs["queryset"] = Group.objects.filter(name__in=(VIEWER, CURATOR))
        return super().formfield_for_manytomany(db_field, request, **kwargs)
