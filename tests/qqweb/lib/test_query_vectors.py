"""Recent query vectors are kept per embedder (issue 35: encoding the query was half of
a search page's time): asking the same text again answers the kept vector, never one of
another model, and only the last ``SIZE`` texts are kept."""

import numpy as np
import pytest

from qqweb.lib import query_vectors
from qqweb.lib.embeddings import HashingEmbedder
from qqweb.lib.query_vectors import query_vector


def test_a_query_asked_again_is_answered_from_the_kept_vector():
    model = HashingEmbedder(384)
    first = query_vector(model, "where does Lumen keep its vectors")
    assert np.array_equal(first, model.embed(["where does Lumen keep its vectors"])[0])
    assert query_vector(model, "where does Lumen keep its vectors") is first
    with pytest.raises(ValueError):
        first[0] = 1.0  # read-only: no caller changes what the next one gets


def test_each_model_keeps_its_own_vectors():
    small, large = HashingEmbedder(64), HashingEmbedder(384)
    assert query_vector(small, "Kafka").shape == (64,)
    assert query_vector(large, "Kafka").shape == (384,)


def test_only_the_most_recent_queries_are_kept(monkeypatch):
    monkeypatch.setattr(query_vectors, "SIZE", 3)
    model = HashingEmbedder(32)
    kept = query_vector(model, "first")
    for text in ("second", "third"):
        query_vector(model, text)
    assert query_vector(model, "first") is kept  # asked again: the most recent now
    for text in ("fourth", "fifth", "sixth"):
        query_vector(model, text)
    again = query_vector(model, "first")
    assert again is not kept and np.array_equal(again, kept)
