"""The role matrix: every URL the resolver knows and every operation of the OpenAPI schema,
tried as nobody, a viewer, a curator and an admin, against one declared table. A route
missing from the table, or in the table but gone, fails the test.

What "allowed" means here is access only: the request got past the login and the role
check (anything but a login redirect, 401 or 403); what the route then answers is the
business of its own tests. Requests are real (every store is up), with ids that do not
exist, so no allowed write finds anything to change."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from qqweb.api import api
from tests.qqweb.role_table import (
    ADMIN,
    CURATOR,
    LOGOUT,
    NOBODY,
    OPEN,
    OPERATIONS,
    ORDER,
    PAGES,
    PERSONAS,
    VIEWER,
    api_request,
    call,
    url_of,
)


def resolver_routes() -> set[str]:
    def walk(patterns: list[Any], prefix: str) -> set[str]:
        found: set[str] = set()
        for p in patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                found |= {route} if route == "admin/" else walk(p.url_patterns, route)
            elif isinstance(p, URLPattern):
                found.add(route)
        return found

    routes = walk(get_resolver().url_patterns, "")
    documented = {
        re.sub(r"\{(?:\w+:)?(\w+)\}", r"<\1>", path.lstrip("/"))
        for path in api.get_openapi_schema()["paths"]
    }
    return {r for r in routes if re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", r) not in documented}


def schema_operations() -> set[str]:
    return {
        f"{method.upper()} {path}"
        for path, ops in api.get_openapi_schema()["paths"].items()
        for method in ops
    }


def test_the_table_names_every_route_and_operation():
    assert resolver_routes() ^ set(PAGES) == set()
    assert schema_operations() ^ set(OPERATIONS) == set()


@pytest.fixture
def clients(viewer_client, curator_client, admin_client_) -> dict[str, Client]:
    personas = {
        NOBODY: Client(),
        VIEWER: viewer_client,
        CURATOR: curator_client,
        ADMIN: admin_client_,
    }
    for client in personas.values():  # a 500 past the role check is another test's business
        client.raise_request_exception = False
    return personas


def page_verdict(response: Any) -> str:
    """ "login" (sent to a login page), "forbidden" or "allowed"."""
    location = response.get("Location", "")
    if response.status_code == 302 and (
        location.startswith("/accounts/login/") or location.startswith("/admin/login/")
    ):
        return "login"
    if response.status_code == 401:  # the API's answer
        return "login"
    if response.status_code == 403:
        return "forbidden"
    return "allowed"


def expected_page(persona: str, needed: str) -> set[str]:
    if needed == LOGOUT:
        return {"login"}
    if needed == OPEN or ORDER[persona] >= ORDER[needed]:
        return {"allowed"}
    if persona == NOBODY:
        return {"login"}
    return {"forbidden", "login"} if needed == ADMIN else {"forbidden"}


def test_every_page_as_every_persona(stores, clients, viewer, curator, admin_user):
    users = {VIEWER: viewer, CURATOR: curator, ADMIN: admin_user}
    wrong = []
    for route, (methods, needed) in PAGES.items():
        url = url_of(route)
        for persona in PERSONAS:
            for method in methods:
                client = clients[persona]
                if route == "accounts/logout/":  # a session of its own: the others stay
                    client = Client()
                    if persona in users:
                        client.force_login(users[persona])
                response = getattr(client, method.lower())(url)
                verdict = page_verdict(response)
                if verdict not in expected_page(persona, needed):
                    wrong.append(f"{persona} {method} {url}: {response.status_code} {verdict}")
    assert wrong == [], "\n".join(wrong)


def test_every_operation_as_every_persona(stores, clients):
    wrong = []
    for operation, needed in OPERATIONS.items():
        method, url, query, body = api_request(operation)
        for persona in PERSONAS:
            response = call(clients[persona], method, url, query, body)
            if ORDER[persona] >= ORDER[needed]:
                ok = response.status_code not in (401, 403)
            else:
                ok = response.status_code == (401 if persona == NOBODY else 403)
            if not ok:
                wrong.append(
                    f"{persona} {operation}: {response.status_code} {response.content[:150]!r}"
                )
    assert wrong == [], "\n".join(wrong)
