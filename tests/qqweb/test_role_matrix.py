"""The role matrix: every URL the resolver knows and every operation of the OpenAPI schema,
tried as nobody, a viewer, a curator and an admin, against one declared table. A route
missing from the table, or in the table but gone, fails the test.

What "allowed" means here is access only: the request got past the login and the role
check (anything but a login redirect, 401 or 403); what the route then answers is the
business of its own tests. Requests are real (every store is up), with ids that do not
exist, so no allowed write finds anything to change."""

from __future__ import annotations

import re
import uuid
from typing import Any
from urllib.parse import quote

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from qqweb.api import api
from qqweb.services import api_token_create, api_token_revoke

NOBODY, VIEWER, CURATOR, ADMIN = "nobody", "viewer", "curator", "admin"
PERSONAS = (NOBODY, VIEWER, CURATOR, ADMIN)
OPEN = "open"  # no login needed
LOGOUT = "logout"  # everyone is sent to the login page, logged out
LOGGED_IN = "logged in"  # any login, whatever the role
ORDER = {OPEN: 0, LOGGED_IN: 1, NOBODY: 0, VIEWER: 2, CURATOR: 3, ADMIN: 4}

# route (as the resolver spells it) -> (methods tried, the role needed)
PAGES: dict[str, tuple[tuple[str, ...], str]] = {
    "": (("GET",), VIEWER),
    "notes/": (("GET",), VIEWER),
    "notes/bulk/": (("POST",), CURATOR),
    "notes/<str:note_id>/": (("GET",), VIEWER),
    "notes/<str:note_id>/edit/": (("POST",), CURATOR),
    "notes/<str:note_id>/archive/": (("POST",), CURATOR),
    "notes/<str:note_id>/promote/": (("POST",), CURATOR),
    "notes/<str:note_id>/keep/": (("POST",), CURATOR),
    "notes/new/": (("GET", "POST"), CURATOR),
    "search/": (("GET",), VIEWER),
    "retrieval/": (("GET",), VIEWER),
    "audit/": (("GET",), VIEWER),
    "audit/<int:event_id>/undo/": (("POST",), CURATOR),
    "audit/batches/<uuid:batch_id>/undo/": (("POST",), CURATOR),
    "archive/": (("GET",), VIEWER),
    "archive/restore/": (("POST",), ADMIN),
    "archive/purge/": (("POST",), ADMIN),
    "archive/<str:note_id>/restore/": (("GET", "POST"), ADMIN),
    "review/": (("GET",), VIEWER),
    "review/scan/": (("POST",), ADMIN),
    "review/scan/<int:run_id>/": (("GET",), VIEWER),
    "review/<int:pair_id>/verdict/": (("POST",), CURATOR),
    "review/<int:pair_id>/llm/": (("GET",), CURATOR),
    "review/back/": (("POST",), CURATOR),
    "core/": (("GET",), VIEWER),
    "core/add/": (("POST",), CURATOR),
    "core/remove/": (("POST",), CURATOR),
    "core/working/remove/": (("POST",), CURATOR),
    "core/working/edit/": (("POST",), CURATOR),
    "core/candidates/<str:note_id>/": (("POST",), CURATOR),
    "maintenance/": (("GET",), VIEWER),
    "maintenance/runs/<int:run_id>/": (("GET",), VIEWER),
    "maintenance/schedule/<int:task_id>/": (("POST",), ADMIN),
    "maintenance/runs/<int:run_id>/undo/": (("POST",), ADMIN),
    "maintenance/runs/<int:run_id>/apply/": (("POST",), ADMIN),
    "maintenance/runs/<int:run_id>/cancel/": (("POST",), ADMIN),
    "maintenance/<str:kind>/": (("POST",), ADMIN),
    "graph/": (("GET",), VIEWER),
    "graph/entities/": (("GET",), VIEWER),
    "graph/search/": (("GET",), VIEWER),
    "graph/orphans/": (("GET",), VIEWER),
    "graph/names/": (("GET",), VIEWER),
    "graph/duplicates/": (("GET",), VIEWER),
    "graph/duplicates/verdict/": (("POST",), CURATOR),
    "graph/merge/": (("GET", "POST"), CURATOR),
    "graph/relationships/": (("POST",), CURATOR),
    "graph/entities/<str:label>/<entity_name:name>/neighbourhood/": (("GET",), VIEWER),
    "graph/entities/<str:label>/<entity_name:name>/edit/": (("GET", "POST"), CURATOR),
    "graph/entities/<str:label>/<entity_name:name>/delete/": (("GET", "POST"), CURATOR),
    "graph/entities/<str:label>/<entity_name:name>/": (("GET",), VIEWER),
    "facts/": (("GET",), VIEWER),
    "facts/next-start/": (("GET",), VIEWER),
    "facts/lint/": (("GET",), VIEWER),
    "facts/<str:fact_id>/": (("GET",), VIEWER),
    "facts/new/": (("GET", "POST"), CURATOR),
    "facts/<str:fact_id>/edit/": (("POST",), CURATOR),
    "facts/<str:fact_id>/delete/": (("POST",), CURATOR),
    "facts/<str:fact_id>/embed/": (("POST",), CURATOR),
    "facts/next-start/resolve/": (("POST",), CURATOR),
    "facts/archive/": (("GET",), VIEWER),
    "facts/archive/<int:archive_id>/restore/": (("POST",), CURATOR),
    "facts/contradictions/": (("GET",), VIEWER),
    "facts/contradictions/verdict/": (("POST",), CURATOR),
    "facts/vanished/": (("GET",), VIEWER),
    "facts/vanished/scan/": (("POST",), CURATOR),
    "backup/": (("GET",), ADMIN),
    "backup/export/": (("POST",), ADMIN),
    "backup/upload/": (("POST",), ADMIN),
    "backup/import/": (("POST",), ADMIN),
    "backup/files/<str:name>": (("GET",), ADMIN),
    "backup/runs/<int:run_id>/": (("GET",), ADMIN),
    "favicon.ico": (("GET",), OPEN),
    "health/": (("GET",), VIEWER),
    "healthz": (("GET",), OPEN),
    "health/status": (("GET",), VIEWER),
    "tokens/": (("GET", "POST"), ADMIN),
    "tokens/<int:token_id>/revoke/": (("POST",), ADMIN),
    "accounts/login/": (("GET",), OPEN),
    "accounts/logout/": (("POST",), LOGOUT),  # tried with a client of its own
    "accounts/password_change/": (("GET",), LOGGED_IN),
    "accounts/password_change/done/": (("GET",), LOGGED_IN),
    # Django admin (every URL under it): the admin role; others go to its login page.
    "admin/": (("GET",), ADMIN),
    # The API's root, document and page (the operations are in OPERATIONS).
    "api/": (("GET",), OPEN),  # django-ninja's root: 404 for everyone
    "api/openapi.json": (("GET",), VIEWER),
    "api/docs": (("GET",), VIEWER),
    # The maintenance jobs' one route, documented as one operation per job.
    "api/maintenance/<job>": (("POST",), ADMIN),
}

