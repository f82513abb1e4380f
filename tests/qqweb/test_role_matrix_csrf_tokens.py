"""Beside the role matrix (test_role_matrix_personas.py): every HTML POST and an API write
with the session need the CSRF token; an API token acts with its user's role on every
operation, and a revoked one is 401 on every operation, writes included."""

from __future__ import annotations

from django.test import Client

from qqweb.services import api_token_create, api_token_revoke
from tests.qqweb.role_table import OPERATIONS, ORDER, PAGES, VIEWER, api_request, call, url_of


def test_every_html_post_needs_the_csrf_token(stores, admin_user):
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.force_login(admin_user)
    posts = [url_of(r) for r, (methods, _) in PAGES.items() if "POST" in methods]
    posts.append("/accounts/login/")
    refused = {url: client.post(url, {"name": "x"}).status_code for url in posts}
    assert {url: status for url, status in refused.items() if status != 403} == {}
    assert b"CSRF" in client.post("/notes/bulk/").content


def test_an_api_write_with_the_session_needs_the_csrf_token(stores, admin_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    response = client.post("/api/notes/search", {"query": "x"}, content_type="application/json")
    assert response.status_code == 403


def test_a_token_acts_with_its_users_role_on_every_operation(stores, viewer):
    _, raw = api_token_create(user=viewer, name="matrix")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}", raise_request_exception=False)
    wrong = []
    for operation, needed in OPERATIONS.items():
        status = call(client, *api_request(operation)).status_code
        if (status == 403) != (ORDER[needed] > ORDER[VIEWER]) or status == 401:
            wrong.append(f"{operation}: {status}")
    assert wrong == [], "\n".join(wrong)


def test_a_revoked_token_is_401_on_every_operation_writes_included(stores, admin_user, settings):
    settings.QQ_API_TOKEN_FAILURE_RATE = "1000/m"  # past it: 429, tested in test_throttling
    token, raw = api_token_create(user=admin_user, name="leaked")
    api_token_revoke(token_id=token.pk)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}", raise_request_exception=False)
    client.force_login(admin_user)  # a browser session beside it does not count
    wrong = []
    for operation in OPERATIONS:
        response = call(client, *api_request(operation))
        if response.status_code != 401:
            wrong.append(f"{operation}: {response.status_code}")
    assert wrong == [], "\n".join(wrong)
