"""A small cache of recent query vectors, per embedder (issue 35: encoding the query was
half of a search page's time). A search page, its htmx refresh, the API and the recall
test ask the same text again within seconds; the vector of a text is the same every time
for one model, so the last :data:`SIZE` are kept per embedder object (a model changed in
the settings is another embedder object, so another cache: a vector is never answered
for another model). Vectors are returned read-only."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

import numpy as np

from qqweb.lib.embeddings import Embedder

SIZE = 256  # query vectors kept per embedder

_lock = threading.Lock()
_caches: weakref.WeakKeyDictionary[Embedder, OrderedDict[str, np.ndarray]] = (
    weakref.WeakKeyDictionary()
)


def query_vector(embedder: Embedder, text: str) -> np.ndarray:
    """``embedder``'s vector of ``text`` (one row), from the cache when it was asked lately."""
    with _lock:
        cache = _caches.setdefault(embedder, OrderedDict())
        vector = cache.get(text)
        if vector is not None:
            cache.move_to_end(text)
            return vector
    vector = np.array(embedder.embed([text])[0], dtype=np.float32)
    vector.flags.writeable = False
    with _lock:
        cache[text] = vector
        cache.move_to_end(text)
        while len(cache) > SIZE:
            cache.popitem(last=False)
    return vector
