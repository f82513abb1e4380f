from django.urls import path

from qqweb.backup import views

app_name = "backup"

urlpatterns = [
    path("", views.backup, name="backup"),
    path("export/", views.export_start, name="export"),
    path("upload/", views.upload, name="upload"),
    path("import/", views.import_start, name="import"),
    path("files/<str:name>", views.file_download, name="file"),
    path("runs/<int:run_id>/", views.run, name="run"),
]
