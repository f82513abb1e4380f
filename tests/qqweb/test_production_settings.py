"""The documented production shape passes `manage.py check --deploy`, and the web server
refuses the public development SECRET_KEY when DEBUG is off. Each case runs in its own
process, as a server would start, with only the environment it names."""

import http.client
import json
import os
import re
import runpy
import secrets
import subprocess
import sys
import time
import tomllib
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.services import free_port, port_answers, stop

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(60),
    "ALLOWED_HOSTS": "qq.example.org",
    "QQ_HTTPS": "1",
    "QQ_CACHE_URL": "redis://127.0.0.1:9/2",
}


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    # DJANGO_ALLOW_ASYNC_UNSAFE is the browser tests' (set for this test process only)
    left_out = {*PRODUCTION, "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    clean = {k: v for k, v in os.environ.items() if k not in left_out}
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "qqweb.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_in_the_documented_production_settings():
    result = run(PRODUCTION, "manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_without_https_check_deploy_names_what_is_missing():
    result = run({**PRODUCTION, "QQ_HTTPS": "0"}, "manage.py", "check", "--deploy")
    for check in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert check in result.stderr


def test_the_web_server_refuses_the_public_secret_key_when_debug_is_off():
    env = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    result = run(env, "-c", "import qqweb.wsgi")
    assert result.returncode != 0
    assert "SECRET_KEY is the public development default" in result.stderr
    assert "qqweb.E001" in run(env, "manage.py", "check", "--deploy").stderr


def test_the_web_server_starts_with_a_real_secret_key_or_in_development():
    assert run(PRODUCTION, "-c", "import qqweb.wsgi").returncode == 0
    assert run({"DEBUG": "1"}, "-c", "import qqweb.wsgi").returncode == 0


def test_behind_a_tls_proxy_the_forwarded_scheme_counts_and_healthz_is_not_redirected():
    probe = (
        "import django; django.setup(); from django.test import Client; c = Client();"
        "print(c.get('/accounts/login/').status_code,"
        " c.get('/accounts/login/', HTTP_X_FORWARDED_PROTO='https').status_code,"
        " c.get('/healthz').status_code)"
    )
    env = {**PRODUCTION, "ALLOWED_HOSTS": "testserver", "DATABASE_URL": "sqlite://:memory:"}
    result = run(env, "-c", probe)
    redirect, served, health = result.stdout.split()
    assert (redirect, served) == ("301", "200")
    assert health != "301"


def test_the_production_image_ships_no_development_mongodb_server():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    with_secantus = {name for name, reqs in extras.items() if any("secantus" in r for r in reqs)}
    assert with_secantus == {"devserver"}
    assert not any("secantus" in r for r in project["project"]["dependencies"])
    sync = next(
        line for line in (ROOT / "Dockerfile").read_text().splitlines() if "uv sync" in line
    )
    assert "--no-dev" in sync and "--extra model" in sync
    assert "devserver" not in sync and "--extra dev" not in sync


def _compose_environment() -> dict[str, str]:
    """The web service's environment in docker-compose.yml as compose fills it when the
    operator sets only what it requires (``${X:?...}``): every default taken."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    required = {"SECRET_KEY": secrets.token_urlsafe(60), "NEO4J_PASSWORD": "pw"}

    def fill(match: re.Match[str]) -> str:
        name, how, value = match.group(1), match.group(2), match.group(3)
        return required[name] if how == ":?" else value

    raw = compose["x-app"]["environment"]
    return {k: re.sub(r"\$\{(\w+)(:-|:\?)([^}]*)\}", fill, str(v)) for k, v in raw.items()}


def test_the_compose_file_serves_https_unless_told_otherwise():
    env = _compose_environment()
    assert env["QQ_HTTPS"] == "1"
    production = {
        **env,
        "DEBUG": "0",
        "ALLOWED_HOSTS": "qq.example.org",
        "DATABASE_URL": "sqlite://:memory:",
    }
    result = run(production, "manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stderr


# --- the request line gunicorn takes (qqweb/gunicorn_conf.py) ------------------------------


def _longest_query(operation: dict[str, Any]) -> str:
    """Every query parameter of a GET route at the longest its schema allows, its text
    ASCII that must be percent-encoded ("%": 3 bytes a character)."""

    def longest(schema: dict[str, Any]) -> str:
        for option in schema.get("anyOf", []):
            if option.get("type") != "null":
                return longest(option)
        if "enum" in schema:
            return max((str(v) for v in schema["enum"]), key=len)
        if schema.get("type") == "string":
            return "%" * int(schema.get("maxLength", 0))
        if schema.get("type") in ("integer", "number"):
            return "-" + "9" * 20
        return "false"

    params = [p for p in operation.get("parameters", []) if p["in"] == "query"]
    return urllib.parse.urlencode({p["name"]: longest(p["schema"]) for p in params})


@pytest.fixture(scope="module")
def gunicorn_server() -> Iterator[str]:
    """gunicorn with the production image's configuration, one worker, on a free port."""
    port = free_port()
    env = {**PRODUCTION, "ALLOWED_HOSTS": "127.0.0.1", "DATABASE_URL": "sqlite://:memory:"}
    left_out = {*PRODUCTION, "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    clean = {k: v for k, v in os.environ.items() if k not in left_out}
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            *("--config", "qqweb/gunicorn.conf.py"),
            *("--bind", f"127.0.0.1:{port}", "--workers", "1"),
            "qqweb.wsgi:application",
        ],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "qqweb.settings", **env, "QQ_HTTPS": "0"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not port_answers(port):
            assert server.poll() is None and time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        stop(server)


def _status_of(address: str, target: str, method: str = "GET") -> int:
    host, port = address.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        connection.request(method, target)
        return connection.getresponse().status
    finally:
        connection.close()


def test_every_get_route_at_its_schemas_limits_reaches_the_app_through_gunicorn(
    gunicorn_server,
):
    """gunicorn's default request line (4,094 bytes) answered 414 to schema-valid queries
    (a note list with every filter at its length limit is about 6,300 bytes)."""
    document = json.loads((Path(__file__).parent / "openapi.snapshot.json").read_text())
    lengths = {}
    for path, operations in document["paths"].items():
        get = operations.get("get")
        if get is None or "{" in path:
            continue
        target = f"{path}?{_longest_query(get)}"
        lengths[path] = len(f"GET {target} HTTP/1.1")
        assert _status_of(gunicorn_server, target) == 401, path  # the app's: no token
    assert max(lengths.values()) > 4094  # what the default refused


def _longest_list_query(operation: dict[str, Any]) -> str:
    """The query parameters that are lists, each with the most items its schema allows,
    each item at its longest: ids matching the item's pattern when it has one, else ASCII
    that must be percent-encoded."""
    pairs = []
    for param in operation.get("parameters", []):
        schema = param["schema"]
        if param["in"] != "query" or schema.get("type") != "array":
            continue
        items = schema["items"]
        length = int(items.get("maxLength", 0))
        item = "f" * length
        if not ("pattern" in items and re.fullmatch(items["pattern"], item)):
            item = "%" * length
        pairs += [(param["name"], item)] * int(schema.get("maxItems", 0))
    return urllib.parse.urlencode(pairs)


def test_every_list_in_a_query_at_its_schemas_limits_reaches_the_app_through_gunicorn(
    gunicorn_server,
):
    """A route that takes a list in its query string (DELETE /api/facts/{id}'s
    ``archive``) documents no more than a request line carries: 260 ids (8.6 kB) answered
    414, from gunicorn, while the schema allowed 1,000 of up to 300 characters. Longer
    lists go in a JSON body (POST /api/facts/{id}/delete)."""
    document = json.loads((Path(__file__).parent / "openapi.snapshot.json").read_text())
    tried = {}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            query = _longest_list_query(operation)
            if not query:
                continue
            target = f"{re.sub(r'{[^}]+}', '0123456789abcdef01234567', path)}?{query}"
            tried[f"{method.upper()} {path}"] = len(f"{method.upper()} {target} HTTP/1.1")
            status = _status_of(gunicorn_server, target, method.upper())
            assert status == 401, (method, path, status)  # the app's: no token
    assert "DELETE /api/facts/{fact_id}" in tried
    assert max(tried.values()) <= 8190


def test_a_request_line_past_the_configured_limit_is_a_414(gunicorn_server):
    config = runpy.run_path(str(ROOT / "qqweb" / "gunicorn.conf.py"))
    assert config["limit_request_line"] == 8190  # gunicorn's largest
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert "gunicorn -c qqweb/gunicorn.conf.py " in compose["services"]["web"]["command"]
    assert '"gunicorn", "-c", "qqweb/gunicorn.conf.py"' in (ROOT / "Dockerfile").read_text()
    assert _status_of(gunicorn_server, "/api/notes?q=" + "a" * 8200) == 414
