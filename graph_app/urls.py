from django.urls import path

from graph_app import views, views_curation

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
    path(
        "entities/<str:label>/<path:name>/neighbourhood/",
        views.neighbourhood,
        name="neighbourhood",
    ),
    path("entities/<str:label>/<path:name>/edit/", views_curation.entity_update, name="edit"),
    path("entities/<str:label>/<path:name>/delete/", views_curation.entity_delete, name="delete"),
    path("entities/<str:label>/<path:name>/", views.entity, name="entity"),
]
