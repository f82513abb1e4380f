"""The one page middleware (``qqweb.middleware.QQErrorMiddleware``) for our errors that
reach it: a refusal is its 4xx with the message, a store down a 503 naming the store, the
model loading a 503 with Retry-After, and a bug is left to Django (a 500, logged); htmx
requests get the message as text, the API its own JSON."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from graph_app.knowledge import GraphUnavailable
from qqweb.audit.errors import UndoForbidden
from qqweb.jobs.errors import RunNotFound, RunRefused
from qqweb.lib.errors import ModelLoading, StoreError
from qqweb.middleware import QQErrorMiddleware


def _page(rf: RequestFactory, user: Any, *, htmx: bool = False, path: str = "/maintenance/"):
    request = rf.get(path, HTTP_REFERER="http://testserver/maintenance/")
    request.user = user
    request.htmx = htmx  # type: ignore[attr-defined]  # as django-htmx sets it
    return request


def _met(request: HttpRequest, error: Exception) -> HttpResponse | None:
    middleware = QQErrorMiddleware(lambda request: HttpResponse())
    return middleware.process_exception(request, error)


@pytest.mark.django_db
def test_a_missing_run_on_a_page_is_a_404_saying_so_with_a_link_back(rf, viewer):
    response = _met(_page(rf, viewer), RunNotFound(987654))
    assert response is not None and response.status_code == 404
    page = response.content.decode()
    assert "there is no run 987654" in page and 'href="http://testserver/maintenance/"' in page


@pytest.mark.django_db
def test_a_refusal_on_an_htmx_request_is_its_status_with_the_message_as_text(rf, viewer):
    response = _met(_page(rf, viewer, htmx=True), RunRefused("run 5 is done already"))
    assert response is not None and response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == "run: run 5 is done already"


@pytest.mark.django_db
def test_a_store_down_on_a_page_is_a_503_naming_the_store(rf, viewer):
    response = _met(_page(rf, viewer), GraphUnavailable("connection refused"))
    assert response is not None and response.status_code == 503
    page = response.content.decode()
    assert "The knowledge graph (Neo4j) is not reachable" in page
    assert "connection refused" in page


@pytest.mark.django_db
def test_a_store_down_on_an_htmx_request_names_the_store_in_text(rf, viewer):
    response = _met(_page(rf, viewer, htmx=True), GraphUnavailable("connection refused"))
    assert response is not None and response.status_code == 503
    assert response.content.decode() == ("The knowledge graph (Neo4j) is down: connection refused")


@pytest.mark.django_db
def test_the_model_loading_is_a_503_asking_to_retry_after_its_seconds(rf, viewer):
    for htmx in (False, True):
        response = _met(_page(rf, viewer, htmx=htmx), ModelLoading("m", 3.0, retry_after=7))
        assert response is not None and response.status_code == 503
        assert response["Retry-After"] == "7"
        assert "still loading" in response.content.decode()


@pytest.mark.django_db
def test_a_bug_and_a_forbidden_undo_are_left_to_django(rf, viewer):
    request = _page(rf, viewer)
    assert _met(request, StoreError("mongodb", "duplicate key")) is None  # 500, logged
    assert _met(request, UndoForbidden("note.edit", "curator")) is None  # the 403 page
    assert _met(request, ValueError("not ours")) is None


@pytest.mark.django_db
def test_the_api_is_left_to_its_own_handler(rf, viewer):
    request = _page(rf, viewer, path="/api/maintenance/runs/5")
    assert _met(request, RunNotFound(5)) is None
    assert _met(request, GraphUnavailable("down")) is None
