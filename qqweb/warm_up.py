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

import logging

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
