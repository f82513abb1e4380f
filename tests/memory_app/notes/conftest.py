"""Fixtures shared by test files of this folder."""

from tests.memory_app.notes.dedup_planted import planted

__all__ = ["planted"]
