"""Admins manage users in Django admin, superuser or not, but only users who are not
admins; tokens are minted for yourself or for users who are not admins."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from qqweb.models import ApiToken
from qqweb.services import api_token_create, roles_ensure


@pytest.fixture
def root(db, django_user_model):
    return django_user_model.objects.create_superuser(username="root", password="pw-root")


@pytest.fixture
def other_admin(db, django_user_model):
    roles_ensure()
    user = django_user_model.objects.create_user(username="abe-admin", password="pw-abe")
    user.groups.add(Group.objects.get(name="admin"))
    return user


def test_an_admin_who_is_not_a_superuser_lists_the_users_they_manage(
    admin_client_, viewer, curator, other_admin, root
):
    assert admin_client_.get("/admin/").status_code == 200
    page = admin_client_.get("/admin/auth/user/").content.decode()
    assert "vera-viewer" in page and "cora-curator" in page
    assert "abe-admin" not in page and "root" not in page


def test_an_admin_creates_a_curator(admin_client_, django_user_model):
    curator_group = Group.objects.get(name="curator")
    created = admin_client_.post(
        "/admin/auth/user/add/",
        {
            "username": "cleo",
            "password1": "a-long-pass-1",
            "password2": "a-long-pass-1",
            "usable_password": "true",
        },
    )
    assert created.status_code == 302
    cleo = django_user_model.objects.get(username="cleo")
    form = admin_client_.get(f"/admin/auth/user/{cleo.pk}/change/").content.decode()
    assert 'name="is_superuser"' not in form  # shown read-only
    assert f'value="{curator_group.pk}"' in form
    assert f'value="{Group.objects.get(name="admin").pk}"' not in form


def test_an_admin_cannot_make_anyone_an_admin_or_a_superuser(admin_client_, viewer):
    admin_group = Group.objects.get(name="admin")
    admin_client_.post(
        f"/admin/auth/user/{viewer.pk}/change/",
        {
            "username": "vera-viewer",
            "groups": [admin_group.pk],
            "is_superuser": "on",
            "is_active": "on",
        },
    )
    viewer.refresh_from_db()
    assert not viewer.is_superuser
    assert not viewer.groups.filter(name="admin").exists()


def test_an_admin_cannot_open_or_change_a_superuser(admin_client_, root):
    response = admin_client_.get(f"/admin/auth/user/{root.pk}/change/")
    assert response.status_code == 302  # "does not exist", back to the index
    admin_client_.post(
        f"/admin/auth/user/{root.pk}/password/",
        {"password1": "taken-over-1", "password2": "taken-over-1"},
    )
    root.refresh_from_db()
    assert root.check_password("pw-root")


def test_a_curator_is_sent_to_the_admin_login(curator_client):
    response = curator_client.get("/admin/auth/user/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_an_admin_cannot_mint_a_token_for_another_admin_or_a_superuser(
    admin_client_, admin_user, other_admin, root, viewer
):
    for owner in (other_admin, root):
        response = admin_client_.post("/tokens/", {"name": "as someone", "user": owner.pk})
        assert "Select a valid choice" in response.content.decode()
        with pytest.raises(ValueError, match="created by that admin only"):
            api_token_create(user=owner, name="as someone", created_by=admin_user)
    assert not ApiToken.objects.exists()
    admin_client_.post("/tokens/", {"name": "mine", "user": admin_user.pk})
    admin_client_.post("/tokens/", {"name": "for vera", "user": viewer.pk})
    assert set(ApiToken.objects.values_list("name", flat=True)) == {"mine", "for vera"}


def test_the_api_document_and_docs_need_a_login(viewer_client):
    assert Client().get("/api/openapi.json").status_code == 401
    docs = Client().get("/api/docs")
    assert docs.status_code == 302 and docs["Location"].startswith("/accounts/login/")
    assert viewer_client.get("/api/openapi.json").json()["info"]["title"] == "qqweb API"
    assert viewer_client.get("/api/docs").status_code == 200


def test_the_api_document_answers_a_token(viewer):
    _, raw = api_token_create(user=viewer, name="codegen")
    response = Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/openapi.json")
    assert response.status_code == 200


@pytest.mark.django_db
def test_there_are_no_password_reset_pages():
    assert Client().get("/accounts/password_reset/").status_code == 404
    assert Client().get("/accounts/reset/x/y/").status_code == 404
