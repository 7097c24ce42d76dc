"""Request bodies as Kafka reads them, and the checks Kafka's resources make before the herder.

Kafka types config bodies as ``Map<String, String>``; Jackson turns JSON numbers and booleans into
their text, so ``{"tasks.max": 1}`` is stored as ``"1"``. Objects and arrays are rejected (400 here;
Kafka answers 500). A null value is refused (except in a PATCH, where it removes the key), with
Kafka's text. The types here are what the OpenAPI document promises, so the parser refuses exactly
what the document forbids; `kconnect_rest.errors` words those refusals with Kafka's texts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Optional, TypeAlias, Union

import msgspec
from kconnect import model
from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG, NULL_VALUE_MESSAGE
from kconnect.errors import BadRequestError
from kconnect.model import TargetState

from kconnect_rest.wire import ConnectorOffset

# typing.Union, not "|": the OpenAPI generator names (and so can special-case) only a typing alias.
ConfigValue: TypeAlias = Union[str, int, float, bool]  # noqa: UP007
"""A config value as a request may send it: JSON numbers and booleans become strings."""

ConfigScalar: TypeAlias = Optional[ConfigValue]  # noqa: UP045
"""A config value of a PATCH: null removes the key (KIP-477)."""

ConfigBody: TypeAlias = dict[str, ConfigValue]
"""A ``Map<String, String>`` request body (PUT/POST config, validate)."""

ConfigPatch: TypeAlias = dict[str, ConfigScalar]
"""A PATCH config body."""

CONNECTOR_CONFIG_SCHEMA: dict[str, Any] = {"required": [CONNECTOR_CLASS_CONFIG]}
"""What the OpenAPI document adds to a whole connector config: Kafka refuses one without a class (400)."""

EMPTY_OFFSETS_MESSAGE = "Partitions / offsets need to be provided for an alter offsets request"
LEVEL_MISSING_MESSAGE = "Desired 'level' parameter was not specified in request."

_INITIAL_STATES = {
    "RUNNING": TargetState.STARTED,
    "PAUSED": TargetState.PAUSED,
    "STOPPED": TargetState.STOPPED,
}


INITIAL_STATE_PATTERN = (
    "^([Rr][Uu][Nn][Nn][Ii][Nn][Gg]|[Pp][Aa][Uu][Ss][Ee][Dd]|[Ss][Tt][Oo][Pp][Pp][Ee][Dd])$"
)
"""RUNNING, PAUSED or STOPPED in any case (JSON Schema's regular expressions have no ``(?i)``)."""

INVALID_INITIAL_STATE_MESSAGE = "Invalid initial_state: expected RUNNING, PAUSED or STOPPED (any case)"


MAX_CONNECTOR_NAME_LENGTH = 249
"""Longest connector name accepted on create or update (characters), Kafka's topic name limit.

Kafka has none. A name travels percent-encoded in every URL and in a 201's ``Location`` header:
249 characters are at most 2,988 bytes there (12 per 4-byte character), well inside the 8 KB
request-line and header limits of common servers and proxies (Jetty, nginx), so every connector
can be reached again; it also keeps ``connect-<name>`` and the clients' ids readable.
"""

CONNECTOR_NAME_SCHEMA: dict[str, Any] = {"maxLength": MAX_CONNECTOR_NAME_LENGTH}
"""What the OpenAPI document says of a connector name sent to create or update (`check_connector_name`
enforces it, with a message that gives the length)."""


class CreateConnectorRequest(msgspec.Struct, forbid_unknown_fields=True):
    """`POST /connectors`: name, config and KIP-980's optional initial state (case-insensitive)."""

    config: Annotated[ConfigBody, msgspec.Meta(extra_json_schema={"extra": CONNECTOR_CONFIG_SCHEMA})]
    name: Annotated[str, msgspec.Meta(extra_json_schema={"extra": CONNECTOR_NAME_SCHEMA})] | None = None
    initial_state: Annotated[str, msgspec.Meta(pattern=INITIAL_STATE_PATTERN)] | None = None


class LoggerLevelRequest(msgspec.Struct):
    """`PUT /admin/loggers/{logger}`: ``{"level": "DEBUG"}``; other keys are ignored, as Kafka's map."""

    level: ConfigValue


class ConnectorOffsetsRequest(msgspec.Struct, forbid_unknown_fields=True):
    """`PATCH /connectors/{name}/offsets`: the partitions and offsets to write (at least one).

    A body without them is refused while it is parsed, before the connector's existence is checked,
    with Kafka's text (`EMPTY_OFFSETS_MESSAGE`, see `kconnect_rest.errors`).
    """

    offsets: Annotated[list[ConnectorOffset], msgspec.Meta(min_length=1)]


def _text(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)


def string_map(body: Mapping[str, ConfigScalar]) -> dict[str, str]:
    """A config body as strings; BadRequestError with Kafka's text if any value is null."""
    if any(value is None for value in body.values()):
        raise BadRequestError(NULL_VALUE_MESSAGE)
    return {key: _text(value) for key, value in body.items() if value is not None}


def patch_map(body: Mapping[str, ConfigScalar]) -> dict[str, str | None]:
    """A PATCH config body as strings; null stays null (it removes the key, KIP-477)."""
    return {key: None if value is None else _text(value) for key, value in body.items()}


def check_connector_name(name: str) -> str:
    """`name` if it is at most `MAX_CONNECTOR_NAME_LENGTH` characters; BadRequestError otherwise.

    Called with the name as sent (before create trims it), so it refuses exactly what the OpenAPI
    document's ``maxLength`` forbids."""
    if len(name) > MAX_CONNECTOR_NAME_LENGTH:
        raise BadRequestError(
            f"Connector name is too long: {len(name)} characters, at most "
            f"{MAX_CONNECTOR_NAME_LENGTH} are accepted"
        )
    return name


def initial_state(value: str | None) -> TargetState | None:
    """KIP-980's ``initial_state`` (RUNNING, PAUSED or STOPPED in any case) as a target state."""
    if value is None:
        return None
    state = _INITIAL_STATES.get(value.upper())
    if state is None:  # the parser checks the pattern first; this guards direct callers
        raise BadRequestError(INVALID_INITIAL_STATE_MESSAGE)
    return state


def offsets_to_alter(body: ConnectorOffsetsRequest) -> list[model.ConnectorOffset]:
    """The offsets of an alter request (the parser has already refused a body without any)."""
    # A null partition is passed on: the herder answers it with Kafka's per-connector-type text.
    return [model.ConnectorOffset(partition=o.partition, offset=o.offset) for o in body.offsets]  # type: ignore[arg-type]


def plugin_matches(included: str | None, plugin: str) -> None:
    """Kafka's validate check: a ``connector.class`` in the body must end with the path's plugin name."""

    def normalized(name: str) -> str:
        return (
            name[: -len("Connector")] if name.endswith("Connector") and len(name) > len("Connector") else name
        )

    if included is not None and not normalized(included).endswith(normalized(plugin)):
        raise BadRequestError(f"Included connector type {included} does not match request type {plugin}")
