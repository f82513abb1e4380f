"""The curation the recall bench measures (bench/recall.py), done with the app's own jobs
and services: the dedup scan job and every queued pair merged as the Review page merges,
and the archival job with its defaults."""

from __future__ import annotations

ACTOR_NAME = "bench-recall"


def dedup(note_ids: set[str]) -> dict[str, int]:
    """The dedup scan job, then every pair it queued merged as the Review page merges."""
    from django.conf import settings

    from memory_app.notes.errors import InvalidVerdict
    from memory_app.notes.lib import NoteNotFound
    from memory_app.notes.models import ReviewPair
    from memory_app.notes.services.review import review_verdict
    from memory_app.notes.stores import deduplicator, notes_store
    from qqweb.jobs.runner import job_create, job_run
    from qqweb.lib.actors import Actor

    actor = Actor.job(ACTOR_NAME)
    params = {"threshold": settings.QQ_DEDUP_THRESHOLD, "full": True}
    job_run(run=job_create(kind="dedup_scan", actor=actor, params=params))
    pairs = ReviewPair.objects.filter(
        status=ReviewPair.PENDING, note_a__in=note_ids, note_b__in=note_ids
    ).order_by("-similarity", "pk")
    done = {"pairs": 0, "merged": 0, "note_gone": 0, "contradiction_primary": 0}
    for pair in list(pairs):
        done["pairs"] += 1
        try:
            review_verdict(actor=actor, pair_id=pair.pk, verdict="merge")
        except NoteNotFound:
            done["note_gone"] += 1
            continue
        except InvalidVerdict:  # two texts that contradict: the app wants the note kept
            store = notes_store()
            a, b = store.note(pair.note_a), store.note(pair.note_b)
            assert a is not None and b is not None
            primary, _ = deduplicator().ordered(a, b)
            review_verdict(
                actor=actor, pair_id=pair.pk, verdict="merge", primary_id=primary.note_id
            )
            done["contradiction_primary"] += 1
        done["merged"] += 1
    return done


def archival() -> dict[str, int]:
    """The archival job with its defaults (QQ_ARCHIVE_THRESHOLD), applied."""
    from qqweb.jobs.runner import job_create, job_run
    from qqweb.lib.actors import Actor

    stats = job_run(run=job_create(kind="archival", actor=Actor.job(ACTOR_NAME)))
    return {"archived": int(stats["archived"]), "threshold_x1000": int(stats["threshold"] * 1000)}
