"""Reads over the knowledge graph, shaped for pages and the API."""

from graph_app.selectors.browse import (
    EntitiesPage,
    EntityDetail,
    entities_page,
    entity_detail,
    entity_lookup,
    entity_renamed_back,
    entity_renamed_to,
    orphans,
    relationships_page,
)
from graph_app.selectors.duplicates import DuplicateCandidate, duplicate_candidates
from graph_app.selectors.neighbourhoods import (
    NEIGHBOURHOOD_MAX,
    SOURCES_SHOWN,
    Neighbourhood,
    neighbourhood,
)
from graph_app.selectors.notes import notes_mentioning
from graph_app.selectors.overview import GraphOverview, graph_overview
from graph_app.selectors.search import EntitySearch, entities_search

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
    "entity_renamed_back",
    "entity_renamed_to",
    "graph_overview",
    "neighbourhood",
    "notes_mentioning",
    "orphans",
    "relationships_page",
]
