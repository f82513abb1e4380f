"""The one NinjaAPI. Routers come from the apps; errors are mapped here, once
(:func:`register_exception_handlers`: one handler for every ``QQError``).

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
from functools import cached_property, wraps
from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.http.response import HttpResponseBase
from django_ratelimit.core import _split_rate, get_usage, is_ratelimited
from django_ratelimit.exceptions import Ratelimited
from ninja import NinjaAPI, Schema, Swagger
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.openapi.schema import OpenAPISchema
from ninja.operation import Operation
from ninja.security import APIKeyCookie, HttpBearer
from ninja.security import SessionAuth as NinjaSessionAuth

from graph_app.api import router as graph_router
from memory_app.facts.api import router as facts_router
from memory_app.facts.api_curation import router as facts_curation_router
from memory_app.notes.api import router as memory_router
from qqweb.backup.api import router as backup_router
from qqweb.health_api import router as health_router
from qqweb.lib.api_types import errors
from qqweb.lib.auth import VIEWER, require_role, user_role
from qqweb.lib.errors import QQError
from qqweb.lib.security import client_key
from qqweb.lib.sources import memory_sources
from qqweb.models import TOKEN_PREFIX, ApiToken
from qqweb.recall.api import router as recall_router
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


# The packages whose operation ids keep the name they had before the re-cut (issue 26)
# moved them: clients generated code from those ids.
OPERATION_ID_PACKAGES = {
    "memory_app.notes": "memory_app",
    "memory_app.facts": "memory_app.facts_app",
}


class QQWebAPI(NinjaAPI):
    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> OpenAPISchema:
        """Built once per process and root path: the API does not change while the process
        runs, and building the 200 KB document took 3.5-4.5 s on every load of
        ``/api/docs`` (most of the 15-20 s the page took to show)."""
        if path_prefix is None:
            path_prefix = self.get_root_path(path_params or {})
        if path_prefix not in self._schemas:
            self._schemas[path_prefix] = super().get_openapi_schema(path_prefix=path_prefix)
        return self._schemas[path_prefix]

    @cached_property
    def _schemas(self) -> dict[str, OpenAPISchema]:
        return {}

    def get_openapi_operation_id(self, operation: Operation) -> str:
        """``<app>_api_<function>``, also when an app's API is a package of modules by
        sub-domain or a module beside ``api`` (``api_curation``): operation ids are what
        clients generate code from, so they do not follow our module layout
        (:data:`OPERATION_ID_PACKAGES`)."""
        module = operation.view_func.__module__
        for package, named in OPERATION_ID_PACKAGES.items():
            if module.startswith(package + "."):
                module = named + module[len(package) :]
        parts = module.split(".")
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
    # The operations listed by tag, folded (a click opens one), and no list of the 150
    # schemas under them: rendering all of it took Swagger UI most of 15 s at load.
    docs=Swagger(settings={"docExpansion": "none", "defaultModelsExpandDepth": -1}),
)


def _error(
    api: NinjaAPI, request: HttpRequest, status: int, code: str, message: str, **extra: Any
) -> HttpResponse:
    return api.create_response(
        request, {"error": {"code": code, "message": message, **extra}}, status=status
    )


def register_exception_handlers(api: NinjaAPI) -> None:
    """Every error maps to the JSON ``{"error": {"code", "message", ...}}`` once, here.

    Our own errors are one handler: a :class:`QQError` answers its class's ``status`` and
    ``code``, its ``client_message()`` and ``details()`` (``Retry-After`` when it says how
    long to wait); a 5xx one (a store refusing a query, a misconfiguration) is a bug and
    is logged with its traceback. The rest are the framework's and Django's errors (a
    bad parameter, no login, a role missing, a rate limit, a body Django will not read),
    and any other exception: a bug, 500, logged."""

    def error(request: HttpRequest, status: int, code: str, message: str, **extra: Any) -> Any:
        return _error(api, request, status, code, message, **extra)

    def qq_error(request: HttpRequest, exc: QQError) -> HttpResponse:
        kind = type(exc)  # the class's status and code (an instance may shadow ``code``)
        if kind.status >= 500:
            logger.error("%s on %s %s", kind.__name__, request.method, request.path, exc_info=exc)
        response = error(request, kind.status, kind.code, exc.client_message(), **exc.details())
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            response["Retry-After"] = str(retry_after)
        return response

    def rate_limited(request: HttpRequest, exc: Ratelimited) -> HttpResponse:
        response = error(request, 429, "rate_limited", str(exc) or "too many requests")
        response["Retry-After"] = "60"
        return response

    def forbidden(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
        return error(request, 403, "forbidden", str(exc) or "you may not do this")

    def unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
        return error(
            request, 401, "unauthenticated", "log in, or send 'Authorization: Bearer <API token>'"
        )

    def validation(request: HttpRequest, exc: ValidationError) -> HttpResponse:
        fields = [".".join(str(p) for p in err.get("loc", [])[1:]) or "body" for err in exc.errors]
        return error(
            request,
            422,
            "invalid",
            "; ".join(
                f"{field}: {err.get('msg', 'invalid')}"
                for field, err in zip(fields, exc.errors, strict=False)
            ),
            fields=fields,
        )

    def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        return error(request, exc.status_code, "error", str(exc))

    def not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
        return error(request, 404, "not_found", str(exc) or "not found")

    def too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
        return error(request, 413, "too_large", str(exc))

    def bad_multipart(request: HttpRequest, exc: MultiPartParserError) -> HttpResponse:
        """A multipart body Django cannot parse (no boundary, a broken part): 400."""
        return error(request, 400, "bad_request", f"the multipart body cannot be read: {exc}")

    def suspicious(request: HttpRequest, exc: SuspiciousOperation) -> HttpResponse:
        """A request Django refuses to read (more than DATA_UPLOAD_MAX_NUMBER_FIELDS fields,
        a bad host): the client's error, 400, as Django answers it outside the API."""
        return error(request, 400, "bad_request", str(exc) or "the request was refused")

    def internal(request: HttpRequest, exc: Exception) -> HttpResponse:
        """Any other exception is a bug: 500 with the JSON error, the traceback logged."""
        logger.error("unhandled error on %s %s", request.method, request.path, exc_info=exc)
        return error(request, 500, "internal", "internal error; the server logged it")

    handlers: list[tuple[type[Exception], Any]] = [
        (QQError, qq_error),
        (Ratelimited, rate_limited),
        (PermissionDenied, forbidden),
        (AuthenticationError, unauthenticated),
        (ValidationError, validation),
        (HttpError, http_error),
        (Http404, not_found),
        (RequestDataTooBig, too_big),
        (MultiPartParserError, bad_multipart),
        (SuspiciousOperation, suspicious),
        (Exception, internal),
    ]
    for exc_class, handler in handlers:
        api.add_exception_handler(exc_class, handler)


register_exception_handlers(api)


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
api.add_router("/memory-tests", recall_router)
api.add_router("/", health_router)
