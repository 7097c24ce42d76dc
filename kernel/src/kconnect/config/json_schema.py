"""Compile a `ConfigDef` into a JSON Schema (draft 2020-12) document.

The schema describes *parsed* values (``tasks.max`` is an integer, ``transforms`` an array), the shape
`kconnect.config.validation` checks after applying Kafka's parsing rules to the string values a
connector config arrives with. Each key is one property:

- ``type``: boolean / string / integer / number / array, plus ``"null"`` unless the key's validator
  rejects null (a value that failed to parse, or a null default, is null);
- the validator's own keywords (``minimum``/``maximum`` from `Range`, ``enum`` from `ValidString`, ...);
- ``default`` (left out for PASSWORD keys, which are ``writeOnly``) and ``description``;
- ``x-kafka-*`` annotations carrying what JSON Schema has no word for: Kafka type, importance, group,
  order in group, width, display name, dependents, the validator's description, internal.

``required`` lists the keys without a default; ``x-kafka-groups`` lists the groups in order. Extra
properties are allowed, as connector configs carry keys for converters, transforms and clients.
"""

from __future__ import annotations

from typing import Any, Final

from .config_key import ConfigKey, DefinedKeys
from .values import ConfigType, Password

DRAFT_2020_12: Final = "https://json-schema.org/draft/2020-12/schema"

JSON_TYPES: Final = {
    ConfigType.BOOLEAN: "boolean",
    ConfigType.STRING: "string",
    ConfigType.INT: "integer",
    ConfigType.SHORT: "integer",
    ConfigType.LONG: "integer",
    ConfigType.DOUBLE: "number",
    ConfigType.LIST: "array",
    ConfigType.CLASS: "string",
    ConfigType.PASSWORD: "string",
}


def json_value(value: object) -> object:
    """A parsed config value as JSON data: a `Password` gives its secret, a list is copied."""
    if isinstance(value, Password):
        return value.value
    if isinstance(value, (list, tuple)):
        return [json_value(item) for item in value]
    return value


def key_json_schema(key: ConfigKey) -> dict[str, Any]:
    """The property schema of one key (see the module docstring for its parts)."""
    json_type = JSON_TYPES[key.type]
    nullable = key.validator is None or key.validator.accepts_null
    schema: dict[str, Any] = {"type": [json_type, "null"] if nullable else json_type}
    if key.type is ConfigType.PASSWORD:
        schema["writeOnly"] = True
    elif key.has_default:
        schema["default"] = json_value(key.default)
    if key.documentation:
        schema["description"] = key.documentation
    schema["x-kafka-type"] = key.type.value
    schema["x-kafka-importance"] = key.importance.value
    if key.group is not None:
        schema["x-kafka-group"] = key.group
    schema["x-kafka-order-in-group"] = key.order_in_group
    schema["x-kafka-width"] = key.width.value
    schema["x-kafka-display-name"] = key.display_name
    if key.dependents:
        schema["x-kafka-dependents"] = list(key.dependents)
    if key.internal:
        schema["x-kafka-internal"] = True
    if key.validator is not None:
        schema["x-kafka-valid-values"] = str(key.validator)
        schema.update(key.validator.json_schema() or {})
    return schema


def config_def_json_schema(config_def: DefinedKeys, *, title: str | None = None) -> dict[str, Any]:
    """The whole def as one object schema, keys in definition order."""
    document: dict[str, Any] = {"$schema": DRAFT_2020_12}
    if title is not None:
        document["title"] = title
    document["type"] = "object"
    document["properties"] = {name: key_json_schema(key) for name, key in config_def.config_keys.items()}
    document["required"] = [name for name, key in config_def.config_keys.items() if not key.has_default]
    document["x-kafka-groups"] = config_def.groups()
    return document
