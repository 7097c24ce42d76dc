"""The one exception-handler map: every error the REST API gives is ``{"error_code", "message"}`` JSON.

Kernel errors know nothing of HTTP; this module maps each class to Kafka's status code
(`ConnectExceptionMapper.java`). Litestar's own errors (unknown route, wrong method, malformed or
mistyped body, body too large) keep their status and get Kafka's texts. Anything unexpected is
logged with its traceback and answered as a 500 that carries only the exception's message.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from kconnect.config.connector_keys import NULL_VALUE_MESSAGE
from kconnect.errors import (
    AlreadyExistsError,
    BadRequestError,
    ConflictError,
    ConnectError,
    NotFoundError,
    PluginError,
    RebalanceInProgressError,
)
from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.types import ExceptionHandlersMap

from kconnect_rest.bodies import (
    EMPTY_OFFSETS_MESSAGE,
    INVALID_INITIAL_STATE_MESSAGE,
    LEVEL_MISSING_MESSAGE,
)
from kconnect_rest.wire import ErrorMessage

log = logging.getLogger(__name__)

STATUS_OF: Mapping[type[Exception], int] = {
    NotFoundError: 404,
    AlreadyExistsError: 409,
    BadRequestError: 400,
    ConflictError: 409,
    PluginError: 500,
    ConnectError: 500,
}
"""HTTP status of each kernel error class (a subclass takes its nearest listed ancestor's)."""

RETRY_MESSAGE = (
    "Cannot complete request momentarily due to stale configuration "
    "(typically caused by a concurrent config change); please retry the request"
)

_DESCRIPTIONS = {
    400: "Bad request: invalid body, parameter or config",
    401: "Missing or invalid credentials",
    403: "Forbidden by the worker's configuration",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict: already exists, or the worker is busy (retry)",
    413: "Request body too large",
    415: "Unsupported media type: send application/json",
    500: "Internal error",
    503: "Worker still starting",
}


def error_responses(*codes: int) -> dict[int, ResponseSpec]:
    """OpenAPI declarations of error answers, all with the ErrorMessage schema."""
    return {
        code: ResponseSpec(
            data_container=ErrorMessage, description=_DESCRIPTIONS[code], generate_examples=False
        )
        for code in codes
    }


def error_response(
    status: int, message: str | None, headers: Mapping[str, str] | None = None
) -> Response[Any]:
    """An error answer in Kafka's shape."""
    return Response(
        content=ErrorMessage(error_code=status, message=message),
        status_code=status,
        media_type=MediaType.JSON,
        headers=dict(headers or {}),
    )


def status_of(exc: ConnectError) -> int:
    """The HTTP status a kernel error is answered with (`STATUS_OF`; also ``kconnect validate -o json``)."""
    for cls in type(exc).__mro__:
        if cls in STATUS_OF:
            return STATUS_OF[cls]
    return 500


def _connect_error(request: Request[Any, Any, Any], exc: ConnectError) -> Response[Any]:
    status = status_of(exc)
    message = str(exc) or type(exc).__name__
    rebalance = isinstance(exc, RebalanceInProgressError)  # Kafka's text as the herder wrote it
    if isinstance(exc, ConflictError) and not rebalance and "retry" not in message.lower():
        message = f"{message}; please retry the request" if str(exc) else RETRY_MESSAGE
    if status >= 500:
        log.error("%s %s failed: %s", request.method, request.url.path, message, exc_info=exc)
    return error_response(status, message)


MISSING_FIELD_TEXTS: Mapping[str, str] = {
    "offsets": EMPTY_OFFSETS_MESSAGE,
    "level": LEVEL_MISSING_MESSAGE,
}
"""Required body fields whose absence Kafka answers with its own text (field -> text)."""

INVALID_FIELD_TEXTS: Mapping[str, str] = {
    "offsets": EMPTY_OFFSETS_MESSAGE,
    "initial_state": INVALID_INITIAL_STATE_MESSAGE,
    "level": LEVEL_MISSING_MESSAGE,
}
"""Body fields whose own check (null, length, pattern) is answered with a fixed text, not the parser's."""

_NULL_CONFIG_VALUE = (
    "Expected `bool | int | float | str`, got `null`"  # msgspec's words for a null ConfigValue
)


def _kafka_text(key: object, text: str) -> str | None:
    if str(key) in INVALID_FIELD_TEXTS:
        return INVALID_FIELD_TEXTS[str(key)]
    missing = "Object missing required field `"
    if key == "data" and text.startswith(missing):
        return MISSING_FIELD_TEXTS.get(text[len(missing) :].rstrip("`"))
    return NULL_VALUE_MESSAGE if text == _NULL_CONFIG_VALUE else None


def _validation_message(exc: ValidationException) -> str:
    details = []
    if isinstance(exc.extra, list):
        for item in exc.extra:
            if isinstance(item, dict) and item.get("message"):
                key, text = item.get("key"), str(item["message"])
                if (kafka_text := _kafka_text(key, text)) is not None:
                    return kafka_text
                if key == "data" and text == "'data'":
                    text = "Request body is missing"  # litestar reports the absent body as a KeyError
                details.append(f"{text} ({key})" if key and key != "data" else text)
    return "; ".join(details) or exc.detail


def _http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    status = exc.status_code
    phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
    if isinstance(exc, ValidationException):
        message = _validation_message(exc)
    elif not exc.detail or exc.detail == phrase:
        message = f"HTTP {status} {phrase}".strip()  # Jersey's text for its own errors
    else:
        message = exc.detail
    if status >= 500:
        log.error("%s %s failed: %s", request.method, request.url.path, message, exc_info=exc)
    return error_response(status, message, exc.headers)


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.error("Unexpected error serving %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, str(exc) or type(exc).__name__)


def exception_handlers() -> ExceptionHandlersMap:
    """The app-level handler map (app level, so unknown routes and wrong methods are covered too)."""
    return {
        HTTPException: _http_error,
        ConnectError: _connect_error,
        Exception: _unexpected,
    }
