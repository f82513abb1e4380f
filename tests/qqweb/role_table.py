"""The role matrix's table (test_role_matrix_personas.py, test_role_matrix_csrf_tokens.py):
every route and every OpenAPI operation with the role it needs, sample values for path
parameters and required fields (ids that exist nowhere), and how a request for a route or
an operation is built from them."""

from __future__ import annotations

import re
import uuid
from typing import Any
from urllib.parse import quote

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from qqweb.api import api

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
    "graph/relationships/list/": (("GET",), VIEWER),
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
    "memory-tests/": (("GET",), VIEWER),
    "memory-tests/run/": (("POST",), CURATOR),
    "memory-tests/run/<int:job_id>/cancel/": (("POST",), CURATOR),
    "memory-tests/pin/": (("POST",), CURATOR),
    "memory-tests/import/": (("POST",), CURATOR),
    "memory-tests/pins/<int:pin_id>/unpin/": (("POST",), CURATOR),
    "memory-tests/runs/<int:run_id>/": (("GET",), VIEWER),
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
    "POST /api/duplicates/{pair_id}/preview": VIEWER,
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
    "POST /api/facts/{fact_id}/delete": CURATOR,
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
    "GET /api/memory-tests/pins": VIEWER,
    "POST /api/memory-tests/pins": CURATOR,
    "DELETE /api/memory-tests/pins/{pin_id}": CURATOR,
    "POST /api/memory-tests/imports": CURATOR,
    "GET /api/memory-tests/runs": VIEWER,
    "POST /api/memory-tests/runs": CURATOR,
    "GET /api/memory-tests/runs/{run_id}": VIEWER,
    "GET /api/memory-tests/jobs/{job_id}": VIEWER,
    "POST /api/memory-tests/jobs/{job_id}/cancel": CURATOR,
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
    "pin_id": 999999,
    "job_id": 999999,
}


def url_of(route: str, samples: dict[str, Any] = SAMPLES) -> str:
    def value(match: re.Match[str]) -> str:
        return quote(str(samples[match.group(1)]), safe="")

    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", value, route)


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
