"""qqweb settings: every knob is an environment variable named and defaulted here.

Nothing else in the project reads ``os.environ``. The defaults are the "embedded" shape
(SQLite, SecantusDB on localhost, Neo4j from ``scripts/neo4j.sh``, a broker with no server,
the packaged all-MiniLM-L6-v2 model), so ``make dev`` needs no configuration at all.
The names that the qq agent itself reads (``MONGODB_URI``, ``NEO4J_*``, ``MEMORY_DIR``,
``TEI_URL``, ``QQ_*``) keep the agent's names and defaults.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"


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


def broker_transport_options(broker_url: str, visibility_timeout: int) -> dict[str, int]:
    """The visibility timeout for the brokers that take one (Redis, SQS); nothing for the
    others (kombu's SQLAlchemy transport would hand it to create_engine, which refuses it)."""
    if broker_url.split("://", 1)[0] in ("redis", "rediss", "sqs"):
        return {"visibility_timeout": visibility_timeout}
    return {}


# --- Django core -------------------------------------------------------------------------

DEBUG = envbool("DEBUG", False)
SECRET_KEY = envstr("SECRET_KEY", "qqweb-dev-only-secret-key-change-me-in-production")
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "django_celery_beat",
    "qqweb",
    "qqweb.audit",
    "memory_app",
    "memory_app.facts_app",
    "graph_app",
    "qqweb.backup",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "qqweb.auth.LoginRequiredMiddleware",
    "qqweb.middleware.StoreDownMiddleware",
]

ROOT_URLCONF = "qqweb.urls"
WSGI_APPLICATION = "qqweb.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "qqweb.context_processors.navigation",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        envstr("DATABASE_URL", f"sqlite:///{VAR_DIR / 'qqweb.sqlite3'}"), conn_max_age=60
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {"timeout": 20}
    # The test database is a file (not :memory:) so a Celery worker started by the tests
    # reads and writes the same rows.
    DATABASES["default"]["TEST"] = {
        "NAME": envstr("QQ_TEST_DATABASE_PATH", str(VAR_DIR / "test-qqweb.sqlite3"))
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = envstr("TIME_ZONE", "UTC")
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
WHITENOISE_USE_FINDERS = True

SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")},
    "loggers": {"neo4j": {"level": "WARNING"}, "pymongo": {"level": "WARNING"}},
}

# --- Stores (names and defaults of the qq agent) -----------------------------------------

MONGODB_URI = envstr("MONGODB_URI", "mongodb://localhost:27017")
QQ_MONGO_DB = envstr("QQ_MONGO_DB", "qq_memory")
QQ_MONGO_COLLECTION = envstr("QQ_MONGO_COLLECTION", "notes")
# How long a store may take to answer before it is reported down (milliseconds).
QQ_STORE_TIMEOUT_MS = envint("QQ_STORE_TIMEOUT_MS", 2000)
# Exports are written here, and uploaded imports kept here (the Backup page lists them).
QQ_BACKUP_DIR = Path(envstr("QQ_BACKUP_DIR", str(VAR_DIR / "backups"))).expanduser()

# --- The second agent's facts store (seed 004, facts-data-contract.md) -------------------
# Unset URI: the facts pages are off and not in the navigation. The agent itself reads
# MONGO_URI and takes the database from its path; QQ_FACTS_MONGO_DB overrides that here
# (neither: a system check error). The agent's collection name is fixed: "memories".
QQ_FACTS_MONGO_URI = envstr("QQ_FACTS_MONGO_URI", "")
QQ_FACTS_MONGO_DB = envstr("QQ_FACTS_MONGO_DB", "")
QQ_FACTS_COLLECTION = envstr("QQ_FACTS_COLLECTION", "memories")

NEO4J_URI = envstr("NEO4J_URI", "bolt://localhost:7687")
NEO4J_USER = envstr("NEO4J_USER", "neo4j")
NEO4J_PASSWORD = envstr("NEO4J_PASSWORD", "")
NEO4J_DATABASE = envstr("NEO4J_DATABASE", "neo4j")

MEMORY_DIR = Path(envstr("MEMORY_DIR", str(VAR_DIR / "memory"))).expanduser()

