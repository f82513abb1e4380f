"""Every page needs a login; roles are enforced; /healthz is open; tokens work."""

import pytest
from django.test import Client
from django.urls import reverse

from qqweb.models import ApiToken
from qqweb.services import api_token_create

PAGES = [
    "memory_app:overview",
    "memory_app:notes",
    "memory_app:search",
    "memory_app:retrieval",
    "memory_app:audit",
    "memory_app:review",
    "memory_app:archive",
    "memory_app:core",
    "memory_app:maintenance",
    "graph_app:index",
    "health",
    "api_tokens",
]


@pytest.mark.django_db
@pytest.mark.parametrize("name", PAGES)
def test_every_page_sends_anonymous_visitors_to_the_login(name):
    response = Client().get(reverse(name))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.django_db
def test_healthz_needs_no_login_and_shows_no_data(stores):
    response = Client().get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert set(body["stores"]) == {"mongodb", "neo4j", "memory_dir", "broker"}
    assert all(s["up"] for s in body["stores"].values())
    assert set(body) == {"status", "stores", "jobs"}
    assert all(isinstance(v, bool | int) for v in body["jobs"].values())  # counts, no names


@pytest.mark.parametrize("name", [p for p in PAGES if p != "api_tokens"])
def test_a_viewer_can_open_every_section(viewer_client, stores, name):
    assert viewer_client.get(reverse(name)).status_code == 200


def test_a_user_without_a_role_is_forbidden(outsider):
    client = Client()
    client.force_login(outsider)
    assert client.get(reverse("memory_app:overview")).status_code == 403


def test_only_admins_manage_api_tokens(viewer_client, curator_client, admin_client_, stores):
    assert viewer_client.get(reverse("api_tokens")).status_code == 403
    assert curator_client.get(reverse("api_tokens")).status_code == 403
    assert admin_client_.get(reverse("api_tokens")).status_code == 200


def test_an_admin_creates_a_token_that_is_shown_once(admin_client_, viewer, stores):
    response = admin_client_.post(reverse("api_tokens"), {"name": "nightly", "user": viewer.pk})
    assert response.status_code == 200
    token = ApiToken.objects.get(name="nightly")
    raw = response.context["new_key"]
    assert raw.startswith("qq_") and raw not in token.key_hash
    page_again = admin_client_.get(reverse("api_tokens")).content.decode()
    assert raw not in page_again
    api = Client().get("/api/me", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert api.json() == {"username": "vera-viewer", "role": "viewer", "via": "token"}


def test_a_revoked_token_is_refused(admin_client_, viewer):
    token, raw = api_token_create(user=viewer, name="script")
    admin_client_.post(reverse("api_token_revoke", args=[token.pk]))
    response = Client().get("/api/me", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthenticated"


@pytest.mark.django_db
def test_the_api_answers_401_json_without_credentials():
    response = Client().get("/api/overview")
    assert response.status_code == 401
    assert "Bearer" in response.json()["error"]["message"]


def test_the_api_forbids_a_token_whose_user_has_no_role(outsider):
    _, raw = api_token_create(user=outsider, name="x")
    response = Client().get("/api/overview", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"


def test_the_api_accepts_the_browser_session(viewer_client):
    assert viewer_client.get("/api/me").json()["via"] == "session"


def test_a_page_reads_the_users_groups_once_and_a_new_role_counts_from_the_next_request(
    viewer, viewer_client, stores
):
    from django.contrib.auth.models import Group
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = viewer_client.get(reverse("memory_app:review"))
    assert response.status_code == 200
    assert "Scan for duplicates" not in response.content.decode()  # a viewer starts none
    group_reads = [q for q in queries.captured_queries if '"auth_user_groups"' in q["sql"]]
    assert len(group_reads) == 1
    viewer.groups.add(Group.objects.get(name="admin"))
    assert "Scan for duplicates" in viewer_client.get(reverse("memory_app:review")).content.decode()
