"""What the production shape needs: the client's address for lockouts and rate limits, a
web server that refuses the public development SECRET_KEY, and the deploy checks of our
own settings (``manage.py check --deploy``)."""

from __future__ import annotations

import ipaddress
from typing import Any

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """The client's address: ``QQ_CLIENT_IP_HEADER`` when a trusted proxy sets it (the
    last address of a list: the one the proxy saw), else the connection's."""
    header = settings.QQ_CLIENT_IP_HEADER
    if header:
        value = request.headers.get(header, "")
        if value.strip():
            return value.split(",")[-1].strip()
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def login_client_ip(request: HttpRequest) -> str | None:
    """The address django-axes records for a login (its access log, its lockouts): the
    client's address, or None when that is no address (a request with no REMOTE_ADDR,
    as behind a proxy on a Unix socket; a proxy header gone wrong). Its column is an
    address on PostgreSQL (``inet``), where "unknown" failed every login with a 500;
    clients with no address share their lockout, per username."""
    value = client_ip(request)
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def client_key(_group: str, request: HttpRequest) -> str:
    """The rate limits' key for an address: an IPv6 address counts by its /64 (one
    machine's share), an IPv4 address alone; a value that is no address (a proxy header
    gone wrong, a test client) counts as itself, never a 500."""
    value = client_ip(request)
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return f"raw:{value[:100]}"
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def public_secret_key_in_production() -> bool:
    return not settings.DEBUG and settings.SECRET_KEY == settings.DEV_SECRET_KEY


def refuse_public_secret_key() -> None:
    """Called by the WSGI entry point: with DEBUG off, the development SECRET_KEY (public,
    in this repository) would let anyone forge sessions, so the server does not start."""
    if public_secret_key_in_production():
        raise ImproperlyConfigured(
            "SECRET_KEY is the public development default and DEBUG is off: set SECRET_KEY "
            "to a long random value (or DEBUG=1 for development)"
        )


@checks.register(checks.Tags.security, deploy=True)
def check_production_settings(app_configs: Any, **kwargs: Any) -> list[checks.CheckMessage]:
    found: list[checks.CheckMessage] = []
    if public_secret_key_in_production():
        found.append(
            checks.Error(
                "SECRET_KEY is the public development default.",
                hint="Set SECRET_KEY to a long random value; the web server refuses to start.",
                id="qqweb.E001",
            )
        )
    if not settings.QQ_CACHE_URL:
        found.append(
            checks.Warning(
                "QQ_CACHE_URL is not set: each process counts API token rate limits alone.",
                hint="Set QQ_CACHE_URL to the Redis every process shares (redis://...).",
                id="qqweb.W001",
            )
        )
    return found
