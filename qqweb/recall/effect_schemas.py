"""The API's shape of a plan's effect on the pinned recalls
(:class:`qqweb.recall.effects.PlanEffect`), for every plan that carries one."""

from __future__ import annotations

from ninja import Field, Schema

from qqweb.recall.effects import PlanEffect


class LostRecallOut(Schema):
    pin_id: int
    query: str
    item_id: str
    item_text: str
    why: str = Field(description="Why the agent would no longer recall it once the plan applies")


class PinsEffectOut(Schema):
    pins: int = Field(description="The pinned recalls of this memory (notes or facts)")
    lost: list[LostRecallOut] = Field(
        description="The pins that pass now and would fail once the plan applies"
    )
    pinned_items: list[str] = Field(
        description="The plan's items (notes, facts) pinned recalls go through, lost or not"
    )
    error: str = Field(description="Why the effect is unknown (the store is down); else empty")


def effect_out(effect: PlanEffect) -> PinsEffectOut:
    return PinsEffectOut.model_validate(effect, from_attributes=True)
