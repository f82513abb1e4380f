"""The demo's committed vectors (qqweb/lib/demo_vectors.npz) are the packaged model's own:
`make dev` loads the demo from them instead of embedding ~850 texts before the first
page, so they must not go stale when the demo's texts or the model change."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from memory_app.notes.stores import notes_store
from qqweb.demo import demo_seed, demo_texts
from qqweb.lib.demo_vectors import demo_embedder, stored_vectors, text_key
from qqweb.lib.embeddings import HashingEmbedder, SentenceTransformerEmbedder

NOW = datetime(2026, 1, 1, 12, 0)  # the texts depend on the seed only, not on the date


@pytest.fixture(scope="module")
def model() -> SentenceTransformerEmbedder:
    """The packaged all-MiniLM-L6-v2, on the engine the default settings pick."""
    return SentenceTransformerEmbedder("all-MiniLM-L6-v2")


def test_every_text_the_demo_embeds_has_a_committed_vector() -> None:
    table = stored_vectors()
    missing = [t for batch in demo_texts(now=NOW) for t in batch if text_key(t) not in table]
    assert not missing, (
        f"{len(missing)} demo texts have no committed vector (first: {missing[0]!r}): "
        "rewrite them with `.venv/bin/python -m qqweb.demo`"
    )


@pytest.mark.realmodel
def test_the_committed_vectors_are_the_models_own(model: SentenceTransformerEmbedder) -> None:
    table = stored_vectors()
    for texts in demo_texts(now=NOW):  # in the batches the seeding embeds them
        live = model.embed(texts)
        stored = np.stack([table[text_key(t)] for t in texts])
        assert stored.shape == live.shape == (len(texts), 384)
        assert float(np.abs(stored - live).max()) <= 1e-5


def test_seeding_with_the_packaged_model_embeds_nothing_and_loads_no_model(
    mongo: None, memory_dir: None
) -> None:
    model = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    wrapped = demo_embedder(model)
    report = demo_seed(embedder=wrapped, parts=("memory",))
    assert report.notes == notes_store().count() > 450
    assert wrapped.embedded == 0 and wrapped.stored == report.notes - 5  # 5 planted empty
    assert not model.ready  # the model was never loaded
    table = stored_vectors()
    for doc in notes_store().collection.find({"embedding": {"$ne": []}}).limit(20):
        assert doc["embedding"] == [float(x) for x in table[text_key(doc["content"])]]


def test_another_model_embeds_every_text_itself(mongo: None, memory_dir: None) -> None:
    hashing = HashingEmbedder(384)
    wrapped = demo_embedder(hashing)
    report = demo_seed(embedder=wrapped, parts=("memory",))
    assert wrapped.stored == 0 and wrapped.embedded == report.notes - 5
    doc = notes_store().collection.find_one({"embedding": {"$ne": []}})
    assert doc is not None
    assert doc["embedding"] == [float(x) for x in hashing.embed([doc["content"]])[0]]


@pytest.mark.realmodel
def test_a_text_the_file_lacks_is_embedded_live_beside_the_stored_ones(
    model: SentenceTransformerEmbedder,
) -> None:
    known = demo_texts(now=NOW)[0][0]
    wrapped = demo_embedder(model)
    vectors = wrapped.embed([known, "A sentence the demo never wrote."])
    assert (wrapped.stored, wrapped.embedded) == (1, 1)
    assert np.array_equal(vectors[0], stored_vectors()[text_key(known)])
    new = model.embed(["A sentence the demo never wrote."])[0]
    assert float(np.abs(vectors[1] - new).max()) < 1e-5
