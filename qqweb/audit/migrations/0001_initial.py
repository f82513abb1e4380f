# AuditEvent moved here from memory_app. Its table keeps its name (memory_app_auditevent),
# so this migration only adds the model to the migration state: the database already has
# the table from memory_app's 0001, and memory_app's 0005 drops the model from its state.

import uuid

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def move_content_type(apps, schema_editor):
    """Keep the content type row (and the permissions and admin log entries on it)."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label="audit", model="auditevent").exists():
        ContentType.objects.filter(app_label="memory_app", model="auditevent").update(
            app_label="audit"
        )


def move_content_type_back(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label="memory_app", model="auditevent").exists():
        ContentType.objects.filter(app_label="audit", model="auditevent").update(
            app_label="memory_app"
        )


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("memory_app", "0004_job_batches_and_locks"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "created_at",
                            models.DateTimeField(
                                db_index=True, default=django.utils.timezone.now
                            ),
                        ),
                        ("actor", models.CharField(db_index=True, max_length=200)),
                        ("action", models.CharField(db_index=True, max_length=50)),
                        ("target_type", models.CharField(max_length=20)),
                        ("target_id", models.CharField(db_index=True, max_length=300)),
                        ("before", models.JSONField(blank=True, null=True)),
                        ("after", models.JSONField(blank=True, null=True)),
                        ("batch_id", models.UUIDField(db_index=True, default=uuid.uuid4)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "pending"),
                                    ("done", "done"),
                                    ("failed", "failed"),
                                ],
                                default="pending",
                                max_length=10,
                            ),
                        ),
                        ("detail", models.TextField(blank=True)),
                        ("undone_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "actor_user",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "undo_of",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="undo_events",
                                to="audit.auditevent",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "memory_app_auditevent",
                        "ordering": ["-created_at", "-id"],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_type, move_content_type_back),
    ]
