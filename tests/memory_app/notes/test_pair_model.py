"""The learned pair model (memory_app/notes/lib/pair_model.py): its committed weights load and
score real sentences, embedded by the packaged all-MiniLM-L6-v2, the same every time and
in either order. Its accuracy is measured by bench/judgment.py, not here."""

import numpy as np
import pytest

from memory_app.notes.lib.pair_model import (
    DIM,
    TEXT_FEATURES,
    WEIGHTS,
    different_fact_probability,
    pair_model,
)
from qqweb.lib.embeddings import SentenceTransformerEmbedder

PAIR = ("The deadline for the report is Friday.", "The report is due on Friday, the deadline.")


@pytest.fixture(scope="module")
def vectors() -> np.ndarray:
    return SentenceTransformerEmbedder("all-MiniLM-L6-v2", engine="numpy").embed(list(PAIR))


def test_the_committed_weights_are_a_small_file_for_minilm_vectors() -> None:
    model = pair_model()
    assert WEIGHTS.stat().st_size < 64_000
    assert model.weights.shape == (2 * DIM + len(TEXT_FEATURES),)
    assert 0.0 < model.threshold < 1.0
    assert "train" in model.about


def test_a_pair_gets_the_same_probability_every_time_and_either_way_round(
    vectors: np.ndarray,
) -> None:
    u, v = vectors
    first = different_fact_probability(u, v, *PAIR)
    again = different_fact_probability(u.copy(), v.copy(), PAIR[0], PAIR[1])
    swapped = different_fact_probability(v, u, PAIR[1], PAIR[0])
    assert 0.0 < first < 1.0
    assert first == again
    assert swapped == pytest.approx(first, abs=1e-12)
