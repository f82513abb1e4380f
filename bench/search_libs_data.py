"""The data sets of bench/search_libs.py: the MiniLM vectors of the judgment corpora's
sentences (embedded once, cached by text in ``var/search_libs/embeddings.npz``) and the
clustered vectors of the scale benches, each drawn into indexed rows, held-out and
perturbed queries, and the rows the update adds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.common import clustered
from qqweb.lib.vectors import normalise

CACHE = Path(__file__).resolve().parent.parent / "var" / "search_libs" / "embeddings.npz"


@dataclass
class Data:
    name: str
    vectors: np.ndarray  # indexed rows, unit float32
    queries: np.ndarray  # held-out then perturbed
    held_out: int
    extra: np.ndarray  # rows the update adds


def minilm(held_out: int, perturbed: int, seed: int) -> Data:
    import judgment_data
    from django.conf import settings
    from judgment import embed_all  # django set up there: the app's embedder and settings

    pairs = judgment_data.load_all(Path("/work/.mirror"), 10**9, 24)  # train + dev only
    texts = sorted({t for p in pairs for t in (p.left, p.right)})
    vectors = embed_all(texts, settings.QQ_EMBEDDING_MODEL, CACHE)
    matrix = normalise(np.stack([vectors[t] for t in texts]))
    return split(f"MiniLM {len(texts):,} sentences", matrix, held_out, perturbed, seed)


def synthetic(n: int, held_out: int, perturbed: int, seed: int) -> Data:
    extra = max(1, n // 100)
    matrix = clustered(n + held_out + extra, 384, seed=1)
    return split(f"clustered {n:,}", matrix, held_out, perturbed, seed, extra)


def split(
    name: str, matrix: np.ndarray, held_out: int, perturbed: int, seed: int, extra: int = 0
) -> Data:
    """Held-out queries, the rows the update adds and the indexed rows, drawn at random."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(matrix))
    extra = extra or max(1, (len(matrix) - held_out) // 101)
    held, added, kept = np.split(order, [held_out, held_out + extra])
    vectors = np.ascontiguousarray(matrix[np.sort(kept)])
    near = vectors[rng.integers(0, len(vectors), perturbed)]
    near = normalise(near + rng.normal(scale=0.02, size=near.shape).astype(np.float32))
    queries = np.ascontiguousarray(np.vstack([matrix[held], near]), dtype=np.float32)
    return Data(name, vectors, queries, held_out, np.ascontiguousarray(matrix[added]))
