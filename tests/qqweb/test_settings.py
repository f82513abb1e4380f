"""Settings are the one place that reads the environment, with the agent's names."""

import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ROOT / "qqweb" / "settings.py"


def _settings_env_names() -> set[str]:
    return set(
        re.findall(r'env(?:str|bool|int|float|list)\(\s*"([A-Z0-9_]+)"', SETTINGS.read_text())
    )


def test_only_settings_reads_the_environment():
    offenders = []
    for path in [
        *ROOT.glob("qqweb/**/*.py"),
        *ROOT.glob("memory_app/**/*.py"),
        *ROOT.glob("graph_app/**/*.py"),
    ]:
        if path in (
            SETTINGS,
            ROOT / "qqweb" / "lib" / "config.py",  # the readers settings.py calls (below)
            ROOT / "qqweb" / "__init__.py",  # BLAS threads, before numpy is imported
            ROOT / "qqweb" / "celery.py",
            ROOT / "qqweb" / "wsgi.py",
        ):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv"}:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            readers = isinstance(node, ast.ImportFrom) and node.module == "qqweb.lib.config"
            if readers and any(a.name.startswith("env") for a in node.names):  # type: ignore[attr-defined]
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} (env readers)")
    assert offenders == []


def test_the_agents_variables_keep_their_names():
    names = _settings_env_names()
    assert {
        "MONGODB_URI",
        "NEO4J_URI",
        "NEO4J_USER",
        "NEO4J_PASSWORD",
        "MEMORY_DIR",
        "TEI_URL",
        "QQ_DEDUP_THRESHOLD",
        "QQ_ARCHIVE_THRESHOLD",
        "QQ_ARCHIVE_RETENTION_DAYS",
        "QQ_MAX_WORKING_NOTES",
        "DATABASE_URL",
        "CELERY_BROKER_URL",
    } <= names


def test_docker_compose_sets_only_variables_the_settings_read():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    known = _settings_env_names() | {"DJANGO_SETTINGS_MODULE"}
    app_services = {
        n: s for n, s in compose["services"].items() if s.get("image") == "qqweb:latest"
    }
    assert set(app_services) == {"web", "worker", "beat"}
    for name, service in app_services.items():
        env = service.get("environment", {})
        keys = set(env) if isinstance(env, dict) else {e.split("=", 1)[0] for e in env}
        assert keys <= known, f"{name} sets {sorted(keys - known)} which no setting reads"


def test_docker_compose_runs_the_production_shape_with_health_checks():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"mongo", "neo4j", "redis", "web", "worker", "beat"} <= set(services)
    assert services["mongo"]["image"].startswith("mongo:8")
    assert services["neo4j"]["image"].startswith("neo4j:5.26")
    for name in ("mongo", "neo4j", "redis", "web", "worker"):
        assert "healthcheck" in services[name], name
    web_env = services["web"]["environment"]
    assert web_env["MONGODB_URI"].startswith("mongodb://mongo:")
    assert web_env["NEO4J_URI"] == "bolt://neo4j:7687"


def test_the_default_broker_opens_with_the_transport_options_the_settings_give(tmp_path):
    """`make dev`'s broker (kombu's SQLAlchemy transport on SQLite) hands its transport
    options to create_engine: a visibility timeout there killed the worker at start."""
    from kombu import Connection

    from qqweb.lib.config import broker_transport_options

    url = f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}"
    with Connection(url, transport_options=broker_transport_options(url, 3600)) as conn:
        queue = conn.SimpleQueue("qqweb-check")
        queue.put({"ok": True})
        assert queue.get(timeout=5).payload == {"ok": True}
        queue.close()
    assert broker_transport_options("redis://127.0.0.1:6379/0", 3600) == {
        "visibility_timeout": 3600,
        "unacked_restore_interval": 10,
        "unacked_restore_throttle": 1,
    }
