from django.urls import path, register_converter

from graph_app import views, views_curation


class EntityNameConverter:
    """An entity's name as the agent wrote it: any characters, "/" and line breaks
    included (Django's ``path`` converter stops at a newline, so a name holding one could
    not be linked to, and every page listing it failed)."""

    regex = r"[\s\S]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(EntityNameConverter, "entity_name")

app_name = "graph_app"

# Names may hold "/" (files are entities too), so the routes with a suffix come first.
urlpatterns = [
    path("", views.index, name="index"),
    path("entities/", views.entities, name="entities"),
    path("names/", views.entity_names, name="entity_names"),
    path("search/", views.search, name="search"),
    path("orphans/", views.orphans, name="orphans"),
    path("duplicates/", views_curation.duplicates, name="duplicates"),
    path("duplicates/verdict/", views_curation.duplicates_verdict, name="duplicates_verdict"),
    path("merge/", views_curation.entity_merge, name="merge"),
    path("relationships/", views_curation.relationship_change, name="relationship_change"),
    path("relationships/list/", views.relationships, name="relationships"),
    path(
        "entities/<str:label>/<entity_name:name>/neighbourhood/",
        views.neighbourhood,
        name="neighbourhood",
    ),
    path(
        "entities/<str:label>/<entity_name:name>/edit/", views_curation.entity_update, name="edit"
    ),
    path(
        "entities/<str:label>/<entity_name:name>/delete/",
        views_curation.entity_delete,
        name="delete",
    ),
    path("entities/<str:label>/<entity_name:name>/", views.entity, name="entity"),
]
