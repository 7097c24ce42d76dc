"""A path to one field, possibly nested (Kafka's ``SingleFieldPath``, KIP-821).

``field.syntax.version=V1`` (the default) reads the path as one top-level field name. ``V2``
reads dotted paths (``a.b.c``); a step holding dots is written between backticks
(```a.b`.c``), and a backtick inside such a step that is followed by a dot is escaped with a
backslash.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from kconnect.config.configdef import ConfigDef, ConfigException, ConfigType, Importance
from kconnect.config.validators import CaseInsensitiveValidString
from kconnect.data.schema import Field, Schema
from kconnect.data.struct import Struct

FIELD_SYNTAX_VERSION_CONFIG = "field.syntax.version"
FIELD_SYNTAX_VERSION_DEFAULT = "V1"

_BACKTICK, _DOT, _BACKSLASH = "`", ".", "\\"


class FieldSyntaxVersion(str, Enum):
    """How a field path is read: V1 one top-level name, V2 dotted nested paths."""

    V1 = "V1"
    V2 = "V2"

    @classmethod
    def define_on(cls, config_def: ConfigDef) -> ConfigDef:
        """Add the ``field.syntax.version`` key to `config_def` and return it."""
        return config_def.define(
            FIELD_SYNTAX_VERSION_CONFIG,
            type=ConfigType.STRING,
            default=FIELD_SYNTAX_VERSION_DEFAULT,
            validator=CaseInsensitiveValidString.in_(*(v.value for v in cls)),
            importance=Importance.HIGH,
            documentation="V1: a field path names one top-level field. V2: dotted paths reach nested "
            "fields; wrap a name holding dots in backticks (`foo.bar`.baz).",
        )

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> FieldSyntaxVersion:
        """The version a parsed config chose (any case)."""
        return cls(str(config[FIELD_SYNTAX_VERSION_CONFIG]).upper())


def _incomplete_backtick(path: str, at: int) -> ConfigException:
    return ConfigException(
        f"Incomplete backtick pair in path: [{path}], consider adding a backslash before backtick "
        f"at position {at} to escape it"
    )


def _steps_v2(path: str) -> list[str]:
    steps: list[str] = []
    index = 0
    while 0 <= index < len(path):
        if path[index] != _BACKTICK:
            end = path.find(_DOT, index)
            if end >= 0:
                steps.append(path[index:end])
                index = end + 1
            else:
                steps.append(path[index:])
                index = -1
            continue
        opened = index
        index += 1
        start = index
        parts: list[str] = []
        while True:
            index = path.find(_BACKTICK, index)
            if index == -1:
                raise _incomplete_backtick(path, opened)
            escaped = path[index - 1] == _BACKSLASH
            if index >= len(path) - 1:
                if escaped:
                    raise _incomplete_backtick(path, opened)
                parts.append(path[start:index])
                steps.append("".join(parts))
                index += 1
                break
            if path[index + 1] != _DOT:
                index += 1
                continue
            if escaped:
                parts.append(path[start : index - 1] + _BACKTICK)
                index += 1
                start = index
                continue
            parts.append(path[start:index])
            steps.append("".join(parts))
            index += 2
            break
    if path.endswith(_DOT):
        steps.append("")
    return steps


class SingleFieldPath:
    """The steps from a record's key or value to one field."""

    def __init__(self, path: str, version: FieldSyntaxVersion) -> None:
        self.path = path
        self.version = version
        self.steps = [path] if version is FieldSyntaxVersion.V1 else _steps_v2(path)

    def field_from(self, schema: Schema) -> Field | None:
        """The field the path names in `schema`, or None when a step is missing."""
        current = schema
        for step in self.steps[:-1]:
            found = current.field(step)
            if found is None:
                return None
            current = found.schema
        return current.field(self.steps[-1])

    def value_from_map(self, value: Mapping[str, Any]) -> Any:
        """The value at the path in a schemaless map, or None when a step is missing."""
        current: Any = value
        for step in self.steps[:-1]:
            current = current.get(step)
            if not isinstance(current, Mapping):
                return None
        return current.get(self.steps[-1])

    def value_from_struct(self, value: Struct, with_default: bool) -> Any:
        """The value at the path in a Struct (defaults applied when `with_default`), or None."""
        current = value
        for step in self.steps[:-1]:
            if current.schema.field(step) is None:
                return None
            child = current.get(step) if with_default else current.get_without_default(step)
            if not isinstance(child, Struct):
                return None
            current = child
        last = self.steps[-1]
        if current.schema.field(last) is None:
            return None
        return current.get(last) if with_default else current.get_without_default(last)

    def __str__(self) -> str:
        return f"SingleFieldPath{{version={self.version.value}, path={self.path}}}"
