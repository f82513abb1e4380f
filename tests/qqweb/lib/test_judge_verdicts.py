"""A pair's verdict in words (qqweb/lib/judge/verdicts.py): the judge's class and the rules'
values together, as Review and the API say them, and the merged text that keeps both
details."""

from qqweb.lib.differences import differences
from qqweb.lib.judge.model import CLASSES
from qqweb.lib.judge.verdicts import FLAG_AT, merged_both, only_in, verdict


def probabilities(label: str, p: float = 0.9) -> dict[str, float]:
    rest = (1.0 - p) / (len(CLASSES) - 1)
    return {c: (p if c == label else rest) for c in CLASSES}


def test_the_judge_calling_a_pair_the_same_fact_says_so_and_flags_nothing():
    said = verdict(probabilities("same"), "Ada likes tea.", "Ada likes tea", ())
    assert (said.kind, said.words, said.flagged) == ("same", "same fact", False)


def test_the_newer_note_that_says_more_is_named_with_the_words_it_adds():
    left, right = "Ada lives in Berlin.", "Ada lives in Berlin with her sister."
    said = verdict(
        probabilities("right_more"),
        left,
        right,
        differences(left, right),
        left_name="the older note",
        right_name="the newer note",
    )
    assert said.kind == "right_more" and said.says_more and said.flagged
    assert said.words == "the newer note says more: “with her sister.”"


def test_a_negation_the_rules_find_is_a_contradiction_whatever_the_judge_says():
    left, right = "The pandas are lying down.", "The pandas are not lying down."
    said = verdict(probabilities("same", 0.99), left, right, differences(left, right))
    assert said.kind == "contradiction" and said.contradiction
    assert said.words.startswith("contradiction: ")


def test_a_changed_value_reads_as_an_update_from_one_value_to_the_other():
    left, right = "Lumen listens on port 9000.", "Lumen listens on port 9100."
    said = verdict(probabilities("same"), left, right, differences(left, right))
    assert said.kind == "update"
    assert "9000 → 9100" in said.words and said.words.startswith("possible update: ")


def test_a_different_fact_the_rules_cannot_see_is_flagged_by_the_judge():
    left, right = "Ada's favourite film is Alien.", "Ada's favourite book is Alien."
    said = verdict(probabilities("different"), left, right, differences(left, right))
    assert (said.kind, said.words) == ("different", "different facts")


def test_below_the_flag_threshold_the_judge_leaves_the_pair_the_same_fact():
    p = probabilities("different", 0.0)
    p["same"], p["different"] = 1.0 - FLAG_AT / 2, FLAG_AT / 2
    assert verdict(p, "a b c", "a b d", ()).kind == "same"


def test_without_the_judge_the_rules_alone_decide_and_the_verdict_says_so():
    said = verdict(None, "Ada likes tea.", "Ada likes green tea.", ())
    assert said.kind == "same" and said.p_same is None


def test_each_side_adding_its_own_detail_gets_a_merged_text_keeping_both():
    left = "Ada moved to Berlin. She works at Acme."
    right = "Ada moved to Berlin. She has two cats."
    said = verdict(probabilities("each_more"), left, right, ())
    assert said.words == "each says something the other does not"
    both = merged_both(left, right)
    assert "works at Acme" in both and "two cats" in both and both.count("moved to Berlin") == 1


def test_a_merged_text_of_two_one_sentence_notes_holds_both_sentences():
    both = merged_both("Ada lives in Berlin with her sister", "Ada lives in Berlin since 2019.")
    assert both == "Ada lives in Berlin with her sister. Ada lives in Berlin since 2019."


def test_only_in_names_the_words_each_side_alone_has():
    assert only_in("a b c d", "a x c d e") == ("b", "x … e")
