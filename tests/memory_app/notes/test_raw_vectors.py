"""The vector index reads each note's embedding from the document's bytes
(``raw_vectors.document_with_row``): every other field exactly as pymongo decodes it, the
embedding as float32 of the same values, and any document it cannot read that way decoded
the ordinary way, never half read."""

from datetime import datetime

import bson
import numpy as np
import pytest
from bson import ObjectId
from bson.codec_options import CodecOptions

from memory_app.notes.lib.mongo.raw_vectors import document_with_row

OPTIONS: CodecOptions = CodecOptions(tz_aware=False)


def agent_doc(embedding):
    return {
        "_id": ObjectId(),
        "note_id": "note_0123456789ab",
        "section": "Facts",
        "content": "Ada lives in Berlin \u00e9\x00 with a NUL",
        "embedding": embedding,
        "created_at": datetime(2026, 3, 1, 12, 30),
        "source": {"source_type": "file", "file_path": "/repo/a.md"},
        "importance": 0.75,
        "access_count": 3,
        "last_accessed": None,
        "updated_at": datetime(2026, 3, 2, 8, 0, 0, 123000),
        "metadata": {"tags": ["a", "b"], "big": 2**40, "flag": True},
        "blob": bson.Binary(b"\x00\x01", 0),
    }


@pytest.mark.parametrize("dim", [1, 10, 11, 384, 1536])
def test_a_notes_fields_come_as_pymongo_decodes_them_and_its_embedding_as_float32(dim):
    values = np.random.default_rng(dim).normal(size=dim).tolist()
    raw = bson.encode(agent_doc(values))
    ordinary = bson.decode(raw, OPTIONS)
    read = document_with_row(raw, OPTIONS)
    embedding = read.pop("embedding")
    assert embedding.dtype == np.float32
    assert np.array_equal(embedding, np.asarray(values, dtype=np.float32))
    assert read == {k: v for k, v in ordinary.items() if k != "embedding"}
    assert list(read) == [k for k in ordinary if k != "embedding"]  # the fields' order kept


@pytest.mark.parametrize(
    "embedding",
    [[1, 0.5, 2], [], None, "not a vector", [0.5, [0.1]], {"0": 0.5}],
    ids=["integers", "empty", "null", "a string", "nested", "a document"],
)
def test_an_embedding_that_is_not_doubles_is_decoded_as_pymongo_decodes_it(embedding):
    raw = bson.encode(agent_doc(embedding))
    assert document_with_row(raw, OPTIONS) == bson.decode(raw, OPTIONS)


def test_a_document_without_an_embedding_or_with_an_unusual_type_is_decoded_whole():
    plain = bson.encode({"note_id": "n", "section": "s"})
    assert document_with_row(plain, OPTIONS) == {"note_id": "n", "section": "s"}
    regex = bson.encode({"note_id": "n", "rx": bson.Regex("^a"), "embedding": [0.5, 0.25]})
    read = document_with_row(regex, OPTIONS)
    assert read["embedding"] == [0.5, 0.25] and read["rx"] == bson.Regex("^a")


def test_time_zone_aware_options_are_kept_for_the_other_fields():
    aware: CodecOptions = CodecOptions(tz_aware=True)
    raw = bson.encode(agent_doc([0.5, 0.25]))
    assert document_with_row(raw, aware)["created_at"].tzinfo is not None
