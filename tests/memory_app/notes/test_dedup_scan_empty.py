"""A dedup scan of a memory with no vectors at all (an empty collection, or notes whose
embedding failed) completes with no pairs; its plan folder used to be missing, and the
scan failed on writing its ``ready`` file (found by the hostile-import property test)."""

import pytest

from qqweb.jobs.runner import job_create, job_run
from qqweb.lib.actors import Actor
from tests.helpers import plant_note

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("notes", [0, 2])
def test_a_dedup_scan_of_notes_without_vectors_finds_no_pairs(mongo, memory_dir, notes):
    for i in range(notes):
        plant_note(f"note_00000000000{i}", embedding=[])
    run = job_create(kind="dedup_scan", actor=Actor.job("test"), dry_run=True)

    job_run(run=run)
    run.refresh_from_db()

    assert run.status == "done", run.error
    assert run.stats["pairs_found"] == 0
