"""``{{ message|undo_target }}``: what a message's Undo button undoes (qqweb.messages)."""

from __future__ import annotations

from django import template
from django.contrib.messages.storage.base import Message

from qqweb.messages import UndoTarget
from qqweb.messages import undo_target as _undo_target

register = template.Library()


@register.filter
def undo_target(message: Message) -> UndoTarget | None:
    return _undo_target(message)
