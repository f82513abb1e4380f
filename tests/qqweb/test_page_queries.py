"""No page or API read makes MongoDB sort or scan the whole notes collection (issue 14:
the embedded default must answer at 100k notes): a pymongo command listener on the app's
client records every command a render sends to the notes collection, and each must be
bounded by note ids, or by an indexed key with a limit, or be a metadata count.

The pages walk on the demo memory (``seed_demo``: notes, archive, core, graph, facts).
The notes list walks with every filter, a sort other than the default, a text filter and
a second page by its cursor: it is answered from the read model, and MongoDB only serves
the page's documents by id.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.urls import reverse

from graph_app.stores import graph_store
from memory_app.notes.stores import notes_store
from tests.memory_app.facts.lib.conftest import facts_store
from tests.memory_app.facts.planted import plant

pytestmark = pytest.mark.usefixtures("stores")
__all__ = ["facts_store"]

BY_ID = ("note_id", "_id")
NOISE = ("lsid", "$db", "$clusterTime")  # left out of the failure message


def _fields(query: Any) -> set[str]:
    """Every field a filter names, through $and / $or / $nor."""
    if not isinstance(query, dict):
        return set()
    out: set[str] = set()
    for key, value in query.items():
        if key in ("$and", "$or", "$nor"):
            for part in value:
                out |= _fields(part)
        elif not key.startswith("$"):
            out.add(key)
    return out


def _by_ids(query: Any) -> bool:
    if not isinstance(query, dict):
        return False
    if any(key in query for key in BY_ID):
        return True
    return any(_by_ids(part) for part in query.get("$and", []))


def unbounded(command: dict[str, Any], indexed: set[str]) -> str | None:
    """Why ``command`` may read the whole collection, or None when it is bounded."""
    name = command["name"]
    if name in ("getMore", "killCursors", "listIndexes", "insert", "update", "delete"):
        return None
    if name == "count":
        return None if not command.get("query") else "a count with a query scans"
    if name == "find":
        query = command.get("filter") or {}
        if _by_ids(query):
            return None
        if not command.get("limit"):
            return "a find neither by ids nor with a limit"
        sort = list(command.get("sort") or {})
        if sort and sort[0] not in indexed:
            return f"a find sorted by {sort[0]!r}, which no index leads"
        loose = _fields(query) - indexed
        return f"a find on {sorted(loose)}, which no index leads" if loose else None
    if name == "aggregate":
        pipeline = command.get("pipeline") or []
        first = pipeline[0] if pipeline else {}
        if "$vectorSearch" in first or ("$match" in first and _by_ids(first["$match"])):
            return None
        stages = [next(iter(stage)) for stage in pipeline]
        limited = "$limit" in stages and all(
            s in ("$match", "$skip", "$limit") for s in stages[: stages.index("$limit")]
        )
        loose = _fields(first.get("$match")) - indexed
        if limited and not loose:
            return None
        return f"an aggregate {stages} over the collection"
    return f"a {name} over the collection"


def walk(note_id: str, entity: str) -> list[tuple[str, str, str]]:
    """(method, path, body) of every page and API read."""
    detail = reverse("memory_app:note_detail", args=[note_id])
    gets = [
        reverse("memory_app:overview"),
        reverse("memory_app:overview") + "?threshold=0.4",
        reverse("memory_app:notes"),
        reverse("memory_app:notes") + "?sort=access_count&direction=asc",
        reverse("memory_app:notes") + "?section=Key+Topics&min_importance=0.2&max_importance=0.9",
        reverse("memory_app:notes") + "?min_effective=0.1&stale_days=3&source_type=file",
        reverse("memory_app:notes") + "?text=database&never_accessed=on&no_embedding=on",
        "/api/notes?sort=importance&limit=5",
        "/api/notes?text=mongodb&min_effective=0.05",
        detail,
        reverse("memory_app:search") + "?q=MongoDB+deployment",
        reverse("memory_app:retrieval") + "?message=what+database+do+we+use",
        reverse("memory_app:audit"),
        reverse("memory_app:archive"),
        reverse("memory_app:archive") + "?q=postgres",
        reverse("memory_app:review"),
        reverse("memory_app:core"),
        reverse("memory_app:maintenance"),
        reverse("health"),
        reverse("store_status"),
        "/facts/",
        "/facts/lint/",
        "/facts/next-start/",
        "/facts/archive/",
        "/facts/contradictions/",
        "/facts/vanished/",
        "/graph/",
        "/graph/entities/",
        f"/graph/entities/{entity}/",
        "/graph/orphans/",
        "/graph/duplicates/",
        "/api/overview",
        "/api/notes/histogram",
        "/api/notes/histogram?section=Key+Topics",
        f"/api/notes/{note_id}",
        "/api/core/candidates",
        "/api/core",
        "/api/audit",
        "/api/archive",
        "/api/duplicates",
        "/api/maintenance/runs",
        "/api/sources",
        "/api/facts",
        "/api/facts/lint",
        "/api/facts/next-start",
        "/api/graph/stats",
        f"/api/graph/entities/{entity}",
    ]
    posts = [
        ("/api/notes/search", '{"query": "MongoDB deployment"}'),
        ("/api/retrieval/preview", '{"message": "what database do we use"}'),
    ]
    return [("GET", path, "") for path in gets] + [("POST", p, b) for p, b in posts]


def test_no_page_makes_mongodb_sort_or_scan_the_whole_notes_collection(
    admin_client_, recorded, facts_store
):
    call_command("seed_demo")
    plant(facts_store)
    store = notes_store()
    note_id = store.collection.find_one({}, {"note_id": 1})["note_id"]
    entity = graph_store().list_entities(limit=1).items[0]
    entity_path = f"{entity.label}/{quote(entity.name)}"
    indexed = {
        next(iter(dict(info["key"]))) for info in store.collection.index_information().values()
    }
    store.vector_index.refresh(force=True)  # warm, as a process is after its start
    cursor = admin_client_.get("/api/notes?limit=5").json()["next_cursor"]
    second_page = [("GET", f"/api/notes?limit=5&cursor={quote(cursor)}", "")]
    offences = []
    for method, path, body in walk(note_id, entity_path) + second_page:
        recorded.commands.clear()
        if method == "GET":
            response = admin_client_.get(path)
        else:
            response = admin_client_.post(path, body, content_type="application/json")
        assert response.status_code < 400, (path, response.status_code)
        for command in recorded.commands:
            reason = unbounded(command, indexed)
            if reason:
                shown = {k: v for k, v in command.items() if k not in NOISE}
                offences.append(f"{method} {path}: {reason}: {shown}")
    assert not offences, "\n".join(offences)
