from django.contrib import admin
from django.urls import include, path

from qqweb import views
from qqweb.api import api

urlpatterns = [
    path("", include("memory_app.urls")),
    path("graph/", include("graph_app.urls")),
    path("facts/", include("memory_app.facts_app.urls")),
    path("backup/", include("qqweb.backup.urls")),
    path("health/", views.health, name="health"),
    path("healthz", views.healthz, name="healthz"),
    path("health/status", views.store_status, name="store_status"),
    path("tokens/", views.api_tokens, name="api_tokens"),
    path("tokens/<int:token_id>/revoke/", views.api_token_revoke_view, name="api_token_revoke"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
]
