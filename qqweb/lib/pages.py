"""Helpers every app's HTML views share."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def render_page(
    request: HttpRequest, template: str, fragment: str, context: dict[str, Any], status: int = 200
) -> HttpResponse:
    """The whole page, or only ``fragment`` (its DOM id) for an htmx request."""
    name = f"{template}#{fragment}" if getattr(request, "htmx", False) else template
    return render(request, name, context, status=status)
