"""The documented production shape passes `manage.py check --deploy`, and the web server
refuses the public development SECRET_KEY when DEBUG is off. Each case runs in its own
process, as a server would start, with only the environment it names."""

import os
import secrets
import subprocess
import sys
import tomllib
from pathlib import Path

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
