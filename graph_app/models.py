"""Django-side state of the knowledge graph: remembered duplicate-entity verdicts."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class EntityPairVerdict(models.Model):
    """A curator said two entities are not duplicates: the pair is not proposed again.
    Entities are named ``Label:name``; ``entity_a`` < ``entity_b``."""

    entity_a = models.CharField(max_length=400)
    entity_b = models.CharField(max_length=400)
    decided_by = models.CharField(max_length=200)
    decided_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["entity_a", "entity_b"], name="one_verdict_per_entities"
            )
        ]

    def __str__(self) -> str:
        return f"{self.entity_a} is not {self.entity_b}"
