from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from qqweb import views
from qqweb.api import api

urlpatterns = [
    path("", include("memory_app.notes.urls")),
    path("graph/", include("graph_app.urls")),
    path("facts/", include("memory_app.facts.urls")),
    path("backup/", include("qqweb.backup.urls")),
    path("memory-tests/", include("qqweb.recall.urls")),
    path("health/", views.health, name="health"),
    path("healthz", views.healthz, name="healthz"),
    path("health/status", views.store_status, name="store_status"),
    path("tokens/", views.api_tokens, name="api_tokens"),
    path("tokens/<int:token_id>/revoke/", views.api_token_revoke_view, name="api_token_revoke"),
    # Django's login, logout and password change; no password reset by e-mail (qqweb sends
    # no mail: an admin sets a forgotten password in Django admin, docs/security.md).
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password_change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    # Browsers ask for /favicon.ico on pages that name no icon (the API docs).
    path(
        "favicon.ico",
        login_not_required(RedirectView.as_view(url=static("qqweb/favicon.svg"), permanent=True)),
    ),
]

handler400 = views.error_400
handler404 = views.error_404
handler500 = views.error_500
