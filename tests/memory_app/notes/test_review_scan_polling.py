"""The Review page polls only the scan it started: an older run that is still open never
takes the place of a newer scan's result."""

import pytest
from django.urls import reverse

from qqweb.jobs.models import Run

pytestmark = pytest.mark.django_db


def _scan(status, **stats):
    return Run.objects.create(
        kind="dedup_scan",
        started_by="job:schedule",
        params={"threshold": 0.9},
        status=status,
        stats=stats,
    )


def test_the_page_shows_the_newest_finished_scan_and_polls_nothing(admin_client_, stores):
    old = _scan("queued")
    new = _scan("done", pairs_found=3, queued=2, kept_rejected=1)
    page = admin_client_.get(reverse("memory_app:review")).content.decode()
    scan = page.split('id="scan-progress"')[1].split('id="review-pair"')[0]
    assert f'data-run-id="{new.pk}"' in scan and "<strong>done</strong>" in scan
    assert "every 1s" not in scan  # it did not start the open one: it does not poll it
    who = '<span title="job:schedule">schedule (automatic)</span>'
    assert f"#{old.pk}</a> by {who} is queued" in scan


def test_the_scan_a_page_started_is_polled_until_it_closes(admin_client_, stores):
    run = _scan("running")
    url = reverse("memory_app:review_scan_progress", args=[run.pk])
    polled = admin_client_.get(url + "?polling=1")
    assert "every 1s" in polled.content.decode() and "HX-Refresh" not in polled
    run.status = Run.CANCELLED
    run.save()
    closed = admin_client_.get(url + "?polling=1")
    assert "every 1s" not in closed.content.decode() and closed["HX-Refresh"] == "true"
