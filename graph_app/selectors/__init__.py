"""Reads over the knowledge graph, shaped for pages and the API."""

from .browse import (
    EntitiesPage,
    EntityDetail,
    entities_page,
    entity_detail,
    entity_lookup,
    entity_renamed_to,
    orphans,
)
from .duplicates import DuplicateCandidate, duplicate_candidates
from .neighbourhoods import NEIGHBOURHOOD_MAX, SOURCES_SHOWN, Neighbourhood, neighbourhood
from .notes import notes_mentioning
from .overview import GraphOverview, graph_overview
from .search import EntitySearch, entities_search

__all__ = [
    "NEIGHBOURHOOD_MAX",
    "SOURCES_SHOWN",
    "DuplicateCandidate",
    "EntitiesPage",
    "EntityDetail",
    "EntitySearch",
    "GraphOverview",
    "Neighbourhood",
    "duplicate_candidates",
    "entities_page",
    "entities_search",
    "entity_detail",
    "entity_lookup",
    "entity_renamed_to",
    "graph_overview",
    "neighbourhood",
    "notes_mentioning",
    "orphans",
]
