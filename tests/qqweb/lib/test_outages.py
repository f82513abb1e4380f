"""The outage memory: a store found unreachable fails fast for a while, but a read that
began before the store came back cannot mark it down again."""

from __future__ import annotations

import time

import pytest

from qqweb.lib.errors import StoreUnavailable
from qqweb.lib.mongo.outages import (
    check_reachable,
    forget_outages,
    record_reachable,
    record_unreachable,
)

CLIENT = 424242


@pytest.fixture(autouse=True)
def _clean() -> None:
    forget_outages()
    yield
    forget_outages()


def test_an_unreachable_server_fails_the_next_reads_at_once() -> None:
    record_unreachable(CLIENT, "connection refused", 1.0, started=time.monotonic())
    with pytest.raises(StoreUnavailable, match="connection refused"):
        check_reachable(CLIENT, "mongodb")


def test_a_read_begun_before_the_store_came_back_does_not_mark_it_down() -> None:
    begun = time.monotonic()  # a follower's read starts while the server is down ...
    time.sleep(0.001)  # (monotonic clocks may repeat a value)
    record_reachable(CLIENT)  # ... the server is back and a page's read gets through ...
    record_unreachable(CLIENT, "connection refused", 1.0, started=begun)  # ... it gives up
    check_reachable(CLIENT, "mongodb")  # the next page still reads


def test_a_read_begun_after_the_last_success_still_marks_it_down() -> None:
    record_reachable(CLIENT)
    time.sleep(0.001)
    record_unreachable(CLIENT, "connection refused", 1.0, started=time.monotonic())
    with pytest.raises(StoreUnavailable):
        check_reachable(CLIENT, "mongodb")
