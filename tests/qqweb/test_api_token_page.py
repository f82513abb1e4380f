"""The API tokens page of an admin who is not a superuser: its own tokens and those of
the users it manages (viewers, curators), never another admin's or a superuser's; the key
prefixes of its own tokens only; no revoking a token it may not manage."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from qqweb.models import ApiToken
from qqweb.services import api_token_create, roles_ensure

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(django_user_model):
    return django_user_model.objects.create_superuser(username="sue-super", password="pw-sue")


@pytest.fixture
def other_admin(django_user_model):
    roles_ensure()
    user = django_user_model.objects.create_user(username="adam-admin", password="pw-adam")
    user.groups.add(Group.objects.get(name="admin"))
    return user


def _page(client: Client) -> str:
    return client.get(reverse("api_tokens")).content.decode()


def test_an_admin_cannot_revoke_the_superusers_token(admin_client_, root):
    token, raw = api_token_create(user=root, name="root's backup script")
    response = admin_client_.post(reverse("api_token_revoke", args=[token.pk]))
    assert response.status_code == 403
    assert ApiToken.objects.get(pk=token.pk).revoked_at is None
    assert Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/me").status_code == 200


def test_an_admin_cannot_revoke_another_admins_token(admin_client_, other_admin):
    token, _ = api_token_create(user=other_admin, name="adam's script")
    assert admin_client_.post(reverse("api_token_revoke", args=[token.pk])).status_code == 403
    assert ApiToken.objects.get(pk=token.pk).revoked_at is None


def test_an_admin_sees_its_own_prefixes_and_not_other_users(
    admin_client_, admin_user, viewer, root, other_admin
):
    own, _ = api_token_create(user=admin_user, name="my script")
    for_viewer, _ = api_token_create(user=viewer, name="viewer script", created_by=admin_user)
    roots, _ = api_token_create(user=root, name="root script")
    adams, _ = api_token_create(user=other_admin, name="adam script")
    page = _page(admin_client_)
    assert "my script" in page and own.key_prefix in page
    assert "viewer script" in page and for_viewer.key_prefix not in page
    assert "root script" not in page and roots.key_prefix not in page
    assert "adam script" not in page and adams.key_prefix not in page


def test_an_admin_still_revokes_the_token_of_a_viewer(admin_client_, viewer):
    token, raw = api_token_create(user=viewer, name="script")
    response = admin_client_.post(reverse("api_token_revoke", args=[token.pk]))
    assert response.status_code == 302
    assert Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/me").status_code == 401


def test_a_superuser_sees_and_revokes_every_token(root, admin_user):
    client = Client()
    client.force_login(root)
    token, raw = api_token_create(user=admin_user, name="ada's script")
    assert token.key_prefix in _page(client)
    assert client.post(reverse("api_token_revoke", args=[token.pk])).status_code == 302
    assert Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/me").status_code == 401
