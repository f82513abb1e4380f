# The runs and job locks moved here from memory_app (MaintenanceRun, JobLock), as issue 26
# gathered the run lifecycle into one jobs app. Their tables keep their names
# (memory_app_maintenancerun, memory_app_joblock: ``db_table`` on the models), so this
# migration only adds the models to the migration state: the database has the tables from
# memory_app's 0003/0004/0007, with every run in them, and memory_app's 0008 drops the
# models from its state. Nothing is copied, renamed or dropped: an existing database
# migrates forward with every run, plan and lock it holds.

import uuid

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

MOVED = (("maintenancerun", "run"), ("joblock", "joblock"))


def move_content_types(apps, schema_editor):
    """Keep the content type rows (and the permissions and admin log entries on them)."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    for old, new in MOVED:
        if not ContentType.objects.filter(app_label="jobs", model=new).exists():
            ContentType.objects.filter(app_label="memory_app", model=old).update(
                app_label="jobs", model=new
            )


def move_content_types_back(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for old, new in MOVED:
        if not ContentType.objects.filter(app_label="memory_app", model=old).exists():
            ContentType.objects.filter(app_label="jobs", model=new).update(
                app_label="memory_app", model=old
            )


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("memory_app", "0007_run_plans_cancel_undo"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Run',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(db_index=True, max_length=40)),
                        ('started_by', models.CharField(max_length=200)),
                        ('params', models.JSONField(blank=True, default=dict)),
                        ('dry_run', models.BooleanField(default=False)),
                        ('status', models.CharField(choices=[('queued', 'queued'), ('running', 'running'), ('done', 'done'), ('failed', 'failed'), ('cancelled', 'cancelled')], default='queued', max_length=10)),
                        ('processed', models.PositiveIntegerField(default=0)),
                        ('total', models.PositiveIntegerField(blank=True, null=True)),
                        ('stats', models.JSONField(blank=True, default=dict)),
                        ('error', models.TextField(blank=True)),
                        ('task_id', models.CharField(blank=True, max_length=64)),
                        ('batch_id', models.UUIDField(db_index=True, default=uuid.uuid4)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('heartbeat_at', models.DateTimeField(blank=True, null=True)),
                        ('cancel_requested_at', models.DateTimeField(blank=True, null=True)),
                        ('cancelled_by', models.CharField(blank=True, max_length=200)),
                        ('plan', models.JSONField(blank=True, null=True)),
                        ('plan_size', models.PositiveIntegerField(blank=True, null=True)),
                        ('plan_of', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='applications', to='jobs.run')),
                        ('undo_of', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='undo_runs', to='jobs.run')),
                    ],
                    options={
                        'db_table': 'memory_app_maintenancerun',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='JobLock',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(max_length=40, unique=True)),
                        ('expires_at', models.DateTimeField()),
                        ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='jobs.run')),
                    ],
                    options={
                        'db_table': 'memory_app_joblock',
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
