"""Schema fuzzing: every operation of the live OpenAPI document, with data generated from
it by schemathesis (valid and invalid), answers no 5xx, only the statuses it documents,
JSON of the documented shape. Against the real stores, as an admin (every route open).

Bounded and reproducible: ``derandomize`` (the same examples every run, no example
database), ``FUZZ_EXAMPLES`` per operation and kind of data (valid, invalid, and valid
again on the planted note, entity and audit event, so that the routes with a path get
past their 404), no shrinking. A failure names the operation and the curl command that
replays it."""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from graph_app.stores import graph_store
from memory_app.notes import services
from qqweb.audit.models import AuditEvent
from qqweb.lib.actors import Actor
from qqweb.services import api_token_create
from tests.helpers import add_note

# Examples per operation and kind of data; QQ_FUZZ_EXAMPLES=200 for a deeper run by hand.
FUZZ_EXAMPLES = int(os.environ.get("QQ_FUZZ_EXAMPLES", "10"))

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture
def planted(stores: dict[str, Any], admin_user: Any) -> None:
    """A few notes, an archived one and a small graph, so that lists and pages have rows."""
    for i in range(6):
        add_note(f"note_{i:012x}", f"note number {i} about the lumen project", importance=0.9)
    services.note_archive(
        actor=Actor("user", admin_user.username, admin_user.pk), note_id="note_000000000005"
    )
    graph_store().merge_entities(
        "Project", [{"name": "Lumen", "props": {"description": "a retrieval service"}}]
    )
    graph_store().merge_entities(
        "Person", [{"name": f"Person {i}", "props": {"mention_count": i}} for i in range(3)]
    )


@pytest.fixture
def unlimited(request: pytest.FixtureRequest) -> None:
    """The token rate limits out of the way (their own tests are in test_throttling.py):
    the fuzzer's ~1,300 requests with one token, and its invalid tokens, would be 429s."""
    django_settings = request.getfixturevalue("settings")
    django_settings.QQ_API_TOKEN_RATE = "1000000/m"
    django_settings.QQ_API_TOKEN_FAILURE_RATE = "1000000/m"


# Its own time limit: about 1,300 requests, minutes on a loaded 2-core machine.
@pytest.mark.timeout(900)
def test_no_operation_answers_5xx_or_off_its_schema(
    planted: None, unlimited: None, admin_user: Any, api_wsgi: Any
) -> None:
    _, raw = api_token_create(user=admin_user, name="fuzz")
    headers = {"Authorization": f"Bearer {raw}"}
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", api_wsgi, headers=headers)
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 30
    planted_path = {
        "note_id": "note_000000000001",
        "label": "Person",
        "name": "Person 1",
        "event_id": AuditEvent.objects.get().pk,
        "batch_id": str(AuditEvent.objects.get().batch_id),
    }
    for operation in operations:
        names = {p.name for p in operation.path_parameters}
        passes: list[tuple[schemathesis.GenerationMode, dict[str, Any] | None]] = [
            (mode, None) for mode in schemathesis.GenerationMode
        ]
        if names and names <= set(planted_path):  # and once on what is there, not a 404
            path = {name: planted_path[name] for name in names}
            passes.append((schemathesis.GenerationMode.POSITIVE, path))
        for mode, path in passes:
            try:
                _fuzz(operation, mode, headers, path)
            except (Exception, BaseExceptionGroup) as e:  # every operation is tried
                failures.append(f"{operation.label} ({mode.value}, path {path}): {e}")
    assert not failures, "\n\n".join(failures)


def _fuzz(
    operation: Any,
    mode: schemathesis.GenerationMode,
    headers: dict[str, str],
    path: dict[str, Any] | None,
) -> None:
    checks = list(CHECKS)
    if mode is schemathesis.GenerationMode.NEGATIVE:
        checks.append(negative_data_rejection)

    @given(case=operation.as_strategy(generation_mode=mode, path_parameters=path))
    @settings(
        max_examples=FUZZ_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case: schemathesis.Case) -> None:
        case.call_and_validate(headers=headers, checks=checks)

    run()
