"""The demo's vectors, computed once with the packaged all-MiniLM-L6-v2 and committed
(``demo_vectors.npz`` beside this file), so ``make dev`` loads the demo in about a second
instead of embedding its ~870 texts (notes, graph entities, facts): 13-20 s at load 8 on
the 2-core machine here, about 2 minutes on a busier one, before the first page.

The file maps the first 16 bytes of each text's SHA-256 to its vector. :func:`demo_embedder`
wraps the configured embedder: when that is the packaged all-MiniLM-L6-v2, a text found
in the file gets its stored vector; any other text (another ``--seed``, a changed
vocabulary) and any other model are embedded live, as before. The model is loaded only
if something has to be embedded.

It lives in the kernel because every app's demo uses it (``seed_demo``, ``seed_facts_demo``);
which texts it holds is the composition root's business (``qqweb.demo.demo_texts``).
``tests/qqweb/test_demo_vectors.py`` checks that every text the default demo embeds
is in the file and that the stored vectors are the model's own to 1e-5, so the file
cannot go stale unnoticed. Rewrite it with::

    .venv/bin/python -m qqweb.demo
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from qqweb.lib.embeddings import PACKAGED_MINILM_NAMES, Embedder, SentenceTransformerEmbedder

VECTORS_FILE = Path(__file__).resolve().parent / "demo_vectors.npz"
MODEL = "all-MiniLM-L6-v2"
DIMENSION = 384
_KEY_BYTES = 16


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()[:_KEY_BYTES]


@cache
def stored_vectors(path: Path = VECTORS_FILE) -> dict[bytes, np.ndarray]:
    """The committed vectors by text key (empty when the file is missing)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            keys, vectors = data["keys"], data["vectors"]
    except FileNotFoundError:
        return {}
    return {bytes(k): v for k, v in zip(keys, vectors.astype(np.float32), strict=True)}


def uses_packaged_minilm(embedder: Embedder) -> bool:
    """True for the packaged all-MiniLM-L6-v2 (either engine: same vectors to 1e-5)."""
    return (
        isinstance(embedder, SentenceTransformerEmbedder)
        and embedder.model_name.lower() in PACKAGED_MINILM_NAMES
    )


@dataclass
class DemoEmbedder:
    """An :class:`Embedder` answering from the committed vectors where it can and asking
    ``inner`` for the rest; counts both, for the seeding's report."""

    inner: Embedder
    table: dict[bytes, np.ndarray]
    stored: int = 0
    embedded: int = 0

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dimension(self) -> int:
        return DIMENSION if self.table else self.inner.dimension

    def embed(self, texts: list[str]) -> np.ndarray:
        found = [self.table.get(text_key(t)) for t in texts]
        missing = [t for t, v in zip(texts, found, strict=True) if v is None]
        live = iter(self.inner.embed(missing)) if missing else iter([])
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, vector in enumerate(found):
            out[row] = next(live) if vector is None else vector
        self.stored += len(texts) - len(missing)
        self.embedded += len(missing)
        return out

    def summary(self) -> str:
        if not self.embedded:
            return f"{self.stored} vectors precomputed for {self.model_name}"
        return (
            f"{self.stored} vectors precomputed, {self.embedded} embedded now "
            f"with {self.model_name}"
        )


def demo_embedder(embedder: Embedder) -> DemoEmbedder:
    """``embedder`` answering the demo's texts from the committed vectors when it is the
    packaged all-MiniLM-L6-v2; any other model is always asked."""
    table = stored_vectors() if uses_packaged_minilm(embedder) else {}
    return DemoEmbedder(inner=embedder, table=table)


def write_vectors(embedder: Embedder, batches: list[list[str]], path: Path = VECTORS_FILE) -> int:
    """Each batch embedded in one call, as the seeding does (a text's vector depends on its
    batch by about 1e-7); a text in two batches is kept once."""
    table: dict[bytes, np.ndarray] = {}
    for texts in batches:
        for text, vector in zip(texts, embedder.embed(texts), strict=True):
            table.setdefault(text_key(text), np.asarray(vector, dtype=np.float32))
    keys = np.frombuffer(b"".join(table), dtype=np.uint8).reshape(len(table), _KEY_BYTES)
    np.savez_compressed(path, keys=keys, vectors=np.stack(list(table.values())))
    stored_vectors.cache_clear()
    return len(table)
