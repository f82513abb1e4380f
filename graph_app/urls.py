from django.urls import path

from graph_app import views

app_name = "graph_app"

urlpatterns = [
    path("", views.index, name="index"),
    path("entities/", views.entities, name="entities"),
    path("entities/<str:label>/<path:name>/", views.entity, name="entity"),
]
