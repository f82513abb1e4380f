"""The test process's heap, kept small for the garbage collector.

A full run leaves objects behind in each pytest-xdist worker (Django's caches, the
stores' clients, Hypothesis' examples): about 460,000 objects halfway through. A full
collection of that heap took 0.4-0.8 s on a loaded CI machine, growing with the run, and
holds the GIL meanwhile: pymongo's monitor thread then missed its 2 s heartbeat, marked
the server unknown and cancelled the operations in flight ("operation cancelled", a
MongoDB-protocol server that was never down), and a timed page took seconds.

So after every ``EVERY`` tests what survived is collected once and frozen
(``gc.freeze``): later collections walk only what the tests since made. Frozen objects
are never collected as cycles; what a test leaves for good is what gets frozen, and the
collection just before takes that test's garbage.
"""

from __future__ import annotations

import gc

import pytest

EVERY = 10
_done = 0


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    global _done
    _done += 1
    if _done % EVERY == 0:
        gc.collect()
        gc.freeze()
