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
