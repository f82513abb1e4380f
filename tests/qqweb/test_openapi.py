"""The API's OpenAPI schema is committed; this fails when it drifts. After an intended
change, regenerate it: ``QQ_UPDATE_OPENAPI=1 .venv/bin/pytest tests/qqweb/test_openapi.py``."""

import json
import os
from pathlib import Path

from qqweb.api import api

SNAPSHOT = Path(__file__).parent / "openapi.snapshot.json"


def test_the_openapi_schema_matches_the_committed_snapshot():
    schema = json.loads(json.dumps(api.get_openapi_schema(path_prefix="/api"), sort_keys=True))
    if os.environ.get("QQ_UPDATE_OPENAPI") == "1":
        SNAPSHOT.write_text(json.dumps(schema, indent=1, sort_keys=True) + "\n")
    assert schema == json.loads(SNAPSHOT.read_text()), (
        "the API schema changed: check the change, then regenerate the snapshot "
        "(QQ_UPDATE_OPENAPI=1)"
    )


def _schema() -> dict:
    return json.loads(json.dumps(api.get_openapi_schema(path_prefix="/api")))


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _unbounded(schema: dict, node: dict, where: str, seen: set[str]) -> list[str]:
    """Every integer, number and string under ``node`` that declares no bound."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in seen:
            return []
        return _unbounded(schema, _resolve(schema, node), where, {*seen, name})
    found: list[str] = []
    for key in ("anyOf", "oneOf", "allOf"):
        for option in node.get(key, []):
            found += _unbounded(schema, option, where, seen)
    for name, prop in node.get("properties", {}).items():
        found += _unbounded(schema, prop, f"{where}.{name}", seen)
    if "items" in node:
        found += _unbounded(schema, node["items"], f"{where}[]", seen)
    kind = node.get("type")
    if kind in ("integer", "number"):
        low = "minimum" in node or "exclusiveMinimum" in node
        high = "maximum" in node or "exclusiveMaximum" in node
        if not (low and high):
            found.append(f"{where}: {kind} without both bounds")
    if kind == "string" and not (
        "maxLength" in node or "enum" in node or "pattern" in node or "format" in node
    ):
        found.append(f"{where}: string without a maximum length")
    return found


def test_every_parameter_and_body_field_declares_its_bounds():
    schema = _schema()
    unbounded: list[str] = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            name = f"{method.upper()} {path}"
            for param in operation.get("parameters", []):
                if param["in"] != "path":  # a path is bounded by the request line
                    where = f"{name} ?{param['name']}"
                    unbounded += _unbounded(schema, param["schema"], where, set())
            for content in operation.get("requestBody", {}).get("content", {}).values():
                unbounded += _unbounded(schema, content["schema"], f"{name} body", set())
    assert unbounded == []


def test_every_operation_documents_its_errors_with_the_error_schema():
    schema = _schema()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert {"400", "401", "403", "422"} <= set(responses), f"{method} {path}"
            for status, response in responses.items():
                if status.startswith(("4", "5")):
                    ref = response["content"]["application/json"]["schema"]["$ref"]
                    assert ref.endswith("/ErrorOut"), f"{method} {path} {status}"


def test_every_route_answering_an_error_shares_one_response_model_for_it():
    # one wrapper per response type (qqweb/lib/api_types.py), not one per route and status:
    # hundreds of them made the first search after a restart wait for their building
    wrappers, routers, operations = {}, [router for _, router in api._routers], 0
    while routers:
        router = routers.pop()
        routers.extend(child for _, child, *_ in router._routers)
        for path_view in router.path_operations.values():
            for operation in path_view.operations:
                operations += 1
                for status, model in operation.response_models.items():
                    if model is not None and str(status).startswith(("4", "5")):
                        wrappers[id(model)] = model
    assert operations > 50
    assert len(wrappers) == 1, [m.model_fields["response"].annotation for m in wrappers.values()]


def test_the_memory_and_graph_candidates_and_verdicts_are_documented_apart():
    schema = _schema()

    def shape(path: str, method: str, where: str) -> dict:
        operation = schema["paths"][path][method]
        if where == "body":
            node = operation["requestBody"]["content"]["application/json"]["schema"]
        else:
            node = operation["responses"]["200"]["content"]["application/json"]["schema"]
            node = node.get("items", node)
        return _resolve(schema, node)

    promotion = shape("/api/core/candidates", "get", "response")
    assert "suggested_category" in promotion["properties"]
    entities = shape("/api/graph/duplicates", "get", "response")
    assert {"a", "b", "reason"} <= set(entities["properties"])
    review = shape("/api/duplicates/{pair_id}/verdict", "post", "body")
    assert "primary_id" in review["properties"]
    graph = shape("/api/graph/duplicates/verdict", "post", "body")
    assert {"a", "b", "keep"} <= set(graph["properties"])


# The escapes ECMA-262's unicode mode accepts (the regex dialect OpenAPI and JSON Schema
# validators such as Ajv compile a ``pattern`` in): the syntax characters and "/", the
# class, control, hex, unicode and property escapes, back-references; "-" only inside
# a character class. Python's ``re.escape`` escapes "-" anywhere, which a JavaScript
# client refuses to compile ("Invalid escape").
_ECMA_ESCAPES = set("^$\\.*+?()[]{}|/") | set("dDsSwWbBfnrtv0xucpPk123456789")


def _escapes_a_javascript_client_refuses(pattern: str) -> list[str]:
    refused, in_class, i = [], False, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            escaped = pattern[i + 1]
            if escaped not in _ECMA_ESCAPES and not (in_class and escaped == "-"):
                refused.append("\\" + escaped)
            i += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        i += 1
    return refused


def _patterns(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
        return own + [p for value in node.values() for p in _patterns(value)]
    if isinstance(node, list):
        return [p for value in node for p in _patterns(value)]
    return []


def test_every_pattern_the_api_documents_compiles_in_a_javascript_client():
    patterns = _patterns(_schema())
    assert any("|lint|" in p for p in patterns)  # the facts' page words are among them
    refused = {p: bad for p in patterns if (bad := _escapes_a_javascript_client_refuses(p))}
    assert not refused, refused
