"""Whatever lines a labelled set holds, the pin import refuses exactly the bad ones, each
with its reason, and never answers a 500: hypothesis mixes valid lines (with odd unicode:
raw U+2028, U+0085, form feeds, emoji, right-to-left marks; duplicates; Windows line
ends; blank lines) with hostile ones (nested 100,000 deep, 5,000-digit numbers, NUL, lone
surrogates, wrong types, ``$`` and unknown keys, keys given twice, broken JSON, items the
memory does not hold), imports them through the API or the page's upload, and checks the
answer against what each line is. After each import the Memory tests page, a run (a job
in the real worker) and the Jobs page still work.

Bounded: ``MAX_EXAMPLES`` examples, no example database, no shrinking (a failure is
shown as found), so a run is the same work every time."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import HealthCheck, Phase, example, given, note, settings
from hypothesis import strategies as st

from memory_app.notes.stores import notes_store
from qqweb.jobs.models import Run
from qqweb.recall.models import Pin, TestRun
from tests.helpers import plant_note

MAX_EXAMPLES = 12
NOTES = ("note_hostile00001", "note_hostile00002", "note_hostile00003")
MISSING = "note_notthere0001"


@dataclass(frozen=True)
class Line:
    """A generated line: its text, and the pin it reads as (None: it must be refused;
    ``blank``: it is skipped)."""

    text: str
    pin: tuple[str, str, str] | None  # (source, query, item_id) as the pin keeps them
    blank: bool = False


ODD = ["\u2028", "\u2029", "\x85", "\x0c", "\x1e", "\u202e", "\U0001f600", "\ufeff", "\r", "\n"]
_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
# a text with, most often, one odd character inside it
query_text = st.builds(
    lambda before, odd, after: before + odd + after,
    st.text(_chars, max_size=12),
    st.sampled_from([*ODD, ""]),
    st.text(_chars, min_size=1, max_size=12),
).filter(lambda s: s.strip() != "")


def _dumps(row: Any) -> str:
    return json.dumps(row, ensure_ascii=False)  # odd characters raw in the line


@st.composite
def valid_lines(draw: Any) -> Line:
    query = draw(query_text, label="query")
    item_id = draw(st.sampled_from(NOTES), label="item")
    row: dict[str, Any] = {"query": query, "item_id": item_id}
    if draw(st.booleans(), label="with source"):
        row["source"] = "notes"
    if draw(st.booleans(), label="with comment"):
        row["comment"] = draw(st.none() | query_text, label="comment")
    keys = list(row)
    order = draw(st.permutations(keys), label="key order")
    return Line(_dumps({k: row[k] for k in order}), ("notes", query.strip(), item_id))


def _good(query: str = "q") -> dict[str, Any]:
    return {"query": query, "item_id": NOTES[0]}


WRONG_VALUES = [1, 2.5, True, [], ["q"], {"q": 1}, {"$ne": None}]

HOSTILE = [
    "[" * 100_000 + "]" * 100_000,
    '{"query": ' + "[" * 5_000 + "]" * 5_000 + f', "item_id": "{NOTES[0]}"}}',
    '{"query": "q", "item_id": "' + NOTES[0] + '", "comment": ' + "7" * 5_000 + "}",
    '{"query": ' + "9" * 5_000 + ".5e" + "1" * 5_000 + f', "item_id": "{NOTES[0]}"}}',
    f'{{"query": "a\\u0000b", "item_id": "{NOTES[0]}"}}',
    f'{{"query": "\\ud83d", "item_id": "{NOTES[0]}"}}',
    f'{{"query": "q", "item_id": "{NOTES[0]}\\u0000"}}',
    f'{{"query": "a", "query": "b", "item_id": "{NOTES[0]}"}}',
    _dumps({**_good(), "$where": "sleep(1000)"}),
    _dumps({**_good(), "itemid": NOTES[0]}),
    _dumps({"query": "q", "item_id": MISSING}),
    _dumps({"query": "q", "item_id": NOTES[0], "source": "graph"}),
    _dumps({"query": "   ", "item_id": NOTES[0]}),
    _dumps({"query": "q" * 1001, "item_id": NOTES[0]}),
    _dumps({"item_id": NOTES[0]}),
    "[]",
    '"a string"',
    "42",
    "null",
    "{",
    "\u2028",
    "\x0c",
    "NaN",
]


@st.composite
def hostile_lines(draw: Any) -> Line:
    kind = draw(st.sampled_from(["fixed", "wrong type", "truncated"]), label="hostile kind")
    if kind == "fixed":
        return Line(draw(st.sampled_from(HOSTILE), label="hostile"), None)
    if kind == "wrong type":
        field = draw(st.sampled_from(["query", "item_id", "source", "comment"]), label="field")
        value = draw(st.sampled_from(WRONG_VALUES), label="value")
        return Line(_dumps({**_good(), field: value}), None)
    valid = draw(valid_lines(), label="to truncate")
    return Line(valid.text[:-1], None)  # an object without its closing brace


# A valid line holding a raw U+2028 and U+0085, then one nested 100,000 deep, a
# 5,000-digit number and a NUL: the first reads, the others are refused.
ISSUE_LINES = [
    Line(
        _dumps({"query": "Where\u2028is the\x85jar?", "item_id": NOTES[1]}),
        ("notes", "Where\u2028is the\x85jar?", NOTES[1]),
    ),
    Line(HOSTILE[0], None),
    Line(HOSTILE[2], None),
    Line(HOSTILE[4], None),
]


@st.composite
def files(draw: Any) -> list[Line]:
    lines: list[Line] = []
    for _ in range(draw(st.integers(1, 6), label="lines")):
        kind = draw(st.sampled_from(["valid", "hostile", "blank", "again"]), label="line kind")
        if kind == "valid":
            lines.append(draw(valid_lines()))
        elif kind == "hostile":
            lines.append(draw(hostile_lines()))
        elif kind == "blank":
            lines.append(Line(draw(st.sampled_from(["", " ", "\t", " \t "])), None, blank=True))
        elif lines:
            lines.append(draw(st.sampled_from(lines), label="a line again"))
    return lines


def _wait_for(run_id: int, seconds: float = 120) -> Run:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status in Run.CLOSED:
            return run
        time.sleep(0.3)
    raise AssertionError(f"run {run_id} still {run.status}")


@pytest.fixture
def worker_notes(celery_worker: dict[str, str], settings: Any) -> Any:
    """The notes the lines name, where the worker reads them."""
    settings.QQ_MONGO_DB = celery_worker["QQ_MONGO_DB"]
    notes_store().clear_all()
    for i, note_id in enumerate(NOTES):
        plant_note(note_id, content=f"The pantry holds jar number {i}")
    yield
    notes_store().clear_all()


def _import(client: Any, door: str, text: str) -> tuple[int, str, dict[str, Any]]:
    if door == "api":
        response = client.post(
            "/api/memory-tests/imports",
            json.dumps({"jsonl": text}),
            content_type="application/json",
        )
        return response.status_code, response.content.decode(), response.json()
    upload = SimpleUploadedFile("set.jsonl", text.encode(), content_type="application/x-ndjson")
    response = client.post(reverse("recall:import"), {"file": upload})
    return response.status_code, response.content.decode(), {}


@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a failure is shown as found
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(lines=files(), crlf=st.booleans(), door=st.sampled_from(["api", "page"]))
@example(lines=ISSUE_LINES, crlf=False, door="api")  # the reproductions of issue 36
@example(lines=ISSUE_LINES, crlf=True, door="page")
@example(lines=ISSUE_LINES[:1], crlf=False, door="page")
def test_an_import_refuses_exactly_the_bad_lines_and_every_page_and_a_run_still_work(
    worker_notes: Any, curator_client: Any, lines: list[Line], crlf: bool, door: str
) -> None:
    Pin.objects.all().delete()
    TestRun.objects.all().delete()
    text = ("\r\n" if crlf else "\n").join(line.text for line in lines)
    note(repr(text[:2000]))
    status, body, data = _import(curator_client, door, text)
    bad = [n for n, line in enumerate(lines, start=1) if line.pin is None and not line.blank]
    wanted = {line.pin for line in lines if line.pin is not None}
    assert status != 500, body[:500]
    if all(line.blank for line in lines):
        assert status == 400 and "holds no line to import" in body
    elif bad:
        assert status == 400, body[:500]
        assert not Pin.objects.exists()
        if door == "api":
            refused = data["error"]["lines"]
            assert sorted({p["line"] for p in refused}) == bad
            for problem in refused:
                assert problem["message"] and problem["field"]
                assert not re.search(r"\('|Traceback|Error\b", problem["message"])
        else:
            assert f"line {bad[0]}:" in body
    else:
        assert status in (201, 302), body[:500]
        assert {(p.source, p.query, p.item_id) for p in Pin.objects.all()} == wanted
        if door == "api":
            assert len(data["created"]) + data["already"] == len(
                [line for line in lines if not line.blank]
            )

    assert curator_client.get(reverse("recall:memory_tests")).status_code == 200
    started = curator_client.post("/api/memory-tests/runs")
    assert started.status_code == 202
    run = _wait_for(started.json()["id"])
    assert run.status == "done", run.error
    stored = TestRun.objects.get(job_run=run)
    assert stored.total == Pin.objects.count() == len(wanted if not bad else ())
    page = curator_client.get(reverse("recall:memory_tests")).content.decode()
    assert "Running the memory tests" not in page
    assert curator_client.get(reverse("memory_app:maintenance")).status_code == 200
    assert curator_client.get(started.json()["url"]).status_code == 200
