"""Helpers every app's HTML views share."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme


def render_page(
    request: HttpRequest, template: str, fragment: str, context: dict[str, Any], status: int = 200
) -> HttpResponse:
    """The whole page, or only ``fragment`` (its DOM id) for an htmx request."""
    name = f"{template}#{fragment}" if getattr(request, "htmx", False) else template
    return render(request, name, context, status=status)


def redirect_back(request: HttpRequest, fallback: str) -> HttpResponse:
    """Back to the page the form came from (its ``next`` field), if that is a path of ours,
    else to ``fallback`` (a path). Only a path is taken: given to ``redirect`` a bare word
    is read as a view's name ("logout" went to the logout page, one that names no view was
    a 500)."""
    return HttpResponseRedirect(back_path(request, fallback))


def back_path(request: HttpRequest, fallback: str) -> str:
    """The page the form came from (its ``next`` field) when it is a path of ours, else
    ``fallback``: where a redirect or a Cancel link goes back to."""
    target = request.POST.get("next", "")
    ours = target.startswith("/") and url_has_allowed_host_and_scheme(target, {request.get_host()})
    return target if ours else fallback
