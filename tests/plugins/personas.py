"""Signed-in people of each role (viewer, curator, admin, outsider) and their clients."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from qqweb.services import roles_ensure

# --- personas ------------------------------------------------------------------------------


def _user_with_role(django_user_model: Any, username: str, role: str | None) -> Any:
    roles_ensure()
    user = django_user_model.objects.create_user(username=username, password="pw-" + username)
    if role:
        user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def viewer(db: None, django_user_model: Any) -> Any:
    return _user_with_role(django_user_model, "vera-viewer", "viewer")


@pytest.fixture
def curator(db: None, django_user_model: Any) -> Any:
    return _user_with_role(django_user_model, "cora-curator", "curator")


@pytest.fixture
def admin_user(db: None, django_user_model: Any) -> Any:
    return _user_with_role(django_user_model, "ada-admin", "admin")


@pytest.fixture
def outsider(db: None, django_user_model: Any) -> Any:
    """Logged in, but holding no role."""
    return _user_with_role(django_user_model, "otto-outsider", None)


def _client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def viewer_client(viewer: Any) -> Client:
    return _client_for(viewer)


@pytest.fixture
def curator_client(curator: Any) -> Client:
    return _client_for(curator)


@pytest.fixture
def admin_client_(admin_user: Any) -> Client:
    return _client_for(admin_user)


@pytest.fixture
def api_wsgi(db: None) -> Iterator[Any]:
    """The whole Django application as a WSGI callable, for clients that speak WSGI
    (schemathesis). Like Django's test client, it leaves the test's database connection
    open between requests (the test runs in a transaction)."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.signals import request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    try:
        yield WSGIHandler()
    finally:
        request_started.connect(close_old_connections)
