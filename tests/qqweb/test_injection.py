"""Injection probes that stay in the suite: MongoDB operators and dotted or ``$`` keys in
every query parameter and body field, Cypher through labels, relationship types, names and
sort keys, path traversal through every name that could reach the file system, and stored
HTML/JS rendered on every page. Each probe must be inert: answered without a 5xx, and the
stores exactly as they were (or holding the hostile text as plain data)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from memory_app.notes.stores import archive_manager, core_notes, notes_store, working_notes
from qqweb.api import api
from tests.graph_app.conftest import graph_dump
from tests.helpers import add_note, agent_archive_line
from tests.qqweb.role_table import (
    OPERATIONS,
    PAGES,
    SAMPLES,
    api_request,
    call,
    url_of,
)

SCRIPT = '<script>alert("qq")</script>'
IMG = '"><img src=x onerror=alert(1)>'
OPERATOR_VALUES: list[Any] = [{"$ne": None}, {"a.b": 1, "$where": "sleep(1000)"}]
OPERATOR_STRINGS = ["$ne", '{"$gt": ""}', "a.b.$[]"]


@pytest.fixture
def planted(stores):
    add_note("note_0000000000a1", f"Dana wrote {SCRIPT}", importance=0.9)
    add_note("note_0000000000a2", f"Lumen {IMG} uses MongoDB", importance=0.6)
    add_note("note_0000000000a3", "tidepool runs k3s", importance=0.2)
    archive_manager().append_entries(
        [{**agent_archive_line("note_0000000000b1", 3), "content": f"archived {SCRIPT} {IMG}"}]
    )
    core_notes().add_core(f"core item {SCRIPT}", "Projects")
    working_notes().add_item("Key Topics", f"working item {IMG}")
    from graph_app.stores import graph_store

    graph_store().merge_entities(
        "Person",
        [{"name": f"Eve {SCRIPT}", "props": {"description": IMG}}, {"name": "Bob", "props": {}}],
    )
    graph_store().merge_relationships(
        "Person", "KNOWS", "Person", [{"a": "Bob", "b": f"Eve {SCRIPT}", "props": {}}]
    )
    return stores


def notes_snapshot() -> list[dict[str, Any]]:
    return sorted(
        (copy.deepcopy(d) for d in notes_store().collection.find({}, {"_id": 0})),
        key=lambda d: d["note_id"],
    )


def hostile_keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [k for k in value if k.startswith("$") or "." in k]
        return found + [k for v in value.values() for k in hostile_keys(v)]
    if isinstance(value, list):
        return [k for v in value for k in hostile_keys(v)]
    return []


def memory_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_operators_and_dotted_keys_in_every_field_are_inert(admin_client_, planted):
    admin_client_.raise_request_exception = False
    before, graph_before = notes_snapshot(), graph_dump()
    files_before = memory_files(planted["memory_dir"])
    schema = api.get_openapi_schema()
    failures = []
    for operation in OPERATIONS:
        method, url, query, body = api_request(operation)
        op = schema["paths"][operation.split(" ", 1)[1]][method.lower()]
        probes: list[tuple[str, dict[str, Any], Any]] = []
        for param in op.get("parameters", []):
            if param["in"] == "query":
                for value in OPERATOR_STRINGS:
                    probes.append((url, {**query, param["name"]: quote(value)}, body))
            if param["in"] == "path":
                for value in OPERATOR_STRINGS:
                    probed = url.replace(
                        quote(str(SAMPLES[param["name"]]), safe=""), quote(value, safe="")
                    )
                    probes.append((probed, query, body))
        if isinstance(body, dict) and "application/json" in op["requestBody"]["content"]:
            # (an upload's one field is a file: what a file holds is the import's to check)
            content = op["requestBody"]["content"]["application/json"]["schema"]
            fields = schema["components"]["schemas"][content["$ref"].split("/")[-1]]
            for field in fields.get("properties", {}):
                for value in [*OPERATOR_VALUES, *OPERATOR_STRINGS]:
                    probes.append((url, query, {**body, field: value}))
            probes.append((url, query, {**body, "$set": {"importance": 0}, "a.b": 1}))
        for probe_url, probe_query, probe_body in probes:
            response = call(admin_client_, method, probe_url, probe_query, probe_body)
            if response.status_code >= 500:
                failures.append(f"{operation} {probe_url} {probe_query} {probe_body}: 5xx")
    assert failures == [], "\n".join(failures)
    after = notes_snapshot()
    # POST /api/notes adds a note by hand: a probe's text there is stored as plain text, and
    # the probe with extra "$set" and "a.b" keys adds the sample text "x" without them
    known = {d["note_id"] for d in before}
    added = [d for d in after if d["note_id"] not in known]
    assert all(d["content"] in [*OPERATOR_STRINGS, "x"] for d in added), added
    assert [d for d in after if d["note_id"] in known] == before  # none matched or changed
    assert hostile_keys(after) == []
    assert graph_dump() == graph_before
    assert memory_files(planted["memory_dir"]) == files_before


CYPHER = [
    "Person) DETACH DELETE n //",
    "Person`) DETACH DELETE (n",
    "x'}) MATCH (m) DETACH DELETE m //",
    'x"}) MATCH (m) DETACH DELETE m //',
    "KNOWS]->() MATCH (m) DETACH DELETE m //",
    "name; MATCH (m) DETACH DELETE m",
]


def test_cypher_through_labels_types_names_and_sort_keys_is_inert(curator_client, planted):
    curator_client.raise_request_exception = False
    before = graph_dump()
    answers = []
    for text in CYPHER:
        q = quote(text, safe="")
        for url in (
            f"/api/graph/entities?label={q}",
            f"/api/graph/entities?sort={q}",
            f"/api/graph/entities?q={q}",
            f"/api/graph/entities/{q}/Bob",
            f"/api/graph/entities/Person/{q}",
            f"/api/graph/entities/Person/{q}/neighbourhood",
            f"/api/graph/lookup?name={q}",
            f"/graph/entities/?label={q}&sort={q}&q={q}",
            f"/graph/entities/{q}/Bob/",
            f"/graph/entities/Person/{q}/neighbourhood/",
        ):
            answers.append((url, curator_client.get(url).status_code))
        for body in (
            {
                "start_label": text,
                "start_name": "Bob",
                "type": "KNOWS",
                "end_label": "Person",
                "end_name": "Eve",
                "description": "x",
            },
            {
                "start_label": "Person",
                "start_name": "Bob",
                "type": text,
                "end_label": "Person",
                "end_name": f"Eve {SCRIPT}",
                "description": "x",
            },
            {
                "start_label": "Person",
                "start_name": "Bob",
                "type": "KNOWS",
                "end_label": "Person",
                "end_name": f"Eve {SCRIPT}",
                "new_type": text,
            },
        ):
            response = curator_client.patch(
                "/api/graph/relationships", body, content_type="application/json"
            )
            answers.append((json.dumps(body), response.status_code))
        merge = {
            "source_label": text,
            "source_name": "Bob",
            "target_label": "Person",
            "target_name": text,
        }
        response = curator_client.post(
            "/api/graph/entities/merge", merge, content_type="application/json"
        )
        answers.append((json.dumps(merge), response.status_code))
        rename = curator_client.patch(
            "/api/graph/entities/Person/Bob?dry_run=true",
            {"name": text},
            content_type="application/json",
        )
        answers.append(("rename dry run", rename.status_code))
    assert [a for a in answers if a[1] >= 500] == []
    assert graph_dump() == before


TRAVERSAL = ["../../../../tmp/qq-escape", "..%2F..%2Fqq-escape", "/etc/passwd", "notes.md"]


def test_no_name_reaches_outside_the_memory_directory(admin_client_, planted, tmp_path):
    admin_client_.raise_request_exception = False
    memory_dir = planted["memory_dir"]
    outside_before = {p for p in memory_dir.parent.rglob("*")}
    files_before = memory_files(memory_dir)
    for name in TRAVERSAL:
        q = quote(name, safe="")
        requests = [
            ("post", "/api/core/promote", {"note_id": name, "category": name}),
            ("post", "/api/core/promote", {"note_id": "note_0000000000a3", "category": name}),
            ("post", f"/api/archive/{q}/restore", {}),
            ("post", "/api/archive/purge", {"days": 1, "dry_run": True}),
            ("post", "/core/remove/", {"category": name, "content": "x"}),
            ("post", "/core/working/remove/", {"section": name, "content": "x"}),
            ("post", "/core/working/edit/", {"section": name, "content": "x", "new_content": name}),
            ("post", f"/maintenance/{q}/", {}),
            ("post", f"/api/maintenance/{q}", {}),
            ("get", f"/notes/{q}/", None),
            ("get", f"/facts/{q}/", None),
        ]
        for method, url, body in requests:
            if method == "get":
                status = admin_client_.get(url).status_code
            elif url.startswith("/api/"):
                status = admin_client_.post(url, body, content_type="application/json").status_code
            else:
                status = admin_client_.post(url, body).status_code
            assert status < 500, (url, body, status)
    assert {p for p in memory_dir.parent.rglob("*")} - outside_before <= {
        p for p in memory_dir.rglob("*")
    }
    assert not Path("/tmp/qq-escape").exists()  # noqa: S108 - the probe above aims there
    files_after = memory_files(memory_dir)
    for name in ("core.md", "notes.md", "archive.jsonl"):
        assert files_after.get(name) == files_before.get(name)


def test_stored_html_is_shown_as_text_on_every_page(admin_client_, planted):
    admin_client_.raise_request_exception = False
    samples = {
        **SAMPLES,
        "note_id": "note_0000000000a1",
        "label": "Person",
        "name": f"Eve {SCRIPT}",
    }
    urls = [
        url_of(route, samples)
        for route, (methods, _) in PAGES.items()
        if "GET" in methods and not route.startswith(("admin/", "api/", "accounts/"))
    ]
    urls += [
        "/notes/note_0000000000a2/",
        "/archive/note_0000000000b1/restore/",
        f"/search/?q={quote(SCRIPT)}",
        f"/retrieval/?message={quote(SCRIPT + ' Dana Lumen Eve')}",
        f"/notes/?text={quote(IMG)}",
        "/graph/entities/Person/Bob/neighbourhood/",
        "/graph/entities/Person/Bob/",
    ]
    leaks = []
    for url in urls:
        response = admin_client_.get(url)
        html = response.content.decode()
        if response.status_code >= 500 or SCRIPT in html or "<img src=x" in html:
            leaks.append(f"{url}: {response.status_code}")
    assert leaks == [], "\n".join(leaks)
