"""The review queue's API schemas (``/api/duplicates``): a pair, a verdict, the merge
preview with its effect on the pinned recalls, an LLM's merged text."""

from __future__ import annotations

from ninja import Field, Schema

from qqweb.lib.api_types import ShortText, UtcDateTime
from qqweb.lib.judge.model import CLASSES
from qqweb.lib.judge.schemas import VerdictOut
from qqweb.recall.effect_schemas import PinsEffectOut


class ReviewPairOut(Schema):
    id: int
    note_a: str
    note_b: str
    similarity: float
    status: str
    found_at: UtcDateTime
    decided_by: str
    primary: str
    event_id: int | None = Field(None, description="the verdict's audit event (undo it there)")
    judged: dict[str, float] | None = Field(
        None,
        description="The pair judge's probability of each verdict for the two texts as the "
        "scan found them (same, left_more, right_more, each_more, different, "
        "contradiction; left is note_a); null when the judge did not judge the pair",
    )

    @staticmethod
    def resolve_judged(obj: object) -> dict[str, float] | None:
        stored = getattr(obj, "judged", None)
        if isinstance(stored, dict):  # already resolved (validated a second time)
            return stored
        if not isinstance(stored, list) or len(stored) != len(CLASSES):
            return None
        return dict(zip(CLASSES, stored, strict=True))


class ReviewVerdictIn(Schema):
    verdict: str = Field(
        description="merge, supersede (keep the newer note and its text; the older is "
        "archived), not_duplicate or skip",
        max_length=20,
    )
    primary_id: ShortText | None = None
    content: str | None = Field(None, max_length=20_000)


class MergePreviewIn(Schema):
    primary_id: ShortText | None = Field(
        None,
        description="The note to keep; else the Review page's: the newer note when the texts "
        "differ in a value, the agent's choice otherwise (a verdict without primary_id keeps "
        "the agent's choice: send it the answer's primary_id to merge as previewed)",
    )
    content: str | None = Field(None, max_length=20_000, description="Your merged text")


class ReviewVerdictOut(VerdictOut):
    merged_both: str = Field(
        description="For each_more: a merged text keeping what each note alone says "
        "(send it as the verdict's content); empty otherwise"
    )


class MergePreviewOut(Schema):
    pair: ReviewPairOut
    primary_id: str = Field(description="The note the merge keeps")
    secondary_id: str = Field(description="The note the merge archives")
    content: str = Field(description="The kept note's text after the merge")
    newer_id: str | None = Field(description="The note written later (supersede keeps it)")
    possible_update: bool = Field(description="The texts differ in a value")
    contradiction: bool = Field(description="One text negates the other: choose primary_id")
    verdict: ReviewVerdictOut = Field(description="What the pair is, in words")
    pins_merge: PinsEffectOut = Field(description="The merge's effect on the pinned recalls")
    pins_supersede: PinsEffectOut | None = Field(
        description="The supersede's, when it is another plan than this merge"
    )


class SuggestionIn(Schema):
    primary_id: str | None = Field(None, max_length=64)


class SuggestionOut(Schema):
    content: str
    model: str
