"""The indexes of bench/search_libs.py behind one interface (build, search, add, delete,
close): the app's vector index (segment + delta, and its fold), hnswlib and usearch, one
thread each for queries and updates (``BUILD_THREADS`` for the libraries' builds).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from memory_app.notes.lib.replica.follow import fold
from memory_app.notes.lib.replica.index import VectorIndex

INSTALL = "hnswlib and usearch are bench-only: `uv sync --extra dev --extra bench` installs them"
M = 16  # HNSW links per node, both libraries
EF_CONSTRUCTION = 128
BUILD_THREADS = 1  # the libraries' builds (--build-threads); queries and updates: one thread


def libraries() -> tuple[Any, Any]:
    try:
        import hnswlib
        import usearch.index
    except ImportError as error:
        sys.exit(f"{error}: {INSTALL}")
    return hnswlib, usearch.index


class App:
    name = "app (segment + delta)"

    def __init__(self, dim: int, directory: Path) -> None:
        self.index = VectorIndex(None, directory=directory)
        self.directory = directory

    def build(self, vectors: np.ndarray) -> None:
        ids = [str(i) for i in range(len(vectors))]
        self.index.add_vectors(ids, ["Key Topics"] * len(ids), vectors)

    def memory(self) -> str:
        size = sum(f.stat().st_size for f in self.directory.rglob("*.npy"))
        return f"{size / 2**20:.0f} MB mapped (shared by every process)"

    def search(self, query: np.ndarray, k: int) -> list[int]:
        return [int(h[0]) for h in self.index.search(query, limit=k).hits]

    def add(self, start: int, rows: np.ndarray) -> None:
        with self.index._lock:
            for i, row in enumerate(rows):
                self.index._put(
                    {"note_id": str(start + i), "section": "Key Topics", "embedding": row.tolist()}
                )

    def delete(self, rows: np.ndarray) -> None:
        with self.index._lock:
            for row in rows.tolist():
                self.index._forget(str(row))

    def fold(self) -> None:
        fold(self.index)

    def close(self) -> None:
        self.index.close()


class Hnswlib:
    name = "hnswlib"

    def __init__(self, dim: int, directory: Path) -> None:
        self.lib, _ = libraries()
        self.dim = dim

    def build(self, vectors: np.ndarray) -> None:
        self.index = self.lib.Index(space="ip", dim=self.dim)
        self.index.init_index(int(len(vectors) * 1.02) + 10, M=M, ef_construction=EF_CONSTRUCTION)
        self.index.set_num_threads(1)
        self.index.add_items(vectors, np.arange(len(vectors)), num_threads=BUILD_THREADS)

    def set_ef(self, ef: int) -> None:
        self.index.set_ef(ef)

    def search(self, query: np.ndarray, k: int) -> list[int]:
        labels, _ = self.index.knn_query(query, k=k, num_threads=1)
        return labels[0].tolist()

    def add(self, start: int, rows: np.ndarray) -> None:
        self.index.add_items(rows, np.arange(start, start + len(rows)), num_threads=1)

    def delete(self, rows: np.ndarray) -> None:
        for row in rows.tolist():
            self.index.mark_deleted(row)

    def close(self) -> None:
        del self.index


class Usearch:
    name = "usearch"

    def __init__(self, dim: int, directory: Path) -> None:
        _, self.lib = libraries()
        self.dim = dim

    def build(self, vectors: np.ndarray) -> None:
        self.index = self.lib.Index(
            ndim=self.dim,
            metric="ip",
            dtype="f32",
            connectivity=M,
            expansion_add=EF_CONSTRUCTION,
        )
        self.index.add(np.arange(len(vectors)), vectors, threads=BUILD_THREADS)

    def set_ef(self, ef: int) -> None:
        self.index.expansion_search = ef

    def search(self, query: np.ndarray, k: int) -> list[int]:
        return self.index.search(query, k, threads=1).keys.tolist()

    def add(self, start: int, rows: np.ndarray) -> None:
        self.index.add(np.arange(start, start + len(rows)), rows, threads=1)

    def delete(self, rows: np.ndarray) -> None:
        self.index.remove(rows)

    def close(self) -> None:
        del self.index
