from django.contrib import admin

from qqweb.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "key_prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("key_hash", "key_prefix", "created_at", "last_used_at")
