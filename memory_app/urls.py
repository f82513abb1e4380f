from django.urls import URLPattern, path

from memory_app import views
from qqweb.views import section_pending

app_name = "memory_app"


def _pending(route: str, name: str, title: str, summary: str) -> URLPattern:
    return path(route, section_pending, {"title": title, "summary": summary}, name=name)


urlpatterns = [
    path("", views.overview, name="overview"),
    _pending(
        "notes/", "notes", "Notes", "Browse, filter and search every note, with bulk actions."
    ),
    _pending(
        "review/",
        "review",
        "Review",
        "Review near-duplicate pairs side by side and merge or reject them.",
    ),
    _pending(
        "archive/",
        "archive",
        "Archive",
        "Search archive.jsonl, restore notes with their provenance, purge old lines.",
    ),
    _pending(
        "core/", "core", "Core", "core.md and notes.md by category, and promotion candidates."
    ),
    _pending(
        "maintenance/",
        "maintenance",
        "Maintenance",
        "Decay, dedup scan, archival, promotion scan, purge and re-embed jobs.",
    ),
]
