"""qqweb settings: every knob an operator may turn is an environment variable named and
defaulted here, and has its row in docs/configuration.md (``scripts/check_docs.py`` checks
the table against this file).

Nothing else in the project reads ``os.environ``. The defaults are the "embedded" shape
(SQLite, SecantusDB on localhost, Neo4j from ``scripts/neo4j.sh``, a broker with no server,
the packaged all-MiniLM-L6-v2 model), so ``make dev`` needs no configuration at all.
The names that the qq agent itself reads (``MONGODB_URI``, ``NEO4J_*``, ``MEMORY_DIR``,
``TEI_URL``, ``QQ_*``) keep the agent's names and defaults.

What is a setting here and what is a module constant (beside the code it tunes): the
rule is in docs/configuration.md ("Settings and constants").
"""

from __future__ import annotations

import os
from pathlib import Path

from qqweb.lib.config import (
    broker_transport_options,
    database_config,
    envbool,
    envfloat,
    envint,
    envlist,
    envstr,
    logging_config,
)

BASE_DIR = Path(__file__).resolve().parent.parent


# Local state (SQLite databases, the memory directory, the vector index, logs, `make dev`'s
# stores): QQ_VAR_DIR, default var/ in the repository. scripts/dev.sh keeps its data there.
VAR_DIR = Path(envstr("QQ_VAR_DIR", "") or BASE_DIR / "var").resolve()
# scripts/dev.sh says here what it is still starting (qqweb/dev_startup.py).
DEV_STARTING_FILE = VAR_DIR / "dev-starting.json"


# --- Django core -------------------------------------------------------------------------

DEBUG = envbool("DEBUG", False)
# Public, for development only: with DEBUG off the web server refuses to start with it
# (qqweb/lib/security.py, called by qqweb/wsgi.py; `check --deploy` reports qqweb.E001).
DEV_SECRET_KEY = "qqweb-dev-only-secret-key-change-me-in-production"  # noqa: S105 - public
SECRET_KEY = envstr("SECRET_KEY", DEV_SECRET_KEY)
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "qqweb.admin_site.QQAdminConfig",  # Django admin for the admin role (admin_site.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    # django-ninja ships Swagger UI: with its app installed, /api/docs serves it from our
    # static files instead of a CDN, so the docs work offline.
    "ninja",
    "template_partials",
    "django_celery_beat",
    "axes",
    "django_ratelimit",
    "qqweb",
    "qqweb.audit",
    "qqweb.jobs",
    "qqweb.recall",
    "memory_app.notes",
    "memory_app.facts",
    "graph_app",
    "qqweb.backup",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "qqweb.middleware.PlainNotFoundMiddleware",  # DEBUG only: no technical 404 (URL list)
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "qqweb.middleware.UploadLimitMiddleware",  # before anything reads the body
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "qqweb.lib.auth.LoginRequiredMiddleware",
    "qqweb.middleware.QQErrorMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

# django-axes first: it counts failed logins and refuses a locked-out login before any
# password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
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

