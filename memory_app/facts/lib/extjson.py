"""Documents as MongoDB canonical Extended JSON (``$oid``, ``$date``, ``$numberDouble``):
a lossless text form, so qqweb's archive and snapshots give back the exact document."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from bson import json_util

_OPTIONS = json_util.CANONICAL_JSON_OPTIONS


def document_dumps(doc: Mapping[str, Any]) -> str:
    return json_util.dumps(dict(doc), json_options=_OPTIONS)


def document_loads(text: str) -> dict[str, Any]:
    loaded = json_util.loads(text, json_options=_OPTIONS)
    if not isinstance(loaded, dict):
        raise ValueError("not a document")
    return loaded


def content_hash(content: Any) -> str:
    """The key of curation state about a text (contract 4.4 rule 8)."""
    text = content if isinstance(content, str) else ""
    return hashlib.sha256(text.encode()).hexdigest()
