"""Compatibility lint (``facts-data-contract.md`` 2.7, 2.4): every document or index of the
facts collection that breaks the agent, or bends what it does, as a pure function over
the documents the store read and the store's index list.

Severities:

- ``breaks``: the agent fails (one invalid vector turns off every retrieval, add and
  cleanup; a unique index blocks every insert; a non-ObjectId ``_id`` cannot be updated);
- ``warning``: the agent keeps working but decides differently than one would expect (a
  non-date ``timestamp`` wins every keep-oldest decision; a foreign text index is dropped
  at its next start);
- ``info``: worth knowing (legacy documents, skipped vectors, no text index).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memory_app.facts.lib.constants import DIMENSION, TEXT_INDEX_NAME
from memory_app.facts.lib.domain import (
    MISSING,
    EmbeddingState,
    Fact,
    ForeignDocument,
    LegacyTurn,
    StoredDocument,
    embedding_problem,
)

BREAKS, WARNING, INFO = "breaks", "warning", "info"
SEVERITY_ORDER = {BREAKS: 0, WARNING: 1, INFO: 2}


@dataclass(frozen=True)
class Finding:
    code: str
    severity: str
    target: str  # a document's hex id, or "index <name>", or "collection"
    message: str
    fix: str = ""  # a safe fix, in words, where there is one


def _vector_findings(fact: Fact) -> list[Finding]:
    state = fact.embedding
    target = fact.hex_id
    if state is EmbeddingState.INVALID:
        problem = embedding_problem(fact.content_embedding)
        code = {
            "a null vector": "vector_null",
            "a binary vector (BSON binary / packed float32)": "vector_binary",
        }.get(problem, "vector_length" if "length" in problem else "vector_type")
        if "NaN" in problem:
            code = "vector_not_finite"
        return [
            Finding(
                code,
                BREAKS,
                target,
                f"its vector is {problem}: every retrieval returns nothing, every "
                "add fails and every cleanup aborts while it is there",
                f"re-embed the content with all-MiniLM-L6-v2 ({DIMENSION} numbers)",
            )
        ]
    if state is EmbeddingState.EMPTY:
        return [Finding("vector_empty", INFO, target, "its vector is empty: the agent skips it")]
    if state is EmbeddingState.ZERO:
        return [Finding("vector_zero", INFO, target, "its vector is all zeros: the agent skips it")]
    if state is EmbeddingState.MISSING:
        return [
            Finding(
                "legacy_fact",
                INFO,
                target,
                "a fact without a vector: invisible to retrieval, the add test and "
                "the cleanup; embedding it makes it join the cleanup with its old timestamp",
                "embed it (with a preview of what the cleanup would then delete)",
            )
        ]
    return []


def _common_findings(doc: StoredDocument) -> list[Finding]:
    out: list[Finding] = []
    if not doc.id_is_objectid:
        out.append(
            Finding(
                "id_not_objectid",
                BREAKS if isinstance(doc, Fact) else INFO,
                doc.hex_id,
                f"_id is a {type(doc.id).__name__}, not an ObjectId: the agent can retrieve "
                "this fact but never update it",
            )
        )
    if not doc.timestamp_is_date:
        what = "missing" if doc.timestamp is MISSING else f"a {type(doc.timestamp).__name__}"
        out.append(
            Finding(
                "timestamp_not_date",
                WARNING if isinstance(doc, Fact) else INFO,
                doc.hex_id,
                f"timestamp is {what}, not a date: it sorts before every date, so this fact "
                "survives every keep-oldest decision of the cleanup",
                "set timestamp to the ObjectId's time" if doc.id_is_objectid else "",
            )
        )
    return out


def lint_documents(documents: Iterable[StoredDocument]) -> list[Finding]:
    findings: list[Finding] = []
    for doc in documents:
        if isinstance(doc, Fact):
            findings.extend(_common_findings(doc))
            findings.extend(_vector_findings(doc))
            if doc.content is not MISSING and not isinstance(doc.content, str):
                findings.append(
                    Finding(
                        "content_not_string",
                        WARNING,
                        doc.hex_id,
                        f"content is a {type(doc.content).__name__}, not a string",
                    )
                )
        elif isinstance(doc, LegacyTurn):
            findings.append(
                Finding(
                    "legacy_turn",
                    INFO,
                    doc.hex_id,
                    "a conversation turn of the agent's first days: ignored by the agent",
                    "delete it (harmless to the agent)",
                )
            )
        elif isinstance(doc, ForeignDocument):
            kind = "a qq note" if "note_id" in doc.extra else "not a fact"
            findings.append(
                Finding(
                    "foreign_document",
                    WARNING,
                    doc.hex_id,
                    f"{kind} (type {doc.extra.get('type', MISSING)!r}): ignored by the agent "
                    "today, but its first version counted any document with content as a "
                    "fact; keep such documents elsewhere",
                )
            )
    return findings


def lint_indexes(indexes: Iterable[Mapping[str, Any]], *, text_supported: bool) -> list[Finding]:
    """``indexes`` as ``list_indexes()`` gives them (name, key, unique, weights...)."""
    findings: list[Finding] = []
    has_text = False
    for index in indexes:
        name = str(index.get("name", ""))
        key = dict(index.get("key", {}))
        target = f"index {name}"
        if name == "_id_":
            continue
        if index.get("unique"):
            findings.append(
                Finding(
                    "unique_index",
                    BREAKS,
                    target,
                    f"a unique index on {', '.join(key)}: facts lack such a field, so they "
                    "all index as null and every insert after the first fails (silently: "
                    "the agent can no longer save anything)",
                    "drop the index",
                )
            )
        if "text" in key.values() or "_fts" in key:
            has_text = True
            if name != TEXT_INDEX_NAME:
                findings.append(
                    Finding(
                        "foreign_text_index",
                        WARNING,
                        target,
                        "a text index not named fact_content_search: the agent drops it at "
                        "its next start",
                    )
                )
    if not has_text:
        findings.append(
            Finding(
                "text_index_absent",
                INFO,
                "collection",
                "no text index fact_content_search"
                + ("" if text_supported else " (server unsupported: SecantusDB has no text index)")
                + "; the agent re-creates it at its next start and never queries it",
            )
        )
    return findings


def lint(
    documents: Iterable[StoredDocument],
    indexes: Iterable[Mapping[str, Any]],
    *,
    text_supported: bool = True,
) -> list[Finding]:
    """Every finding, the ones that break the agent first."""
    findings = lint_documents(documents) + lint_indexes(indexes, text_supported=text_supported)
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])


def agent_broken(findings: Iterable[Finding]) -> bool:
    return any(f.severity == BREAKS for f in findings)
