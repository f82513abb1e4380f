"""Reading the configuration: the environment variables ``qqweb/settings.py`` names (the
only module that calls these, so nothing else in the project reads ``os.environ``), and
the options derived from them."""

from __future__ import annotations

import logging
import os
from typing import Any

import dj_database_url


def envstr(name: str, default: str) -> str:
    return os.environ.get(name, default)


def envbool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def envint(name: str, default: int) -> int:
    value = os.environ.get(name)
    return default if value in (None, "") else int(value)


def envfloat(name: str, default: float) -> float:
    value = os.environ.get(name)
    return default if value in (None, "") else float(value)


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in envstr(name, default).split(",") if item.strip()]


def database_config(url: str, sqlite_test_path: str) -> dict[str, Any]:
    """Django's ``DATABASES["default"]`` for ``url`` (DATABASE_URL): connections kept 60 s
    and checked before reuse (a PostgreSQL restarted meanwhile costs no request an error).
    On SQLite, the options for its one writer and a test database in a file,
    ``sqlite_test_path``; the tests' PostgreSQL (tests/plugins/database.py) comes through
    here too, so it runs with what production runs."""
    config: dict[str, Any] = dict(
        dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
    )
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # Under load (a dedup scan writing its pairs while people curate): WAL, so readers
        # never wait for the writer; a 20 s busy timeout; and transactions that take the
        # write lock when they begin (IMMEDIATE), so one never fails at once with
        # "database is locked" when it turns from reading to writing while another writes.
        config["OPTIONS"] = {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
        # The test database is a file (not :memory:) so a Celery worker started by the
        # tests reads and writes the same rows.
        config["TEST"] = {"NAME": sqlite_test_path}
    return config


def broker_transport_options(broker_url: str, visibility_timeout: int) -> dict[str, int]:
    """The visibility timeout for the brokers that take one (Redis, SQS); nothing for the
    others (kombu's SQLAlchemy transport would hand it to create_engine, which refuses it).

    On Redis a task whose worker died unacknowledged goes back to its queue only when a
    worker sweeps the unacked messages: kombu sweeps at a worker's start, then by default
    on every tenth tick of ten seconds, so a task could wait 100 s past its visibility
    timeout for a worker that started before it became visible (every worker that was
    already running when another died). Here every tick sweeps (``unacked_restore_throttle``
    1: one sorted-set range read), ticking every tenth of the timeout, at least every
    second and at most every ten."""
    scheme = broker_url.split("://", 1)[0]
    if scheme in ("redis", "rediss"):
        return {
            "visibility_timeout": visibility_timeout,
            "unacked_restore_interval": min(10, max(1, visibility_timeout // 10)),
            "unacked_restore_throttle": 1,
        }
    if scheme == "sqs":
        return {"visibility_timeout": visibility_timeout}
    return {}


class ClientErrorWithoutTraceback(logging.Filter):
    """A refused request (4xx: a viewer's 403, a 404) is one line, "Forbidden (Permission
    denied): /path": Django logs it with the exception's traceback, which is the user's
    mistake, not the program's. A 5xx keeps its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", 500) < 500:
            record.exc_info, record.exc_text = None, None
        return True


def logging_config(level: str) -> dict[str, object]:
    """Django's LOGGING: every record to the console once, at ``level`` (``LOG_LEVEL``).
    Quiet where it only repeats: one line per problem, no line per request (runserver's
    request log shows 5xx answers only; a 4xx is Django's one "Not Found: /path" line),
    no traceback for a refused request, no django-axes line per successful login."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"client_errors": {"()": ClientErrorWithoutTraceback}},
        "formatters": {
            "django.server": {
                "()": "django.utils.log.ServerFormatter",
                "format": "[{server_time}] {message}",
                "style": "{",
            }
        },
        "handlers": {
            "console": {"class": "logging.StreamHandler", "filters": ["client_errors"]},
            "django.server": {"class": "logging.StreamHandler", "formatter": "django.server"},
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Django's own console handler (on with DEBUG) goes: its records reach the root's,
            # which printed them a second time ("Watching for file changes" twice in `make dev`).
            # Configuring "django" resets its children, so runserver's request log is set
            # again as Django has it (its own handler and format, not propagated).
            "django": {"handlers": [], "level": "INFO"},
            "django.server": {"handlers": ["django.server"], "level": "ERROR", "propagate": False},
            "axes": {"level": "WARNING"},
            "neo4j": {"level": "WARNING"},
            "pymongo": {"level": "WARNING"},
        },
    }
