# AuditEvent now belongs to the audit app (qqweb/audit), which took it over in its 0001
# with the same table. Here it only leaves memory_app's migration state: no table changes.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memory_app", "0004_job_batches_and_locks"),
        ("audit", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="AuditEvent")],
            database_operations=[],
        ),
    ]
