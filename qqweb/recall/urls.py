from django.urls import path

from qqweb.recall import views

app_name = "recall"

urlpatterns = [
    path("", views.memory_tests, name="memory_tests"),
    path("run/", views.run_now, name="run"),
    path("run/<int:job_id>/cancel/", views.run_cancel, name="run_cancel"),
    path("pin/", views.pin, name="pin"),
    path("import/", views.pins_import_view, name="import"),
    path("pins/<int:pin_id>/unpin/", views.unpin, name="unpin"),
    path("runs/<int:run_id>/", views.run_detail, name="run_detail"),
]
