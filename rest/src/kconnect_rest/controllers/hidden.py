"""Connector configs in REST answers with their PASSWORD values hidden (docs/secrets.md).

Every answer that shows a connector's or a task's config (``GET /connectors/{name}``, ``/config``,
``?expand=info``, ``/tasks``, and the answers to create / update) shows a PASSWORD-typed key's
value as ``[hidden]``, unless the value is a config-provider reference, which is shown as written.
A PUT or PATCH that sends exactly ``[hidden]`` for a PASSWORD key keeps the stored value, so a
GET→PUT script does not overwrite a password. The PASSWORD keys are those of the connector's
ConfigDef plus the framework's, as ``/connector-plugins/{class}/config`` lists them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kconnect import model
from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG
from kconnect.config.providers_view import hide_passwords, keep_hidden
from kconnect.config.values import ConfigType
from kconnect.errors import ConnectError, NotFoundError
from kconnect.herder.api import Herder

from kconnect_rest import wire

_PASSWORD = ConfigType.PASSWORD.value

#: PASSWORD keys by connector class, for the answers of one request (a listing asks for each connector).
KnownPasswordKeys = dict[str, frozenset[str]]


def password_keys(
    herder: Herder, config: Mapping[str, str | None], known: KnownPasswordKeys | None = None
) -> frozenset[str]:
    """The PASSWORD keys of the connector ``connector.class`` names; none when it is not installed.
    `known` keeps the answers by class across calls of one request."""
    connector_class = config.get(CONNECTOR_CLASS_CONFIG) or ""
    if known is not None and connector_class in known:
        return known[connector_class]
    try:
        keys = herder.plugin_config(connector_class)
    except ConnectError:
        found: frozenset[str] = frozenset()
    else:
        found = frozenset(key.name for key in keys if getattr(key, "type", None) == _PASSWORD)
    if known is not None:
        known[connector_class] = found
    return found


def connector_info(
    herder: Herder, info: model.ConnectorInfo, known: KnownPasswordKeys | None = None
) -> wire.ConnectorInfo:
    """`info` on the wire, PASSWORD values hidden (`known`: see `password_keys`)."""
    shown = wire.connector_info(info)
    shown.config = hide_passwords(shown.config, password_keys(herder, info.config, known))
    return shown


def config(herder: Herder, stored: Mapping[str, str]) -> dict[str, str]:
    """A connector's config, PASSWORD values hidden."""
    return hide_passwords(stored, password_keys(herder, stored))


async def task_infos(herder: Herder, name: str, tasks: Sequence[model.TaskInfo]) -> list[wire.TaskInfo]:
    """The connector's tasks on the wire, the PASSWORD keys of the connector hidden in their configs."""
    if not tasks:
        return []
    keys = password_keys(herder, await herder.connector_config(name))
    shown = [wire.task_info(task) for task in tasks]
    for task in shown:
        task.config = hide_passwords(task.config, keys)
    return shown


async def kept(herder: Herder, name: str, sent: Mapping[str, str]) -> dict[str, str]:
    """`sent` (a PUT's config) with each PASSWORD key sent as exactly ``[hidden]`` given its stored value."""
    try:
        stored = await herder.connector_config(name)
    except NotFoundError:
        return dict(sent)
    return keep_hidden(sent, stored, password_keys(herder, sent))


async def kept_patch(herder: Herder, name: str, patch: Mapping[str, str | None]) -> dict[str, str | None]:
    """`patch` with each PASSWORD key sent as exactly ``[hidden]`` given its stored value."""
    try:
        stored = await herder.connector_config(name)
    except NotFoundError:
        return dict(patch)
    keys = password_keys(herder, {**stored, **patch})
    sent = {key: value for key, value in patch.items() if value is not None}
    return {**patch, **keep_hidden(sent, stored, keys)}
