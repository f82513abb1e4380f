"""The one step every write that can lose a pinned recall takes first: when the write
would lose one (or its effect on the pins is unknown), the curator sees which, with
the write's question, a button that does it all the same and a Cancel, before anything
is written. ``qqweb.recall.guards`` lists those writes; the others ask their own way
(a plan page, a confirm dialog) with the same partial, ``templates/_pins_lost.html``."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from qqweb.recall.effects import PlanEffect

CONFIRMED = "confirmed"  # the field a confirmed write posts again


def pins_first(
    request: HttpRequest,
    effects: Callable[[], list[PlanEffect]],
    *,
    question: str,
    yes: str,
    cancel_url: str,
    then: str,
) -> HttpResponse | None:
    """None when the write may go ahead: it was confirmed, or ``effects`` (computed only
    when it was not) lose no pin. Else the page asking first, which posts the same fields
    again with ``confirmed`` set; ``then`` says what doing it all the same means."""
    if request.POST.get(CONFIRMED) == "on":
        return None
    found = effects()
    if not any(e.lost or e.error for e in found):
        return None
    fields = [
        (name, value)
        for name, values in request.POST.lists()
        if name not in ("csrfmiddlewaretoken", CONFIRMED)
        for value in values
    ]
    context = {
        "effects": found,
        "question": question,
        "yes": yes,
        "cancel_url": cancel_url,
        "then": then,
        "action_url": request.path,
        "fields": fields,
    }
    return render(request, "recall/pins_confirm.html", context)
