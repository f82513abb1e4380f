from django.urls import path

from memory_app.facts import views, views_curation

app_name = "facts_app"

urlpatterns = [
    path("", views.facts_list, name="facts"),
    path("new/", views_curation.fact_new, name="fact_new"),
    path("next-start/", views.next_start, name="next_start"),
    path("next-start/resolve/", views_curation.pair_resolve, name="pair_resolve"),
    path("lint/", views.lint, name="lint"),
    path("archive/", views_curation.archive, name="archive"),
    path(
        "archive/<int:archive_id>/restore/",
        views_curation.archive_restore,
        name="archive_restore",
    ),
    path("contradictions/", views_curation.contradictions, name="contradictions"),
    path(
        "contradictions/verdict/",
        views_curation.contradiction_verdict,
        name="contradiction_verdict",
    ),
    path("vanished/", views_curation.vanished, name="vanished"),
    path("vanished/scan/", views_curation.vanished_scan, name="vanished_scan"),
    path("<str:fact_id>/", views.fact_detail, name="fact_detail"),
    path("<str:fact_id>/edit/", views_curation.fact_edit, name="fact_edit"),
    path("<str:fact_id>/delete/", views_curation.fact_delete, name="fact_delete"),
    path("<str:fact_id>/embed/", views_curation.fact_embed, name="fact_embed"),
]
