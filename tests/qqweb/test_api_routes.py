"""Every route of the one NinjaAPI, enumerated from its routers (hidden routes included):
what it answers is what it documents.

- statically: each documents the statuses every route can answer (a body the server
  refuses, no login, a role missing, a parameter outside its schema, a rate limit), and
  each error status it documents has the error body (``ErrorOut``);
- by calling it: a route that names something in its path, called as an admin with an id
  that names nothing (and a body its schema takes), answers a status it documents, and
  404 when it documents 404 (not a 400 "invalid").
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from ninja.operation import Operation

from qqweb.api import api
from qqweb.lib.api_types import ALWAYS, ErrorOut
from tests.memory_app.facts.lib.conftest import facts_store

__all__ = ["facts_store"]  # the facts API on: a missing fact is looked up, not refused

MISSING_IDS: dict[str, str] = {  # well-formed, naming nothing in a clean store
    "note_id": "note_00000000dead",
    "fact_id": "0123456789abcdef01234567",
    "run_id": "987654",
    "pair_id": "987654",
    "event_id": "987654",
    "archive_id": "987654",
    "pin_id": "987654",
    "job_id": "987654",
    "batch_id": str(uuid.UUID(int=987654)),
    "label": "Person",
    "name": "Nobody Of That Name",
    "job": "no_such_job",
}
MISSING_BACKUP_FILE = "export-20990101-000000-deadbeef.ndjson"  # a backup file name
# Bodies the smallest one from the schema would not do: the verdict is checked first.
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/duplicates/{pair_id}/verdict"): {"verdict": "skip"},
}
PATH_PARAMETER = re.compile(r"\{(?:\w+:)?(\w+)\}")


def _operations() -> Iterator[tuple[str, str, Operation]]:
    """(method, path under /api, operation) for every route, in or out of the schema."""
    for prefix, router in api._routers:
        for path, view in router.path_operations.items():
            for operation in view.operations:
                for method in operation.methods:
                    full = "/" + "/".join(p.strip("/") for p in (prefix, path) if p.strip("/"))
                    yield method, full, operation


OPERATIONS = sorted(_operations(), key=lambda item: (item[1], item[0]))
NAMING = [item for item in OPERATIONS if PATH_PARAMETER.search(item[1])]


def _id(item: tuple[str, str, Operation]) -> str:
    return f"{item[0]} {item[1]}"


def _documented(operation: Operation) -> set[int]:
    return set(operation.response_models)


def test_the_routers_are_enumerated_and_some_routes_name_what_they_act_on():
    assert len(OPERATIONS) > 60  # every app's routes, not an empty walk that passes
    assert {path for _, path, _ in NAMING} >= {
        "/notes/{note_id}",
        "/maintenance/runs/{run_id}/apply",
        "/duplicates/{pair_id}/verdict",
        "/facts/{fact_id}",
        "/graph/entities/{label}/{path:name}",
    }


@pytest.mark.parametrize("item", OPERATIONS, ids=_id)
def test_every_route_documents_the_statuses_any_route_can_answer(item):
    method, path, operation = item
    missing = set(ALWAYS) - _documented(operation)
    assert not missing, f"{method} {path} does not document {sorted(missing)}"


@pytest.mark.parametrize("item", OPERATIONS, ids=_id)
def test_every_documented_error_status_has_the_error_body(item):
    method, path, operation = item
    wrong = {
        status: model
        for status, model in operation.response_models.items()
        if status >= 400 and _schema_of(model) is not ErrorOut
    }
    assert not wrong, f"{method} {path} documents {sorted(wrong)} without ErrorOut"


def _schema_of(model: Any) -> Any:
    """The schema a documented status answers (ninja wraps it in a ``response`` field)."""
    fields = getattr(model, "model_fields", {})
    return fields["response"].annotation if "response" in fields else model


def _body(schema: dict[str, Any], components: dict[str, Any]) -> Any:
    """The smallest value ``schema`` (OpenAPI, $refs into ``components``) takes: each
    required property, the first choice of an enum, the lower bound of a number."""
    if "$ref" in schema:
        return _body(components[schema["$ref"].rsplit("/", 1)[1]], components)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            choices = [s for s in schema[key] if s.get("type") != "null"]
            return _body(choices[0], components)
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: _body(properties[name], components) for name in schema.get("required", [])}
    if kind == "array":
        return [_body(schema.get("items", {}), components)] * schema.get("minItems", 0)
    if kind in ("integer", "number"):
        return schema.get("minimum", schema.get("exclusiveMinimum", 0) + 1)
    if kind == "boolean":
        return False
    if schema.get("format") == "date-time":
        return "2001-02-03T04:05:06Z"
    return "x" * max(1, schema.get("minLength", 1))


def _request_body(method: str, path: str) -> dict[str, Any] | None:
    openapi = api.get_openapi_schema()
    components = openapi["components"]["schemas"]
    route = openapi["paths"].get("/api" + path, {}).get(method.lower(), {})
    content = route.get("requestBody", {}).get("content", {})
    if "application/json" not in content:
        return None
    return _body(content["application/json"]["schema"], components)


@pytest.mark.parametrize("item", NAMING, ids=_id)
def test_a_route_called_with_an_id_that_names_nothing_answers_a_documented_status(
    item, admin_client_, stores, facts_store
):
    method, path, operation = item
    ids = (
        {**MISSING_IDS, "name": MISSING_BACKUP_FILE} if path.startswith("/backup") else MISSING_IDS
    )
    url = "/api" + PATH_PARAMETER.sub(lambda m: ids[m.group(1)], path)
    pattern = re.sub(r"\{(\w+:)?\w+\}", "{}", path)
    body = BODIES.get((method, path)) or _request_body(
        method,
        PATH_PARAMETER.sub(lambda m: "{" + m.group(1) + "}", path),  # no ``path:``
    )
    response = admin_client_.generic(
        method,
        url,
        json.dumps(body) if body is not None else "",
        content_type="application/json",
    )
    documented = _documented(operation)
    answered = response.status_code
    assert answered in documented, (
        f"{method} {pattern} answered {answered}, documents {sorted(documented)}: "
        f"{response.content[:300]!r}"
    )
    if 404 in documented:
        assert answered == 404, (
            f"{method} {pattern} documents 404 but answered {answered} for an id that names "
            f"nothing: {response.content[:300]!r}"
        )


def _collisions(paths: list[str]) -> Iterator[tuple[str, str, str, str]]:
    """(page path, item path, the item's path parameter, the page's word there) for every
    page Django routes where an item route's id could be: ``/facts/lint`` beside
    ``/facts/{fact_id}``."""
    for page in paths:
        for item in paths:
            a, b = page.strip("/").split("/"), item.strip("/").split("/")
            if page == item or len(a) != len(b):
                continue
            differ = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
            if len(differ) == 1 and not differ[0][0].startswith("{"):
                word, parameter = differ[0]
                if parameter.startswith("{"):
                    yield page, item, parameter.strip("{}"), word


def test_no_item_route_documents_as_an_id_a_word_its_collection_uses_for_a_page():
    """``GET /api/facts/lint`` is the lint: a client that read ``/facts/{fact_id}`` and sent
    "lint" would get the lint (or a 405 for PATCH), so the schema must say that "lint" is
    no fact id."""
    openapi = api.get_openapi_schema()
    paths = list(openapi["paths"])
    collisions = list(_collisions(paths))
    assert ("/api/facts/lint", "/api/facts/{fact_id}", "fact_id", "lint") in collisions
    undeclared = []
    for page, item, parameter, word in collisions:
        for method, operation in openapi["paths"][item].items():
            (schema,) = [p["schema"] for p in operation["parameters"] if p["name"] == parameter]
            if re.search(schema.get("pattern", ""), word):
                undeclared.append(f"{method.upper()} {item} takes {word!r} ({page})")
    assert not undeclared, "\n".join(undeclared)


def test_an_id_that_is_a_collection_page_is_refused_where_it_reaches_the_item(
    admin_client_, stores, facts_store
):
    response = admin_client_.post(
        "/api/facts/lint/embed", json.dumps({}), content_type="application/json"
    )
    assert response.status_code == 422
    assert "the collection's own page" in response.content.decode()
    assert "fact_id" in response.content.decode()
    # an id that only looks like a page is an id
    missing = admin_client_.get("/api/facts/lint-report")
    assert missing.status_code == 404
