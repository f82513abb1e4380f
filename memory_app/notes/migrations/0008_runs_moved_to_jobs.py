# MaintenanceRun and JobLock now belong to the jobs app (qqweb/jobs: Run, JobLock), which
# took them over in its 0001 with the same tables. Here they only leave memory_app's
# migration state: no table changes, no run lost.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memory_app", "0007_run_plans_cancel_undo"),
        ("jobs", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(model_name="maintenancerun", name="plan_of"),
                migrations.RemoveField(model_name="maintenancerun", name="undo_of"),
                migrations.DeleteModel(name="JobLock"),
                migrations.DeleteModel(name="MaintenanceRun"),
            ],
            database_operations=[],
        ),
    ]
