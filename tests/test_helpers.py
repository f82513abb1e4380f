"""The planted notes' default contents: the same id gives the same words, and two ids give
vectors far below the duplicate threshold."""

import numpy as np

from tests.helpers import note_content, vector


def test_a_note_id_always_gets_the_same_sentence():
    assert note_content("note_0000000000a1") == note_content("note_0000000000a1")
    assert note_content("note_0000000000a1") != note_content("note_0000000000a2")


def test_planted_contents_are_not_near_duplicates_of_each_other(settings):
    vectors = np.array([vector(note_content(f"note_{i:012x}")) for i in range(300)])
    similarities = vectors @ vectors.T
    np.fill_diagonal(similarities, 0.0)
    assert similarities.max() < settings.QQ_DEDUP_THRESHOLD
    assert np.median(similarities) < 0.2
