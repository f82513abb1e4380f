from django.urls import path

from memory_app.notes import (
    views,
    views_archive,
    views_audit,
    views_core,
    views_jobs,
    views_review,
)

app_name = "memory_app"


urlpatterns = [
    path("", views.overview, name="overview"),
    path("notes/", views.notes, name="notes"),
    path("notes/bulk/", views.notes_bulk, name="notes_bulk"),
    path("notes/new/", views.note_create, name="note_create"),
    path("notes/<str:note_id>/", views.note_detail, name="note_detail"),
    path("notes/<str:note_id>/edit/", views.note_edit, name="note_edit"),
    path("notes/<str:note_id>/archive/", views.note_archive, name="note_archive"),
    path("notes/<str:note_id>/keep/", views.note_keep, name="note_keep"),
    path("notes/<str:note_id>/promote/", views.note_promote, name="note_promote"),
    path("search/", views.search, name="search"),
    path("retrieval/", views.retrieval, name="retrieval"),
    path("audit/", views_audit.audit, name="audit"),
    path("audit/<int:event_id>/undo/", views_audit.audit_undo, name="audit_undo"),
    path(
        "audit/batches/<uuid:batch_id>/undo/", views_audit.audit_batch_undo, name="audit_batch_undo"
    ),
    path("archive/", views_archive.archive, name="archive"),
    path("archive/restore/", views_archive.archive_restore_many, name="archive_restore_many"),
    path("archive/purge/", views_archive.archive_purge, name="archive_purge"),
    path("archive/<str:note_id>/restore/", views_archive.archive_restore, name="archive_restore"),
    path("review/", views_review.review, name="review"),
    path("review/scan/", views_review.review_scan, name="review_scan"),
    path("review/back/", views_review.review_back, name="review_back"),
    path(
        "review/scan/<int:run_id>/", views_review.review_scan_progress, name="review_scan_progress"
    ),
    path("review/<int:pair_id>/verdict/", views_review.review_verdict, name="review_verdict"),
    path("review/<int:pair_id>/llm/", views_review.review_llm_text, name="review_llm_text"),
    path("core/", views_core.core, name="core"),
    path("core/add/", views_core.core_item_add, name="core_item_add"),
    path("core/remove/", views_core.core_item_remove, name="core_item_remove"),
    path("core/working/remove/", views_core.working_item_remove, name="working_item_remove"),
    path("core/working/edit/", views_core.working_item_edit, name="working_item_edit"),
    path("core/candidates/<str:note_id>/", views_core.candidate_verdict, name="candidate_verdict"),
    path("maintenance/", views_jobs.maintenance, name="maintenance"),
    path("maintenance/runs/<int:run_id>/", views_jobs.maintenance_run, name="maintenance_run"),
    path(
        "maintenance/schedule/<int:task_id>/",
        views_jobs.maintenance_schedule,
        name="maintenance_schedule",
    ),
    path(
        "maintenance/runs/<int:run_id>/apply/",
        views_jobs.maintenance_run_apply,
        name="maintenance_run_apply",
    ),
    path(
        "maintenance/runs/<int:run_id>/cancel/",
        views_jobs.maintenance_run_cancel,
        name="maintenance_run_cancel",
    ),
    path(
        "maintenance/runs/<int:run_id>/undo/",
        views_jobs.maintenance_run_undo,
        name="maintenance_run_undo",
    ),
    path("maintenance/<str:kind>/", views_jobs.maintenance_start, name="maintenance_start"),
]
