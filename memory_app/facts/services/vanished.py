"""The vanished-facts tracker (contract 4.8). The agent deletes without a trace, so a scan
(a periodic Celery job, or the button) snapshots every fact it sees into
:class:`SeenFact`; a fact seen before and gone now is classified and archived from its
last snapshot, so it can be restored like any archived fact:

- "removed by its cleanup as a duplicate of X": an older surviving fact at >= 0.95;
- "replaced by the agent's update": a fact that appeared since the last scan, with empty
  ``metadata`` (the agent's update is a delete then an insert of a new text); the most
  similar one is named;
- "deleted, cause unknown" otherwise.

Facts qqweb archived itself since they were last seen are recorded as such and not
listed. The first scan of a store lists nothing (there is no earlier snapshot).

Each scan is a run of the job ``vanished_scan`` (registered with the jobs app by
``FactsAppConfig.ready()``): one at a time under its lock, with its run page and its
progress in the jobs page's list of runs, cancellable (a cancelled scan writes nothing: it
is one transaction).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from memory_app.facts.lib import Fact
from memory_app.facts.lib.constants import DUPLICATE_THRESHOLD
from memory_app.facts.lib.domain import EmbeddingState, document_from_bson
from memory_app.facts.lib.extjson import content_hash, document_dumps, document_loads
from memory_app.facts.lib.rules import bson_sort_key, cosine
from memory_app.facts.models import ArchivedFact, SeenFact
from memory_app.facts.services.steps import aware_utc, location_of
from memory_app.facts.stores import facts_store
from qqweb.jobs.models import Run
from qqweb.jobs.registry import Job, Progress
from qqweb.jobs.runner import job_run_in_process
from qqweb.jobs.runs import run_create
from qqweb.lib.actors import Actor
from qqweb.lib.errors import Conflict

VANISHED_SCAN = "vanished_scan"


class ScanCancelled(Conflict):
    """The scan's run was cancelled (from the Jobs page) before it finished: it wrote
    nothing (409)."""

    def __init__(self, run: Run) -> None:
        super().__init__(f"the scan (run {run.pk}) was cancelled before it finished: {run.error}")
        self.run_id = run.pk

    def details(self) -> dict[str, object]:
        return {"run": self.run_id}


@dataclass(frozen=True)
class ScanReport:
    seen: int
    new: int
    vanished: int


def _duplicate_of(gone: Fact, survivors: list[Fact]) -> tuple[Fact, float] | None:
    """The older surviving fact at >= 0.95 that the cleanup deleted ``gone`` for."""
    key = bson_sort_key(gone.timestamp)
    best: tuple[Fact, float] | None = None
    for fact in survivors:
        if fact.embedding is not EmbeddingState.OK or bson_sort_key(fact.timestamp) > key:
            continue
        score = cosine(gone.content_embedding, fact.content_embedding)
        if score >= DUPLICATE_THRESHOLD and (best is None or score > best[1]):
            best = (fact, score)
    return best


def _causes(
    gone: list[Fact], survivors: list[Fact], appeared: list[Fact]
) -> dict[str, tuple[str, Fact | None, float | None]]:
    """Each gone fact's cause. An update replaces one fact by one new fact: the facts
    that appeared (empty ``metadata``) are matched one to one, most similar first."""
    causes: dict[str, tuple[str, Fact | None, float | None]] = {}
    rest = []
    for fact in gone:
        found = _duplicate_of(fact, survivors) if fact.embedding is EmbeddingState.OK else None
        if found:
            causes[fact.hex_id] = (SeenFact.DUPLICATE, found[0], found[1])
        else:
            causes[fact.hex_id] = (SeenFact.UNKNOWN, None, None)
            if fact.embedding is EmbeddingState.OK:
                rest.append(fact)
    new = [f for f in appeared if f.metadata == {} and f.embedding is EmbeddingState.OK]
    scored = sorted(
        ((cosine(g.content_embedding, n.content_embedding), g, n) for g in rest for n in new),
        key=lambda t: -t[0],
    )
    used: set[str] = set()
    for score, g, n in scored:
        if causes[g.hex_id][0] == SeenFact.UNKNOWN and n.hex_id not in used:
            causes[g.hex_id] = (SeenFact.REPLACED, n, score)
            used.add(n.hex_id)
    return causes


_DETAIL = {
    SeenFact.DUPLICATE: "removed by the agent's cleanup as a duplicate of {id}",
    SeenFact.REPLACED: "replaced by the agent's update (probably by {id})",
    SeenFact.UNKNOWN: "deleted, cause unknown",
}


@transaction.atomic
def facts_scan(
    *, actor: Actor, now: datetime | None = None, progress: Progress | None = None
) -> ScanReport:
    """Snapshot every fact; archive and classify the ones gone since the last scan.
    ``progress`` is told when the facts are snapshotted (a run's: it may cancel the scan,
    which then writes nothing)."""
    store = facts_store()
    location = location_of(store)
    now = now or timezone.now()
    facts = store.facts()
    rows = {s.fact_id: s for s in SeenFact.objects.filter(location=location)}
    current = {f.hex_id for f in facts}
    appeared = [f for f in facts if f.hex_id not in rows or rows[f.hex_id].vanished_at]
    for fact in facts:
        row = rows.get(fact.hex_id) or SeenFact(location=location, fact_id=fact.hex_id)
        row.content_hash = content_hash(fact.content)
        row.content = fact.text
        row.document = document_dumps(fact.to_document())
        row.last_seen = now
        row.vanished_at, row.cause, row.archive = None, "", None
        row.related_id = row.related_content = ""
        row.score = None
        row.save()
    if progress is not None:
        progress(len(facts), len(facts))
    vanished = 0
    gone_rows = []
    for row in rows.values():
        if row.fact_id in current or row.vanished_at is not None:
            continue
        row.vanished_at = now
        ours = (
            ArchivedFact.objects.filter(
                location=location, fact_id=row.fact_id, archived_at__gte=row.last_seen
            )
            .exclude(reason=ArchivedFact.VANISHED)
            .first()
        )
        if ours is not None:
            row.cause, row.archive = SeenFact.QQWEB, ours
            row.save()
            continue
        gone_rows.append(row)
    gone = {row.fact_id: document_from_bson(document_loads(row.document)) for row in gone_rows}
    causes = _causes([g for g in gone.values() if isinstance(g, Fact)], facts, appeared)
    for row in gone_rows:
        snapshot = gone[row.fact_id]
        cause, related, score = causes.get(row.fact_id, (SeenFact.UNKNOWN, None, None))
        detail = _DETAIL[cause].format(id=related.hex_id if related else "")
        row.archive = ArchivedFact.objects.create(
            location=location,
            fact_id=row.fact_id,
            content=row.content,
            timestamp=aware_utc(snapshot.timestamp),
            document=row.document,
            reason=ArchivedFact.VANISHED,
            detail=detail,
            actor=actor.label,
            archived_at=now,
        )
        row.cause, row.score = cause, score
        if related is not None:
            row.related_id, row.related_content = related.hex_id, related.text
        row.save()
        vanished += 1
    return ScanReport(seen=len(facts), new=len(appeared), vanished=vanished)


def _scan_actor(run: Run) -> Actor:
    """Who the scan's archive entries are by: who started the run (a curator, or the job
    ``facts-scan`` for beat's)."""
    kind, _, name = run.started_by.partition(":")
    return Actor(kind, name)


def vanished_scan_work(run: Run, progress: Progress) -> ScanReport:
    return facts_scan(actor=_scan_actor(run), progress=progress)


def vanished_scan_run(*, actor: Actor) -> ScanReport:
    """Scan now, in this process, as a run of the ``vanished_scan`` job (the button, the
    API and beat's task): refused while another scan runs (its lock), and ScanCancelled
    when its run is cancelled before it finishes (it then wrote nothing)."""
    run = run_create(kind=VANISHED_SCAN, actor=actor)
    stats = job_run_in_process(run=run)
    if run.status != Run.DONE:
        raise ScanCancelled(run)
    return ScanReport(**stats)


VANISHED_SCAN_JOB = Job(
    VANISHED_SCAN,
    "Vanished-facts scan",
    "Snapshot every fact of the second agent's store; archive and classify the ones gone "
    "since the last scan.",
    vanished_scan_work,
    listed=False,  # started from the Vanished page, the API and beat
)
