"""Hand-built 384-d vectors with known cosines, for the rules' tests (no model)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from bson import ObjectId

from memory_app.facts.lib.domain import Fact

DIM = 384
T0 = datetime(2026, 1, 1, 12, 0, 0)


def at_cosine(c: float, first: int = 0, second: int = 1) -> list[float]:
    """``cos θ·e_first + sin θ·e_second``: a unit vector at cosine ``c`` to ``e_first``."""
    v = [0.0] * DIM
    v[first] = c
    v[second] = math.sqrt(1.0 - c * c)
    return v


def unit(i: int = 0) -> list[float]:
    v = [0.0] * DIM
    v[i] = 1.0
    return v


def exactly_095() -> list[float]:
    """A vector whose float64 cosine to ``unit(0)`` is exactly the double 0.95:
    (19, 5, 3, 2, 1) has norm 20 exactly, so the cosine is 19 / 20."""
    v = [0.0] * DIM
    v[:5] = [19.0, 5.0, 3.0, 2.0, 1.0]
    return v


def gram_vectors(gram: list[list[float]]) -> list[list[float]]:
    """Vectors whose pairwise cosines are ``gram`` (a positive definite matrix)."""
    lower = np.linalg.cholesky(np.array(gram, dtype=np.float64))
    out = []
    for row in lower:
        v = [0.0] * DIM
        v[: len(row)] = [float(x) for x in row]
        out.append(v)
    return out


def fact(
    content: str,
    vector: Any,
    minutes: float = 0,
    *,
    timestamp: Any = None,
    **extra: Any,
) -> Fact:
    return Fact(
        id=extra.pop("id", ObjectId()),
        content=content,
        content_embedding=vector,
        timestamp=timestamp if timestamp is not None else T0 + timedelta(minutes=minutes),
        metadata={},
        extra=extra,
    )
