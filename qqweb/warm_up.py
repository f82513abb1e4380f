"""Starting the embedding model and the vector index in the background when a process
starts (see ``qqweb.lib.clients.embedder_warm_up`` and ``memory_app.notes.stores``).

gunicorn imports the application once in its master and forks the workers from it
(``preload_app`` in ``qqweb/gunicorn.conf.py``). The master sets :data:`after_fork`, so
importing ``qqweb.wsgi`` there only loads the embedding model (numpy engine: arrays and
a tokenizer, safe to fork; the workers then share its pages and load nothing), and
starts no thread and no MongoDB client (neither survives a fork; the master answers no
request). Each worker takes the master's model and warms up its vector index in
gunicorn's ``post_fork`` hook. Any other server (runserver, a gunicorn command line
without this config) imports ``qqweb.wsgi`` in the process that answers, which warms up
then."""

from __future__ import annotations

import gc
import logging
import threading

log = logging.getLogger(__name__)

after_fork = False  # set by gunicorn.conf.py: the workers warm up after the fork


def warm_up() -> None:
    """Start loading the model and this process's vector index; returns at once."""
    from memory_app.notes.stores import vector_index_warm_up
    from qqweb.lib.clients import embedder_warm_up

    embedder_warm_up(wait_while_loading=False)
    vector_index_warm_up()


def at_import() -> None:
    """What importing ``qqweb.wsgi`` starts (see the module's docstring)."""
    if not after_fork:
        warm_up()
        return
    from django.conf import settings

    from qqweb.lib.clients import embedder
    from qqweb.lib.errors import StoreUnavailable

    if not settings.QQ_EMBEDDER_WARM_UP:
        return
    load = getattr(embedder(), "load_for_fork", None)
    try:
        if load is not None:
            load()
    except StoreUnavailable as e:  # each worker tries again, and says why
        log.warning("the embedding model was not loaded before the fork: %s", e)


def in_worker(parent_pid: int) -> None:
    """gunicorn's ``post_fork``: the master's model, this worker's vector index."""
    from qqweb.lib.clients import embedder_inherit

    embedder_inherit(parent_pid)
    warm_up()
    threading.Thread(target=_freeze_when_caught_up, name="qqweb-gc-freeze", daemon=True).start()


FREEZE_WAIT_S = 1800.0  # a first load at 1M notes on the daemon: well within


def _freeze_when_caught_up() -> None:
    """Once this worker's vector index has caught up, what it holds (and Django's, the
    model's, the modules') goes to the garbage collector's permanent generation: a full
    collection then walks only what requests leave, not the 140k objects every process
    holds (a full collection took 65-120 ms at 100k notes, one every 30 requests or so:
    the pages' p95).

    Only once: objects frozen are never collected as cycles, and a frozen snapshot that
    a fold replaces later is freed by its reference count (no cycle holds it)."""
    from django.conf import settings

    from memory_app.notes.stores import notes_store

    if settings.QQ_VECTOR_WARM_UP:
        notes_store().vector_index.wait_caught_up(timeout=FREEZE_WAIT_S)
    gc.collect()
    gc.freeze()


def before_fork() -> None:
    """gunicorn's ``pre_fork`` in the master: what importing the application made is
    frozen before the fork (Python's advice for forking servers), so no worker's
    collection walks it nor writes to its pages."""
    gc.freeze()