# --- Embeddings --------------------------------------------------------------------------
# QQ_EMBEDDING_BACKEND: "sentence-transformers" (a local model name or path), "openai"
# (an OpenAI-compatible /v1/embeddings endpoint, like the agent's TEI service) or
# "hashing" (deterministic bag-of-words vectors, for tests and machines with no model).

QQ_EMBEDDING_BACKEND = envstr("QQ_EMBEDDING_BACKEND", "sentence-transformers")
QQ_EMBEDDING_MODEL = envstr("QQ_EMBEDDING_MODEL", "all-MiniLM-L6-v2")
TEI_URL = envstr("TEI_URL", "http://localhost:8101/v1")
QQ_EMBEDDING_API_KEY = envstr("QQ_EMBEDDING_API_KEY", "")
QQ_EMBEDDING_DIMENSION = envint("QQ_EMBEDDING_DIMENSION", 384)  # used by "hashing" only
QQ_EMBEDDING_TIMEOUT_S = envfloat("QQ_EMBEDDING_TIMEOUT_S", 30.0)
# Local models load from disk only: no hub downloads at run time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# --- Memory maintenance (the seeds' variables and defaults) ------------------------------

QQ_CORE_THRESHOLD = envfloat("QQ_CORE_THRESHOLD", 0.8)
QQ_ARCHIVE_THRESHOLD = envfloat("QQ_ARCHIVE_THRESHOLD", 0.05)
QQ_MIN_RETRIEVAL_IMPORTANCE = envfloat("QQ_MIN_RETRIEVAL_IMPORTANCE", 0.2)
QQ_BASE_DECAY_RATE = envfloat("QQ_BASE_DECAY_RATE", 0.01)
QQ_DEDUP_THRESHOLD = envfloat("QQ_DEDUP_THRESHOLD", 0.85)
# Entities whose "name: description" embeddings are at least this similar are proposed as
# duplicate candidates on the graph's Duplicates page.
QQ_GRAPH_DUPLICATE_THRESHOLD = envfloat("QQ_GRAPH_DUPLICATE_THRESHOLD", 0.9)
QQ_MAX_WORKING_NOTES = envint("QQ_MAX_WORKING_NOTES", 100)
QQ_ARCHIVE_RETENTION_DAYS = envint("QQ_ARCHIVE_RETENTION_DAYS", 90)
QQ_CITE_THRESHOLD = envfloat("QQ_CITE_THRESHOLD", 0.3)
# An OpenAI-compatible chat endpoint for LLM merges of duplicates (empty: simple merge).
QQ_LLM_URL = envstr("QQ_LLM_URL", "")
QQ_LLM_MODEL = envstr("QQ_LLM_MODEL", "")
QQ_LLM_API_KEY = envstr("QQ_LLM_API_KEY", "")
# First retry of a job whose store is down, in seconds (then doubled, 3 retries).
QQ_JOB_RETRY_BASE_S = envfloat("QQ_JOB_RETRY_BASE_S", 10.0)
# Name of a $vectorSearch index (Atlas, MongoDB 8.2+ with mongot); empty: in-process index.
QQ_VECTOR_SEARCH_INDEX = envstr("QQ_VECTOR_SEARCH_INDEX", "")

# --- Celery ------------------------------------------------------------------------------
# With no CELERY_BROKER_URL the broker is kombu's SQLAlchemy transport on a SQLite file:
# nothing to install or start. Production and the tests use Redis.

CELERY_BROKER_URL = envstr(
    "CELERY_BROKER_URL", f"sqla+sqlite:///{VAR_DIR / 'celery-broker.sqlite3'}"
)
CELERY_RESULT_BACKEND = envstr(
    "CELERY_RESULT_BACKEND", f"db+sqlite:///{VAR_DIR / 'celery-results.sqlite3'}"
)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = TIME_ZONE
# A task whose worker died unacknowledged is handed out again after this many seconds
# (Redis and SQS brokers). Kombu's SQLAlchemy transport hands its options to
# SQLAlchemy's create_engine, which refuses this one: the worker would die at start.
CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(
    CELERY_BROKER_URL, envint("QQ_BROKER_VISIBILITY_TIMEOUT", 3600)
)
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"

# --- Demo / dev --------------------------------------------------------------------------

QQ_ADMIN_USERNAME = envstr("QQ_ADMIN_USERNAME", "admin")
QQ_ADMIN_PASSWORD = envstr("QQ_ADMIN_PASSWORD", "")
