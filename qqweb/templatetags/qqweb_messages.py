"""``{{ message|undo_target }}``: what a message's Undo button undoes (qqweb.audit.messages)."""

from __future__ import annotations

from django import template
from django.contrib.messages.storage.base import Message

from qqweb.audit.messages import UndoTarget
from qqweb.audit.messages import undo_target as _undo_target

register = template.Library()


@register.filter
def undo_target(message: Message) -> UndoTarget | None:
    return _undo_target(message)