# "METHOD /path" of every OpenAPI operation -> the role needed
OPERATIONS: dict[str, str] = {
    "GET /api/me": VIEWER,
    "GET /api/sources": VIEWER,
    "GET /api/health": VIEWER,
    "GET /api/overview": VIEWER,
    "GET /api/notes": VIEWER,
    "GET /api/notes/histogram": VIEWER,
    "POST /api/notes/search": VIEWER,
    "POST /api/notes/bulk": CURATOR,
    "POST /api/notes": CURATOR,
    "GET /api/notes/{note_id}": VIEWER,
    "PATCH /api/notes/{note_id}": CURATOR,
    "DELETE /api/notes/{note_id}": CURATOR,
    "POST /api/retrieval/preview": VIEWER,
    "GET /api/archive": VIEWER,
    "POST /api/archive/{note_id}/restore": ADMIN,
    "POST /api/archive/purge": ADMIN,
    "GET /api/audit": VIEWER,
    "POST /api/audit/{event_id}/undo": CURATOR,
    "POST /api/audit/batches/{batch_id}/undo": CURATOR,
    "GET /api/core": VIEWER,
    "GET /api/core/candidates": VIEWER,
    "POST /api/core/promote": CURATOR,
    "POST /api/core/candidates/{note_id}/reject": CURATOR,
    "GET /api/duplicates": VIEWER,
    "POST /api/duplicates/scan": ADMIN,
    "POST /api/duplicates/{pair_id}/verdict": CURATOR,
    "POST /api/duplicates/{pair_id}/suggestion": CURATOR,
    "POST /api/duplicates/back": CURATOR,
    "GET /api/maintenance/runs": VIEWER,
    "GET /api/maintenance/runs/{run_id}": VIEWER,
    "GET /api/maintenance/runs/{run_id}/plan": VIEWER,
    "POST /api/maintenance/runs/{run_id}/apply": ADMIN,
    "POST /api/maintenance/runs/{run_id}/cancel": ADMIN,
    "POST /api/maintenance/runs/{run_id}/undo": ADMIN,
    **{
        f"POST /api/maintenance/{job}": ADMIN
        for job in (
            "archival",
            "archive_purge",
            "auto_consolidation",
            "decay",
            "dedup_scan",
            "graph_orphan_scan",
            "graph_reembed",
            "promotion_scan",
            "reembed",
            "vector_index_rebuild",
        )
    },
    "GET /api/graph/stats": VIEWER,
    "GET /api/graph/entities": VIEWER,
    "POST /api/graph/entities/search": VIEWER,
    "GET /api/graph/entities/{label}/{name}": VIEWER,
    "PATCH /api/graph/entities/{label}/{name}": CURATOR,
    "DELETE /api/graph/entities/{label}/{name}": CURATOR,
    "GET /api/graph/entities/{label}/{name}/neighbourhood": VIEWER,
    "POST /api/graph/entities/merge": CURATOR,
    "PATCH /api/graph/relationships": CURATOR,
    "DELETE /api/graph/relationships": CURATOR,
    "GET /api/graph/orphans": VIEWER,
    "GET /api/graph/lookup": VIEWER,
    "GET /api/graph/duplicates": VIEWER,
    "POST /api/graph/duplicates/verdict": CURATOR,
    "GET /api/facts": VIEWER,
    "GET /api/facts/next-start": VIEWER,
    "GET /api/facts/lint": VIEWER,
    "GET /api/facts/{fact_id}": VIEWER,
    "POST /api/facts": CURATOR,
    "PATCH /api/facts/{fact_id}": CURATOR,
    "DELETE /api/facts/{fact_id}": CURATOR,
    "POST /api/facts/{fact_id}/embed": CURATOR,
    "POST /api/facts/next-start/resolve": CURATOR,
    "GET /api/facts/archive": VIEWER,
    "POST /api/facts/archive/{archive_id}/restore": CURATOR,
    "GET /api/facts/contradictions": VIEWER,
    "POST /api/facts/contradictions/verdict": CURATOR,
    "GET /api/facts/vanished": VIEWER,
    "POST /api/facts/vanished/scan": CURATOR,
    "GET /api/backup/files": ADMIN,
    "GET /api/backup/files/{name}": ADMIN,
    "POST /api/backup/exports": ADMIN,
    "POST /api/backup/uploads": ADMIN,
    "POST /api/backup/imports": ADMIN,
}