# SQLite by default; PostgreSQL (`postgres://...`, the `postgres` extra) in production.
# The options for each: qqweb/lib/config.py, database_config.
DATABASES = {
    "default": database_config(
        envstr("DATABASE_URL", f"sqlite:///{VAR_DIR / 'qqweb.sqlite3'}"),
        sqlite_test_path=envstr("QQ_TEST_DATABASE_PATH", str(VAR_DIR / "test-qqweb.sqlite3")),
    )
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

# --- Security: HTTPS, login throttling, API token rate limits (README "Security") -------
# QQ_HTTPS=1 when the site is served over HTTPS (production): secure session and CSRF
# cookies, a redirect of plain HTTP to HTTPS (/healthz excepted, for health checks from
# inside the network) and HSTS. Behind a proxy that terminates TLS, the proxy must set
# QQ_TLS_PROXY_HEADER (default X-Forwarded-Proto: https) and strip it from clients;
# set it empty when gunicorn itself terminates TLS.
QQ_HTTPS = envbool("QQ_HTTPS", False)
QQ_TLS_PROXY_HEADER = envstr("QQ_TLS_PROXY_HEADER", "X-Forwarded-Proto")
if QQ_HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = envint("QQ_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("QQ_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = envbool("QQ_HSTS_PRELOAD", True)
    if QQ_TLS_PROXY_HEADER:
        SECURE_PROXY_SSL_HEADER = (
            "HTTP_" + QQ_TLS_PROXY_HEADER.upper().replace("-", "_"),
            "https",
        )
# The request header that holds the client's address when a proxy sets it (e.g. X-Real-IP);
# empty: the connection's address. Login lockouts and rate limits count per address.
QQ_CLIENT_IP_HEADER = envstr("QQ_CLIENT_IP_HEADER", "")

# Login throttling (django-axes, counted in the database, so every process sees them): after
# QQ_LOGIN_FAILURE_LIMIT wrong passwords for one username from one address, that pair is
# refused (429) for QQ_LOGIN_COOLOFF_MINUTES, even with the right password.
AXES_FAILURE_LIMIT = envint("QQ_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = envint("QQ_LOGIN_COOLOFF_MINUTES", 15) / 60  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "qqweb.lib.security.login_client_ip"
AXES_VERBOSE = False

# API token rate limits (django-ratelimit, counted in the default cache): a token may make
# QQ_API_TOKEN_RATE requests, and an address QQ_API_TOKEN_FAILURE_RATE requests with the
# same unknown or revoked token (ten times that with any), before it is answered 429. A
# valid token is checked first and is never refused for others' failures. The counts need
# a cache every process shares: QQ_CACHE_URL (redis://...) in production; without it each
# process counts alone.
QQ_API_TOKEN_RATE = envstr("QQ_API_TOKEN_RATE", "600/m")
QQ_API_TOKEN_FAILURE_RATE = envstr("QQ_API_TOKEN_FAILURE_RATE", "20/m")
QQ_CACHE_URL = envstr("QQ_CACHE_URL", "")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": QQ_CACHE_URL}
        if QQ_CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
RATELIMIT_IP_META_KEY = "qqweb.lib.security.client_ip"
# django-ratelimit names only memcached and django-redis: Django's own Redis cache does
# atomic increments too (W001), and the per-process memory cache is the choice of a
# development server without QQ_CACHE_URL (E003).
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.W001", "django_ratelimit.E003"]

LOGGING = logging_config(envstr("LOG_LEVEL", "INFO"))

# --- Stores (names and defaults of the qq agent) -----------------------------------------

MONGODB_URI = envstr("MONGODB_URI", "mongodb://localhost:27017")
QQ_MONGO_DB = envstr("QQ_MONGO_DB", "qq_memory")
QQ_MONGO_COLLECTION = envstr("QQ_MONGO_COLLECTION", "notes")
# How long a store may take to answer before it is reported down (milliseconds).
QQ_STORE_TIMEOUT_MS = envint("QQ_STORE_TIMEOUT_MS", 2000)
# Exports are written here, and uploaded imports kept here (the Backup page lists them).
QQ_BACKUP_DIR = Path(envstr("QQ_BACKUP_DIR", str(VAR_DIR / "backups"))).expanduser()
# The largest upload (multipart/form-data body) taken, in MB; a larger one is answered 413
# before it is read. An export holds about 8.5 KB a note with 384-d vectors and 22 KB with
# 1024-d ones, so 512 MB takes about 60,000 or 23,000 notes (kept once in QQ_BACKUP_DIR,
# once more in a temporary file while it arrives). Larger exports: copy the file into
# QQ_BACKUP_DIR, or run `manage.py import_memory PATH`.
QQ_UPLOAD_MAX_MB = envint("QQ_UPLOAD_MAX_MB", 512)

# --- The second agent's facts store (seed 004, facts-data-contract.md) -------------------
# Unset URI: the facts pages are off and not in the navigation. The agent itself reads
# MONGO_URI and takes the database from its path; QQ_FACTS_MONGO_DB overrides that here
# (neither: a system check error). The agent's collection name is fixed: "memories".
QQ_FACTS_MONGO_URI = envstr("QQ_FACTS_MONGO_URI", "")
QQ_FACTS_MONGO_DB = envstr("QQ_FACTS_MONGO_DB", "")
QQ_FACTS_COLLECTION = envstr("QQ_FACTS_COLLECTION", "memories")
# The vanished-facts scan (contract 4.8) runs this often from beat (seconds; 0: never).
QQ_FACTS_SCAN_INTERVAL_S = envint("QQ_FACTS_SCAN_INTERVAL_S", 300)

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
# What runs a sentence-transformers model: "auto" (default) runs a model directory the
# numpy encoder supports (BERT + mean pooling + Normalize, as the packaged all-MiniLM-L6-v2)
# in numpy, anything else through sentence-transformers; "numpy" only the numpy encoder;
# "torch" always sentence-transformers. Why: importing torch and sentence-transformers takes
# ~27 s in a fresh process here, the numpy encoder ~1 s to its first vector, same vectors
# (qqweb/lib/embeddings_numpy.py). sentence-transformers and torch are the optional
# `torch` extra (`uv sync --frozen --extra torch`, image: `--build-arg EXTRAS=torch`), not in
# the default install: without it "torch", and a model the numpy encoder cannot run, are
# reported unavailable with that command.
QQ_EMBEDDING_ENGINE = envstr("QQ_EMBEDDING_ENGINE", "auto")
# Local models load from disk only: no hub downloads at run time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# --- Memory maintenance (the seeds' variables and defaults) ------------------------------

QQ_CORE_THRESHOLD = envfloat("QQ_CORE_THRESHOLD", 0.8)
QQ_ARCHIVE_THRESHOLD = envfloat("QQ_ARCHIVE_THRESHOLD", 0.05)
QQ_MIN_RETRIEVAL_IMPORTANCE = envfloat("QQ_MIN_RETRIEVAL_IMPORTANCE", 0.2)
QQ_BASE_DECAY_RATE = envfloat("QQ_BASE_DECAY_RATE", 0.01)
QQ_DEDUP_THRESHOLD = envfloat("QQ_DEDUP_THRESHOLD", 0.85)
# The full dedup scan in blocks every worker shares (memory_app/notes/lib/dedup/pair_queue.py):
# where the scan's snapshot and blocks live (every worker must reach it, like QQ_VECTOR_DIR), and
# the size from which candidates are pruned through k-means cells instead of compared
# exactly (set it higher for exact full scans: docs/scale-and-benchmarks.md). The scores
# per block and the block tasks queued are constants (PAIRS_PER_BLOCK, BLOCK_TASKS).
QQ_DEDUP_SCAN_DIR = Path(envstr("QQ_DEDUP_SCAN_DIR", str(VAR_DIR / "dedup-scans")))
QQ_DEDUP_EXACT_BELOW = envint("QQ_DEDUP_EXACT_BELOW", 20_000)
# The incremental dedup scan compares the notes changed since the last complete scan
# started, minus this margin: the agent stamps updated_at with its own clock.
QQ_DEDUP_CLOCK_MARGIN_S = envint("QQ_DEDUP_CLOCK_MARGIN_S", 300)
# The incremental dedup scan takes the unchanged notes' vectors from the vector index's saved
# snapshot (under QQ_VECTOR_DIR) and reads from MongoDB only the notes changed since it; the
# full scan takes every vector from the worker's vector index once it is in step with
# MongoDB (its snapshot and the notes changed since); off (or with no snapshot), both read
# every vector from MongoDB.
QQ_DEDUP_FROM_SNAPSHOT = envbool("QQ_DEDUP_FROM_SNAPSHOT", True)
# Threads a background job (the dedup scan, auto-consolidation) spreads the pair judge's
# batches over; pages judge on their own thread. Default: one per core.
QQ_JUDGE_THREADS = envint("QQ_JUDGE_THREADS", os.cpu_count() or 1)
# Entities whose "name: description" embeddings are at least this similar are proposed as
# duplicate candidates on the graph's Duplicates page.
QQ_GRAPH_DUPLICATE_THRESHOLD = envfloat("QQ_GRAPH_DUPLICATE_THRESHOLD", 0.9)
QQ_MAX_WORKING_NOTES = envint("QQ_MAX_WORKING_NOTES", 100)
# Auto-consolidation merges, unattended, only the pairs at least this similar (and never a
# pair whose texts differ in a value: qqweb/lib/differences.py); the review queue's
# QQ_DEDUP_THRESHOLD is lower because a curator judges each pair there.
QQ_CONSOLIDATION_THRESHOLD = envfloat("QQ_CONSOLIDATION_THRESHOLD", 0.95)
# A scheduled decay, archival, purge or auto-consolidation keeps its plan for an admin to
# apply; a schedule an admin opts into applying on its own still stops and waits when its
# plan would change more than this share of the notes (of the archive's lines: a purge).
QQ_SCHEDULE_MAX_SHARE = envfloat("QQ_SCHEDULE_MAX_SHARE", 0.05)
QQ_ARCHIVE_RETENTION_DAYS = envint("QQ_ARCHIVE_RETENTION_DAYS", 90)
QQ_CITE_THRESHOLD = envfloat("QQ_CITE_THRESHOLD", 0.3)
# Memory tests: at most this many pinned recalls per memory (a labelled set of up to a
# thousand questions). A run asks the agent once per pinned question, in the worker; a
# plan's preview (a web request) up to twice per pinned question the plan touches.
QQ_MAX_PINS_PER_MEMORY = envint("QQ_MAX_PINS_PER_MEMORY", 1000)
# Days a note brought back by a restore or an undo is kept from the archival pass.
QQ_RESTORE_GRACE_DAYS = envint("QQ_RESTORE_GRACE_DAYS", 30)
# An OpenAI-compatible chat endpoint for LLM merges of duplicates (empty: simple merge).
QQ_LLM_URL = envstr("QQ_LLM_URL", "")
QQ_LLM_MODEL = envstr("QQ_LLM_MODEL", "")
QQ_LLM_API_KEY = envstr("QQ_LLM_API_KEY", "")
# The reaper (a beat task every QQ_REAPER_INTERVAL_S, and at worker start) closes, as
# failed with the reason: runs still queued after QQ_RUN_QUEUED_TIMEOUT_S (their task
# never reached a worker), running runs silent for QQ_RUN_SILENT_TIMEOUT_S (their worker
# died and the broker did not hand the task out again), and audit events left pending
# for AUDIT_PENDING_TIMEOUT_S (the process making the change stopped; a constant of the
# reaper's service). A job's retries when its store is down: qqweb/jobs/tasks.py.
QQ_REAPER_INTERVAL_S = envint("QQ_REAPER_INTERVAL_S", 300)
QQ_RUN_QUEUED_TIMEOUT_S = envint("QQ_RUN_QUEUED_TIMEOUT_S", 1800)
QQ_RUN_SILENT_TIMEOUT_S = envint(
    "QQ_RUN_SILENT_TIMEOUT_S", envint("QQ_BROKER_VISIBILITY_TIMEOUT", 3600) + 1800
)
# Load the embedding model in a background thread when a web or worker process starts
# (a request that needs it before it is ready gets a 503 with Retry-After).
QQ_EMBEDDER_WARM_UP = envbool("QQ_EMBEDDER_WARM_UP", True)
# Name of a $vectorSearch index (Atlas, MongoDB 8.2+ with mongot); empty: in-process index.
QQ_VECTOR_SEARCH_INDEX = envstr("QQ_VECTOR_SEARCH_INDEX", "")
# The vector index's memory-mapped snapshots (one directory per database and collection,
# shared by every web and worker process of the machine: a local file system, for flock).
# The size from which it searches an inverted file of lists instead of scanning every
# vector is a constant of the index (EXACT_BELOW).
QQ_VECTOR_DIR = Path(envstr("QQ_VECTOR_DIR", str(VAR_DIR / "vectors")))
# Open the vector index (and catch up with MongoDB) in the background when a web or worker
# process starts; a search that needs it before it is ready waits a few seconds
# (VECTOR_READY_TIMEOUT_S), then says "the search index is loading (N of M notes)".
QQ_VECTOR_WARM_UP = envbool("QQ_VECTOR_WARM_UP", True)

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
# django-celery-beat's DatabaseScheduler, writing beat's heartbeat (qqweb/liveness.py).
CELERY_BEAT_SCHEDULER = "qqweb.beat:HeartbeatScheduler"
# Liveness: every worker and beat process writes a heartbeat row this often (seconds); the
# Health page calls one silent for longer than QQ_HEARTBEAT_STALE_S gone.
QQ_HEARTBEAT_INTERVAL_S = envfloat("QQ_HEARTBEAT_INTERVAL_S", 15.0)
QQ_HEARTBEAT_STALE_S = envint("QQ_HEARTBEAT_STALE_S", 60)
# Fixed entries (the DatabaseScheduler copies them into its tables at start); the jobs'
# own schedule is edited on the Jobs page.
CELERY_BEAT_SCHEDULE = {
    "qqweb: reaper": {"task": "memory_app.reap_runs", "schedule": float(QQ_REAPER_INTERVAL_S)},
}
if QQ_FACTS_SCAN_INTERVAL_S > 0:
    CELERY_BEAT_SCHEDULE["facts-vanished-scan"] = {
        "task": "facts.vanished_scan",
        "schedule": float(QQ_FACTS_SCAN_INTERVAL_S),
    }

# --- Demo / dev --------------------------------------------------------------------------

QQ_ADMIN_USERNAME = envstr("QQ_ADMIN_USERNAME", "admin")
QQ_ADMIN_PASSWORD = envstr("QQ_ADMIN_PASSWORD", "")
