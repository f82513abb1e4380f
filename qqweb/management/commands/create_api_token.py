from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from qqweb.services import api_token_create


class Command(BaseCommand):
    help = "Create an API token for a user and print it (it is not stored in clear)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", required=True, help="what the token is for")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no user named {options['username']!r}")
        _, raw = api_token_create(user=user, name=options["name"])
        self.stdout.write(raw)