# Values for path parameters and required fields: ids that exist nowhere.
SAMPLES: dict[str, Any] = {
    "note_id": "note_00000000dead",
    "event_id": 999999,
    "run_id": 999999,
    "task_id": 999999,
    "pair_id": 999999,
    "token_id": 999999,
    "kind": "decay",
    "job": "no_such_job",
    "label": "Person",
    "name": "Nobody Here",
    "fact_id": "64b0000000000000000000de",
    "batch_id": str(uuid.uuid4()),
    "archive_id": 999999,
}


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


def url_of(route: str, samples: dict[str, Any] = SAMPLES) -> str:
    def value(match: re.Match[str]) -> str:
        return quote(str(samples[match.group(1)]), safe="")

    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", value, route)


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


def minimal_body(schema: dict[str, Any], node: dict[str, Any]) -> Any:
    """The smallest value the schema accepts: required fields only, samples by name."""
    if "$ref" in node:
        return minimal_body(schema, schema["components"]["schemas"][node["$ref"].split("/")[-1]])
    if "anyOf" in node:
        return minimal_body(schema, node["anyOf"][0])
    if "allOf" in node:
        return minimal_body(schema, node["allOf"][0])
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    if kind == "object":
        return {
            name: SAMPLES.get(name, minimal_body(schema, node["properties"][name]))
            for name in node.get("required", [])
        }
    if kind == "array":
        return [minimal_body(schema, node["items"])] * node.get("minItems", 0)
    if kind == "string" and node.get("format") == "date-time":
        return "2026-01-01T00:00:00+00:00"
    if kind == "string":
        return "x" * max(1, node.get("minLength", 1))
    if kind in ("integer", "number"):
        return node.get("minimum", node.get("exclusiveMinimum", 0) + 1)
    if kind == "boolean":
        return False
    return None


def api_request(operation: str) -> tuple[str, str, dict[str, Any], Any]:
    method, path = operation.split(" ", 1)
    schema = api.get_openapi_schema()
    op = schema["paths"][path][method.lower()]
    url = re.sub(r"\{(\w+)\}", lambda m: quote(str(SAMPLES[m.group(1)]), safe=""), path)
    query = {
        p["name"]: SAMPLES.get(p["name"], minimal_body(schema, p["schema"]))
        for p in op.get("parameters", [])
        if p["in"] == "query" and p.get("required")
    }
    body = None
    if "requestBody" in op:
        content = op["requestBody"]["content"]
        if "application/json" in content:
            body = minimal_body(schema, content["application/json"]["schema"])
        else:  # an upload: an empty file
            body = {"file": SimpleUploadedFile("empty.ndjson", b"")}
    return method, url, query, body


def call(client: Client, method: str, url: str, query: dict[str, Any], body: Any) -> Any:
    if query:
        url += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    if body is None:
        return getattr(client, method.lower())(url)
    if isinstance(body, dict) and isinstance(body.get("file"), SimpleUploadedFile):
        body["file"].seek(0)
        return client.post(url, body)  # multipart
    return getattr(client, method.lower())(url, body, content_type="application/json")


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
