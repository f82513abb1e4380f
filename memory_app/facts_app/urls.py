from django.urls import path

from memory_app.facts_app import views

app_name = "facts_app"

urlpatterns = [
    path("", views.facts_list, name="facts"),
    path("next-start/", views.next_start, name="next_start"),
    path("lint/", views.lint, name="lint"),
    path("<str:fact_id>/", views.fact_detail, name="fact_detail"),
]
