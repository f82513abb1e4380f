from django.urls import path

from graph_app import views

app_name = "graph_app"

urlpatterns = [
    path("", views.index, name="index"),
]
