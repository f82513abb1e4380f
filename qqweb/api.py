"""The one NinjaAPI. Routers come from the apps; domain errors are mapped here, once.

Auth: a bearer API token (``Authorization: Bearer qq_...``) or the browser session.
Every error answers JSON ``{"error": {"code", "message", ...}}`` (``qqweb.lib.api_types.
ErrorOut``, documented on every route with the statuses it answers) with a 4xx/503 status,
or 500 (``code: "internal"``, the traceback logged) for a store error or any other bug,
never Django's HTML page; a path under ``/api/`` that is no route answers the same JSON
404 (``qqweb.urls``).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import asdict
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.http.response import HttpResponseBase
from django_ratelimit.core import _split_rate, get_usage, is_ratelimited
from django_ratelimit.exceptions import Ratelimited
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.operation import Operation
from ninja.security import APIKeyCookie, HttpBearer
from ninja.security import SessionAuth as NinjaSessionAuth

from graph_app.api import router as graph_router
from graph_app.knowledge import (
    EntityNotFound,
    GraphStoreError,
    GraphUnavailable,
    InvalidIdentifier,
)
from graph_app.knowledge.errors import (
    AmbiguousEntity,
    EntityChanged,
    InvalidGraphValue,
    NameTaken,
    RelationshipNotFound,
)
from memory_app.facts.api import router as facts_router
from memory_app.facts.api_curation import router as facts_curation_router
from memory_app.facts.lib import FactNotFound, FactsConfigError
from memory_app.facts.lib.errors import AgentModelRequired, FactChanged
from memory_app.facts.lib.store import FactIdTaken
from memory_app.facts.services import NeedsConfirmation
from memory_app.facts.shapes import plan_out
from memory_app.facts.stores import FactsOff
from memory_app.notes.api import router as memory_router
from memory_app.notes.lib import (
    DimensionMismatch,
    EmbeddingDimensionConflict,
    InvalidNote,
    ModelLoading,
    NoteNotFound,
    RestoreConflict,
    StoreError,
    StoreUnavailable,
)
from memory_app.notes.lib.errors import StaleWrite
from qqweb.audit.errors import UndoRefused
from qqweb.backup.api import router as backup_router
from qqweb.health_api import router as health_router
from qqweb.jobs.errors import JobBusy, NoPlanToApply
from qqweb.lib.api_types import errors
from qqweb.lib.auth import VIEWER, require_role, user_role
from qqweb.lib.security import client_key
from qqweb.lib.sources import memory_sources
from qqweb.models import TOKEN_PREFIX, ApiToken
from qqweb.services import api_token_authenticate

logger = logging.getLogger(__name__)


class BearerTokenAuth(HttpBearer):
    """``Authorization: Bearer qq_...``. Rate limited (django-ratelimit): each token to
    ``QQ_API_TOKEN_RATE`` requests; unknown or revoked tokens to
    ``QQ_API_TOKEN_FAILURE_RATE`` per address and presented token (its first characters);
    past either, 429. A valid token is looked up first and never counts against, or is
    refused by, the failures of others behind the same address."""

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        api_token = api_token_authenticate(token)
        if api_token is None:
            if _failures_limited(request, token):
                raise Ratelimited(
                    "too many requests with this unknown or revoked token: wait a minute"
                )
            return None
        if is_ratelimited(
            request,
            group="qqweb-api-token",
            key=lambda _group, _request: str(api_token.pk),
            rate=settings.QQ_API_TOKEN_RATE,
            increment=True,
        ):
            raise Ratelimited(f"this token is limited to {settings.QQ_API_TOKEN_RATE} requests")
        request.user = api_token.user
        return api_token


FAILURE_KEY_CHARS = len(TOKEN_PREFIX) + 7  # as ApiToken.key_prefix: "qq_" and 7 more
ADDRESS_FAILURE_FACTOR = 10  # an address, whatever tokens it presents: 10x one token's


def _failures_limited(request: HttpRequest, presented: str) -> bool:
    """Count one more unknown or revoked token; has it used up its budget? Budgets:
    ``QQ_API_TOKEN_FAILURE_RATE`` for this address with this token start (``presented``'s
    first characters, hashed into the key), ten times that for the address whatever it
    presents (a stranger who varies its tokens). Another client behind the same address
    with a bad token of its own is told 401 until the address's budget is spent; a valid
    token never gets here."""
    count, seconds = _split_rate(settings.QQ_API_TOKEN_FAILURE_RATE)
    start = hashlib.sha256(presented[:FAILURE_KEY_CHARS].encode()).hexdigest()[:16]
    budgets = (
        ((count, seconds), lambda group, request: f"{client_key(group, request)}/{start}"),
        ((count * ADDRESS_FAILURE_FACTOR, seconds), client_key),
    )
    spent = False
    for rate, key in budgets:
        usage = get_usage(
            request, group="qqweb-api-token-failures", key=key, rate=rate, increment=True
        )
        spent = spent or (usage is not None and usage["count"] > usage["limit"])
    return spent


class SessionAuth(NinjaSessionAuth):
    """The browser session (with Django's CSRF check on writes), but not for a request that
    sends ``Authorization``: a script whose token is wrong or revoked gets 401, not a CSRF
    refusal or someone's session. (Named as django-ninja's: the name is the OpenAPI
    document's security scheme.)"""

    def __call__(self, request: HttpRequest) -> Any:
        if "authorization" in request.headers:
            return None
        return super().__call__(request)

    def _get_key(self, request: HttpRequest) -> str | None:
        # CSRF is checked only for a login: a request with no session is told 401 "log in
        # or send a token", not 403 "CSRF check failed".
        if not request.user.is_authenticated:
            return None
        return super()._get_key(request)


_session: APIKeyCookie = SessionAuth()


def docs_login_required(view: Any) -> Any:
    """``/api/openapi.json`` and ``/api/docs`` need a login like every page: a session
    with a role or an API token. Without one, the document answers 401 JSON and the docs
    page sends the browser to the login page."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        authorization = request.headers.get("authorization", "")
        if authorization.lower().startswith("bearer "):
            api_token = api_token_authenticate(authorization[7:].strip())
            if api_token is not None:
                request.user = api_token.user
        if user_role(request.user) is not None:
            return view(request, *args, **kwargs)
        if request.user.is_authenticated:
            return JsonResponse(
                {"error": {"code": "forbidden", "message": "this needs the viewer role"}},
                status=403,
            )
        if request.path.endswith(".json") or authorization:
            return JsonResponse(
                {
                    "error": {
                        "code": "unauthenticated",
                        "message": "log in, or send 'Authorization: Bearer <API token>'",
                    }
                },
                status=401,
            )
        return redirect_to_login(request.get_full_path())

    return wrapper


class QQWebAPI(NinjaAPI):
    def get_openapi_operation_id(self, operation: Operation) -> str:
        """``<app>_api_<function>``, also when an app's API is a package of modules by
        sub-domain or a module beside ``api`` (``api_curation``): operation ids are what
        clients generate code from, so they do not follow our module layout."""
        parts = operation.view_func.__module__.split(".")
        at = next((i for i, part in enumerate(parts) if part.split("_")[0] == "api"), 1)
        app = "_".join(parts[:at])
        return f"{app}_api_{operation.view_func.__name__}"


api = QQWebAPI(
    title="qqweb API",
    version="1",
    description="Browse and curate a qq agent's long-term memory.",
    auth=[BearerTokenAuth(), _session],
    urls_namespace="api",
    docs_decorator=docs_login_required,
)


def _error(
    request: HttpRequest, status: int, code: str, message: str, **extra: Any
) -> HttpResponse:
    return api.create_response(
        request, {"error": {"code": code, "message": message, **extra}}, status=status
    )


@api.exception_handler(StoreUnavailable)
def _store_unavailable(request: HttpRequest, exc: StoreUnavailable) -> HttpResponse:
    if isinstance(exc, ModelLoading):  # ready in a few seconds: say when to try again
        response = _error(request, 503, "model_loading", str(exc), store=exc.store)
        response["Retry-After"] = str(exc.retry_after)
        return response
    return _error(request, 503, "store_unavailable", str(exc), store=exc.store)


@api.exception_handler(StoreError)
def _store_error(request: HttpRequest, exc: StoreError) -> HttpResponse:
    """A store refused what we asked: a bug, not an outage. Logged with its traceback."""
    logger.error("store error on %s %s", request.method, request.path, exc_info=exc)
    return _error(request, 500, "store_error", str(exc), store=exc.store)


@api.exception_handler(GraphUnavailable)
def _graph_unavailable(request: HttpRequest, exc: GraphUnavailable) -> HttpResponse:
    return _error(request, 503, "store_unavailable", str(exc), store="neo4j")


@api.exception_handler(GraphStoreError)
def _graph_store_error(request: HttpRequest, exc: GraphStoreError) -> HttpResponse:
    """A bug, not an outage: 500, the traceback (with the driver's error) in the log."""
    logger.exception("graph store error on %s %s", request.method, request.path, exc_info=exc)
    return _error(request, 500, "internal", str(exc))


@api.exception_handler(NoteNotFound)
def _note_not_found(request: HttpRequest, exc: NoteNotFound) -> HttpResponse:
    return _error(request, 404, "not_found", str(exc), note_id=exc.note_id)


@api.exception_handler(InvalidNote)
def _invalid_note(request: HttpRequest, exc: InvalidNote) -> HttpResponse:
    return _error(request, 400, "invalid", exc.message, field=exc.field)


@api.exception_handler(JobBusy)
def _job_busy(request: HttpRequest, exc: JobBusy) -> HttpResponse:
    """A run of the job holds its lock (a job run in the request: the facts scan)."""
    return _error(request, 409, "busy", exc.message, field=exc.field)


@api.exception_handler(NoPlanToApply)
def _no_plan(request: HttpRequest, exc: NoPlanToApply) -> HttpResponse:
    return _error(request, 409, "no_plan", exc.message, field=exc.field)


@api.exception_handler(StaleWrite)
def _stale(request: HttpRequest, exc: StaleWrite) -> HttpResponse:
    return _error(request, 409, "stale", str(exc), note_id=exc.note_id)


@api.exception_handler(RestoreConflict)
def _restore_conflict(request: HttpRequest, exc: RestoreConflict) -> HttpResponse:
    return _error(
        request, 409, "conflict", str(exc), note_id=exc.note_id, suggested_id=exc.suggested_id
    )


@api.exception_handler(UndoRefused)
def _undo_refused(request: HttpRequest, exc: UndoRefused) -> HttpResponse:
    return _error(request, 409, "undo_refused", str(exc))


@api.exception_handler(DimensionMismatch)
def _dimension(request: HttpRequest, exc: DimensionMismatch) -> HttpResponse:
    """A query vector of another dimension than the stored ones (search): 422."""
    return _error(
        request, 422, "dimension_mismatch", str(exc), expected=exc.expected, actual=exc.actual
    )


@api.exception_handler(EmbeddingDimensionConflict)
def _embedding_conflict(request: HttpRequest, exc: EmbeddingDimensionConflict) -> HttpResponse:
    """A write would replace a stored vector with one of another dimension: 409, naming
    both (``stored``, ``model``) and how to configure the agent's model."""
    return _error(
        request,
        409,
        "embedding_dimension_conflict",
        str(exc),
        stored_dimension=exc.expected,
        model_dimension=exc.actual,
    )


@api.exception_handler(EntityNotFound)
def _entity_not_found(request: HttpRequest, exc: EntityNotFound) -> HttpResponse:
    return _error(request, 404, "not_found", str(exc), label=exc.label, name=exc.name)


@api.exception_handler(AmbiguousEntity)
def _ambiguous(request: HttpRequest, exc: AmbiguousEntity) -> HttpResponse:
    return _error(request, 409, "ambiguous", str(exc), name=exc.name, labels=exc.labels)


@api.exception_handler(NameTaken)
def _name_taken(request: HttpRequest, exc: NameTaken) -> HttpResponse:
    return _error(request, 409, "name_taken", str(exc), field="new_name", label=exc.label)


@api.exception_handler(EntityChanged)
def _entity_changed(request: HttpRequest, exc: EntityChanged) -> HttpResponse:
    return _error(request, 409, "stale", str(exc))


@api.exception_handler(InvalidGraphValue)
def _invalid_graph_value(request: HttpRequest, exc: InvalidGraphValue) -> HttpResponse:
    return _error(request, 400, "invalid", exc.message, field=exc.field)


@api.exception_handler(RelationshipNotFound)
def _relationship_not_found(request: HttpRequest, exc: RelationshipNotFound) -> HttpResponse:
    return _error(request, 404, "not_found", str(exc))


@api.exception_handler(InvalidIdentifier)
def _invalid_identifier(request: HttpRequest, exc: InvalidIdentifier) -> HttpResponse:
    return _error(request, 400, "invalid", str(exc), field=exc.field)


@api.exception_handler(FactNotFound)
def _fact_not_found(request: HttpRequest, exc: FactNotFound) -> HttpResponse:
    return _error(request, 404, "not_found", str(exc), fact_id=exc.fact_id)


@api.exception_handler(FactsOff)
def _facts_off(request: HttpRequest, exc: FactsOff) -> HttpResponse:
    return _error(request, 404, "facts_off", str(exc))


@api.exception_handler(FactsConfigError)
def _facts_misconfigured(request: HttpRequest, exc: FactsConfigError) -> HttpResponse:
    logger.error("facts store misconfigured: %s", exc)
    return _error(request, 500, "misconfigured", str(exc))


@api.exception_handler(Ratelimited)
def _rate_limited(request: HttpRequest, exc: Ratelimited) -> HttpResponse:
    response = _error(request, 429, "rate_limited", str(exc) or "too many requests")
    response["Retry-After"] = "60"
    return response


@api.exception_handler(FactChanged)
def _fact_changed(request: HttpRequest, exc: FactChanged) -> HttpResponse:
    return _error(request, 409, "stale", str(exc), fact_id=exc.fact_id)


@api.exception_handler(FactIdTaken)
def _fact_id_taken(request: HttpRequest, exc: FactIdTaken) -> HttpResponse:
    return _error(request, 409, "conflict", str(exc), fact_id=exc.fact_id)


@api.exception_handler(NeedsConfirmation)
def _needs_confirmation(request: HttpRequest, exc: NeedsConfirmation) -> HttpResponse:
    """A facts write that would also archive facts not listed in ``archive``: nothing was
    written; the body has the preview and the ids to send back."""
    return _error(
        request, 409, "confirm", str(exc), archive=exc.plan.archive_ids, preview=plan_out(exc.plan)
    )


@api.exception_handler(AgentModelRequired)
def _agent_model_required(request: HttpRequest, exc: AgentModelRequired) -> HttpResponse:
    return _error(request, 422, "wrong_embedder", str(exc), model=exc.model)


@api.exception_handler(PermissionDenied)
def _forbidden(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    return _error(request, 403, "forbidden", str(exc) or "you may not do this")


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return _error(
        request, 401, "unauthenticated", "log in, or send 'Authorization: Bearer <API token>'"
    )


@api.exception_handler(ValidationError)
def _validation(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    fields = [".".join(str(p) for p in err.get("loc", [])[1:]) or "body" for err in exc.errors]
    return _error(
        request,
        422,
        "invalid",
        "; ".join(
            f"{field}: {err.get('msg', 'invalid')}"
            for field, err in zip(fields, exc.errors, strict=False)
        ),
        fields=fields,
    )


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    return _error(request, exc.status_code, "error", str(exc))


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return _error(request, 404, "not_found", str(exc) or "not found")


@api.exception_handler(RequestDataTooBig)
def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return _error(request, 413, "too_large", str(exc))


@api.exception_handler(MultiPartParserError)
def _bad_multipart(request: HttpRequest, exc: MultiPartParserError) -> HttpResponse:
    """A multipart body Django cannot parse (no boundary, a broken part): 400 naming it."""
    return _error(request, 400, "bad_request", f"the multipart body cannot be read: {exc}")


@api.exception_handler(SuspiciousOperation)
def _suspicious(request: HttpRequest, exc: SuspiciousOperation) -> HttpResponse:
    """A request Django refuses to read (more than DATA_UPLOAD_MAX_NUMBER_FIELDS fields, a
    bad host): the client's error, 400, as Django answers it outside the API."""
    return _error(request, 400, "bad_request", str(exc) or "the request was refused")


@api.exception_handler(Exception)
def _internal(request: HttpRequest, exc: Exception) -> HttpResponse:
    """Any other exception is a bug: 500 with the JSON error, the traceback logged."""
    logger.error("unhandled error on %s %s", request.method, request.path, exc_info=exc)
    return _error(request, 500, "internal", "internal error; the server logged it")


class MeOut(Schema):
    username: str
    role: str | None
    via: str


class SourceOut(Schema):
    key: str
    label: str
    layout: str  # the data contract it follows: qq, facts
    up: bool
    detail: str
    counts: list[tuple[str, int]]
    problems: int  # lint findings that break that agent
    capabilities: list[str]


@api.get("/sources", response={200: list[SourceOut], **errors()}, tags=["sources"])
def sources(request: HttpRequest) -> list[dict[str, Any]]:
    """Every agent memory this qqweb shows (the notes, and the facts when configured),
    each with what it supports."""
    require_role(request, VIEWER)
    return [
        {**asdict(summary), "capabilities": sorted(summary.capabilities)}
        for summary in (source.summary() for source in memory_sources())
    ]


@api.get("/me", response={200: MeOut, **errors()}, tags=["account"])
def me(request: HttpRequest) -> dict[str, Any]:
    """Who the request is authenticated as, and with which role."""
    via = "token" if isinstance(getattr(request, "auth", None), ApiToken) else "session"
    return {"username": request.user.get_username(), "role": user_role(request.user), "via": via}


api.add_router("/", memory_router)
api.add_router("/graph", graph_router)
api.add_router("/", facts_curation_router)  # before: /facts/archive is not a fact id
api.add_router("/", facts_router)
api.add_router("/backup", backup_router)
api.add_router("/", health_router)
