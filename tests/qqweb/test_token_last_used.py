"""A token request reads the database and writes nothing, except ``last_used_at`` at most
once a minute per token: a read must never wait for SQLite's one writer (a dedup scan
writing its pairs) and then fail with "database is locked"."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from qqweb.models import ApiToken
from qqweb.services import api_token_create

pytestmark = pytest.mark.django_db


def _writes(queries: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].lstrip().upper().startswith(("UPDATE", "INSERT", "DELETE"))
    ]


def test_a_token_used_again_within_a_minute_writes_nothing(viewer):
    token, raw = api_token_create(user=viewer, name="script")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get("/api/me").status_code == 200
    first_use = ApiToken.objects.get(pk=token.pk).last_used_at
    assert first_use is not None  # the first use is recorded
    with CaptureQueriesContext(connection) as queries:
        answers = [client.get("/api/me").status_code for _ in range(5)]
    assert answers == [200] * 5
    assert _writes(queries) == []
    assert ApiToken.objects.get(pk=token.pk).last_used_at == first_use


def test_a_token_last_used_over_a_minute_ago_is_stamped_again(viewer):
    token, raw = api_token_create(user=viewer, name="script")
    long_ago = timezone.now() - timedelta(minutes=5)
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=long_ago)
    assert Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/me").status_code == 200
    assert ApiToken.objects.get(pk=token.pk).last_used_at > long_ago + timedelta(minutes=4)
