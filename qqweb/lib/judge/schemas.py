"""The verdict on a pair as the API gives it (the review queue's preview, the facts'
next-start pairs)."""

from __future__ import annotations

from typing import Self

from ninja import Field, Schema

from qqweb.lib.judge.verdicts import Verdict


class VerdictOut(Schema):
    kind: str = Field(
        description="same, left_more, right_more (that side says more), each_more (each says "
        "something the other does not), different, update (a value changed) or "
        "contradiction; left is the first text of the pair"
    )
    words: str = Field(description="The verdict as the pages say it")
    p_same: float | None = Field(
        description="The pair judge's probability that the two are the same fact (null: the "
        "rules alone judged)"
    )

    @classmethod
    def of(cls, said: Verdict, **more: str) -> Self:
        return cls(kind=said.kind, words=said.words, p_same=said.p_same, **more)
