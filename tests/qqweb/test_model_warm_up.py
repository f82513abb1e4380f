"""The embedding model loads in the background when a process starts; a request that
needs it before it is ready is told so at once (503 with Retry-After), never left hanging."""

import json
import os
import threading
import time

import pytest

from qqweb.lib.clients import embedder, embedder_warm_up
from tests.helpers import plant_note as plant

pytestmark = pytest.mark.django_db


@pytest.fixture
def real_model(settings, mongo):
    settings.QQ_EMBEDDING_BACKEND = "sentence-transformers"
    settings.QQ_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
    plant("note_0000000000a1", 0.9, 1, content="Lumen stores its vectors in MongoDB")
    return embedder()


def _search(client):
    return client.post(
        "/api/notes/search", json.dumps({"query": "where are vectors"}), "application/json"
    )


@pytest.mark.django_db(transaction=True)  # the request runs in its own thread
def test_a_search_while_the_model_loads_is_a_503_with_retry_after_then_works(
    real_model, viewer_client
):
    if real_model.ready:  # loaded by an earlier test in this process: nothing to wait for
        assert _search(viewer_client).status_code == 200
        return
    with real_model._lock:  # the warm-up thread cannot finish while the test holds this
        embedder_warm_up(wait_while_loading=False)
        answered: list = []
        asking = threading.Thread(target=lambda: answered.append(_search(viewer_client)))
        asking.start()
        asking.join(60)  # a request that waited for the model would wait for this lock
        assert answered, "the search waited for the model instead of answering"
        response = answered[0]
        assert response.status_code == 503 and response["Retry-After"] == "5"
        error = response.json()["error"]
        assert error["code"] == "model_loading" and "still loading" in error["message"]
        page = viewer_client.get("/search/", {"q": "where are vectors"}, HTTP_HX_REQUEST="true")
        assert "still loading" in page.content.decode()
    deadline = time.monotonic() + 120
    while not real_model.ready:
        assert time.monotonic() < deadline, "the model did not load in the background"
        time.sleep(0.2)
    found = _search(viewer_client)
    assert found.status_code == 200 and found.json()["results"][0]["note_id"] == "note_0000000000a1"


def test_the_web_process_starts_loading_the_model_without_waiting_for_it(settings):
    """Importing the WSGI application (what gunicorn and runserver do) starts the warm-up
    and returns at once; backends with nothing to load are left as they are."""
    settings.QQ_EMBEDDING_BACKEND = "hashing"
    settings.SECRET_KEY = "a-long-random-key-for-this-test-" * 2  # DEBUG is off in tests
    import qqweb.wsgi  # noqa: F401

    embedder_warm_up(wait_while_loading=False)
    assert not hasattr(embedder(), "start_loading")


def test_gunicorn_workers_take_the_model_their_master_loaded_before_the_fork(settings, monkeypatch):
    """Under qqweb/gunicorn.conf.py the master imports the app (preload): it loads the
    model there, starting no thread, and a worker forked from it uses that model at once
    instead of loading its own."""
    from qqweb import warm_up

    settings.QQ_EMBEDDING_BACKEND = "sentence-transformers"
    settings.QQ_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
    settings.QQ_EMBEDDER_WARM_UP = True
    settings.QQ_VECTOR_WARM_UP = False
    monkeypatch.setattr(warm_up, "after_fork", True)
    threads = {t.name for t in threading.enumerate()}
    warm_up.at_import()
    master = embedder()
    assert master.ready
    assert {t.name for t in threading.enumerate()} <= threads  # no warm-up thread started
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker
        try:
            warm_up.in_worker(parent_pid=os.getppid())
            mine = embedder()
            said = b"same, ready" if mine is master and mine.ready else b"another"
            os.write(writing, said)
        finally:
            os._exit(0)
    os.close(writing)
    said = os.read(reading, 100)
    os.waitpid(pid, 0)
    assert said == b"same, ready"


def test_a_gunicorn_worker_freezes_what_it_holds_once_warmed_up(settings):
    """What a worker holds once its index has caught up (Django, the modules, the model,
    the index: about 140k objects) goes to the collector's permanent generation, so a
    full collection walks only what requests leave: it took 65-120 ms at 100k notes, one
    every 30 pages or so (the pages' p95)."""
    import gc

    from qqweb import warm_up

    settings.QQ_EMBEDDING_BACKEND = "hashing"
    settings.QQ_VECTOR_WARM_UP = False
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker
        try:
            gc.unfreeze()
            warm_up.in_worker(parent_pid=os.getppid())
            deadline = time.monotonic() + 30
            while gc.get_freeze_count() == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            gc.collect()
            walked = len(gc.get_objects())  # what a full collection still walks
            os.write(writing, json.dumps([gc.get_freeze_count(), walked]).encode())
        finally:
            os._exit(0)
    os.close(writing)
    frozen, walked = json.loads(os.read(reading, 100))
    os.waitpid(pid, 0)
    assert frozen > 50_000
    assert walked < frozen / 10, f"a full collection still walks {walked:,} objects"


def test_the_wsgi_module_imports_the_urlconf_so_gunicorn_workers_fork_with_it():
    """gunicorn's master imports qqweb.wsgi (preload): the URLconf, every view and the
    API's schemas are imported there once, not by each worker's first request (which held
    the first search after a restart 0.9-1.8 s at 100k notes)."""
    import subprocess
    import sys
    from pathlib import Path

    modules = ("qqweb.urls", "qqweb.api", "memory_app.notes.views", "graph_app.views")
    code = f"import sys, qqweb.wsgi; print([m for m in {modules!r} if m not in sys.modules])"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "qqweb.settings",
        "SECRET_KEY": "a-long-random-key-for-this-test-" * 2,
        "QQ_EMBEDDER_WARM_UP": "0",
        "QQ_VECTOR_WARM_UP": "0",
    }
    root = Path(__file__).resolve().parent.parent.parent
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]", done.stdout
