from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from memory_app.notes.services.jobs import schedules_ensure
from qqweb.services import admin_ensure, roles_ensure


class Command(BaseCommand):
    help = (
        "Create the viewer / curator / admin groups and an admin login. A new admin's "
        "password is printed once and kept in var/admin-credentials.txt (mode 600)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        created = roles_ensure()
        if created:
            self.stdout.write(f"Created roles: {', '.join(created)}")
        if schedules_ensure():
            self.stdout.write("Created the default job schedule (see the Jobs page).")
        username = settings.QQ_ADMIN_USERNAME
        _, password = admin_ensure(username=username, password=settings.QQ_ADMIN_PASSWORD)
        credentials = Path(settings.VAR_DIR) / "admin-credentials.txt"
        if password is not None:
            credentials.parent.mkdir(parents=True, exist_ok=True)
            credentials.write_text(f"username: {username}\npassword: {password}\n")
            credentials.chmod(0o600)
            self.stdout.write(self.style.SUCCESS(f"Admin login created: {username} / {password}"))
        elif credentials.exists():
            self.stdout.write(f"Admin login: see {credentials}")
        else:
            self.stdout.write(f"Admin login '{username}' exists already.")
