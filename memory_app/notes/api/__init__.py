"""JSON front door of the notes: a ninja router added to ``qqweb.api``. Every function
checks the role, converts its input and calls one selector or service. The routes live
in one module per sub-domain; importing them registers them on ``router`` in this order."""

from memory_app.notes.api import archive, audit, core, maintenance, notes, review
from memory_app.notes.api.common import router

__all__ = ["archive", "audit", "core", "maintenance", "notes", "review", "router"]
