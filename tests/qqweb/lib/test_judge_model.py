"""The pair judge's numpy network (qqweb/lib/judge/model.py) over the committed weights:
the same logits as the torch network it was trained as (tests/fixtures/judge_golden.json,
written by bench/judge_train.py from the same float16 file), no torch imported, and the
verdicts a curator relies on for plain agent-memory pairs. How well it judges public
labelled pairs is measured by bench/judgment.py, not here."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from qqweb.lib.judge.model import ABOUT, CLASSES, WEIGHTS, judge

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "judge_golden.json"
SENTENCE = "the nightly backup of Ada's notes runs at two with encryption on"


@pytest.fixture(scope="module")
def model():
    loaded = judge()
    assert loaded is not None, "the judge needs the `model` extra and judge.safetensors"
    return loaded


def test_the_shipped_weights_are_float16_under_30_mb_and_say_how_they_were_trained():
    assert WEIGHTS.stat().st_size < 30_000_000
    about = json.loads(ABOUT.read_text())
    assert about["classes"] == list(CLASSES)
    assert about["pairs"] > 10_000 and about["seed"] == 34


def test_the_numpy_judge_gives_the_torch_networks_logits(model):
    golden = json.loads(GOLDEN.read_text())
    pairs = [tuple(p) for p in golden["pairs"]]
    mine = model.logits(pairs)
    assert np.abs(mine - np.array(golden["logits"])).max() < 2e-2
    assert "torch" not in sys.modules


def test_pairs_are_judged_alike_alone_and_in_a_batch_of_any_order(model):
    pairs = [
        ("Ada lives in Berlin.", "Ada lives in Berlin with her sister and their two cats."),
        ("Tom likes tea.", "Tom likes tea."),
        ("A man is playing a guitar on the stage tonight.", "A man plays a guitar."),
    ]
    together = model.logits(pairs)
    for i, pair in enumerate(pairs):
        assert np.allclose(model.logits([pair])[0], together[i], atol=1e-4)


def test_a_job_judging_over_two_threads_gives_every_pair_what_one_thread_gives(model):
    # enough pairs, of mixed lengths, for many length batches: each thread writes its own
    # batches' rows, in the pairs' order
    words = SENTENCE.split()
    pairs = [
        (" ".join(words[: 3 + i % 9]) + f" {i}", " ".join(words[i % 5 :]) + f" number {i}")
        for i in range(400)
    ]
    one = model.logits(pairs)
    two = model.logits(pairs, threads=2)
    assert np.allclose(one, two, atol=1e-4)
    assert len({tuple(np.round(row, 3)) for row in two}) > 100  # rows not copied around


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        (
            "Lumen uses MongoDB for vector search now",
            "Lumen uses MongoDB for vector search now!",
            "same",
        ),
        ("Ada lives in Berlin.", "Ada lives in Berlin with her sister.", "right_more"),
        ("Ada lives in Berlin with her sister.", "Ada lives in Berlin.", "left_more"),
        (
            "The nightly backup runs with encryption",
            "The nightly backup runs without encryption",
            "contradiction",
        ),
        ("Ada's favourite film is Alien.", "Ada's favourite book is Alien.", "different"),
    ],
)
def test_plain_memory_pairs_get_the_verdict_a_curator_would_give(model, left, right, expected):
    [said] = model.probabilities([(left, right)])
    assert said.label == expected, said.values
