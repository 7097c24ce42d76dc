"""Validate a config through its JSON Schema with Kafka's outcome, and the validate endpoint's result.

How `validate_all` reaches Kafka's per-key result through `jsonschema` (coerce, then validate):

1. Parse each key's value by Kafka's rules (`parse_type`), in Kafka's order (keys nobody lists as a
   dependent, each followed by its dependents). A parse failure is the key's first error and its
   value becomes null, as in Kafka. Connector configs arrive as strings, so parsing first lets the
   schema stay a plain description of typed values rather than of Kafka's string spellings.
2. Validate the parsed values as one JSON document with a `Draft202012Validator` whose ``required``
   keyword reports Kafka's "Missing required configuration" text against the key, and whose format
   checker asserts ``format: regex``. Kafka also runs a validator on the null of a missing key, so
   each missing key's own schema is checked against null too.
3. Map every schema error back to its key and to the rule of the key's validator that owns the
   failed keyword (`Validator.first_failure`), which gives Kafka's text and a rank: Kafka's
   validator stops at its first failure, so of several schema errors for one key only the one
   Kafka would have raised first is kept. A rule standing for a Kafka parse failure (an unknown
   plugin class) shows the value as null. Validators with no JSON Schema equivalent
   (`LambdaValidator`, `CaseInsensitiveValidString`, ...) run as Python instead.
4. Ask each key's recommender for recommended values and visibility, given all parsed values.

The second half turns validated values into Kafka's `ConfigInfos` entity (`generate_result`) and the
400 message create/update answer with when a config has errors (`invalid_config_message`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validators

from .config_key import ConfigKey, ConfigValue, DefinedKeys
from .json_schema import config_def_json_schema, json_value
from .values import ConfigException, ConfigType, convert_to_string, missing_required_message, parse_type


def _required_against_key(
    validator: Any, required: list[str], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, "object"):
        for name in required:
            if name not in instance:
                yield ValidationError(missing_required_message(name), path=(name,))


#: Draft 2020-12 whose ``required`` errors carry the missing key as their path and Kafka's text.
KafkaConfigValidator: Any = validators.extend(
    Draft202012Validator, validators={"required": _required_against_key}
)
FORMAT_CHECKER = FormatChecker(formats=("regex",))


def _parse_order(config_def: DefinedKeys) -> list[str]:
    keys = config_def.config_keys
    children = {dependent for key in keys.values() for dependent in key.dependents}
    order: list[str] = []
    pending = [name for name in reversed(list(keys)) if name not in children]
    while pending:
        name = pending.pop()
        if name in keys and name not in order:
            order.append(name)
            pending.extend(reversed(keys[name].dependents))
    return order


@dataclass(frozen=True)
class _Failure:
    """One error of a key, ranked as Kafka's validator would order it (lowest is raised first)."""

    rank: int
    message: str
    voids_value: bool = False


def _explain(key: ConfigKey, keyword: str, value: object, error: ValidationError) -> _Failure | None:
    """The key's rule behind a failed schema keyword; None when no rule fails (nothing to report)."""
    validator = key.validator
    if validator is None:
        return _Failure(10_000, ConfigException.invalid(key.name, value, error.message).message)
    # Rules test the value as the schema saw it (a Password's secret); the message hides it again.
    found = validator.first_failure(json_value(value), keyword)
    if found is not None:
        rank, rule = found
        message = rule.error(validator.error_name(key.name), value).message
        return _Failure(rank, message, rule.voids_value)
    if any(rule.keyword == keyword for rule in validator.rules):
        return None
    return _Failure(10_000, ConfigException.invalid(key.name, value, error.message).message)


def _checked_errors(
    config_def: DefinedKeys, order: list[str], parsed: Mapping[str, object], instance: dict[str, object]
) -> Iterator[tuple[str, _Failure]]:
    keys = config_def.config_keys
    schema = config_def_json_schema(config_def)
    missing: dict[str, str] = {}
    ranked: dict[str, list[_Failure]] = {}

    def add(name: str, failure: _Failure | None) -> None:
        if failure is not None:
            ranked.setdefault(name, []).append(failure)

    for error in KafkaConfigValidator(schema, format_checker=FORMAT_CHECKER).iter_errors(instance):
        name = error.path[0]
        if error.validator == "required":
            missing[name] = error.message
        else:
            add(name, _explain(keys[name], str(error.schema_path[2]), parsed[name], error))
    for name in order:
        key = keys[name]
        if key.validator is None:
            continue
        if key.validator.json_schema() is None:
            try:
                key.validator.ensure_valid(name, parsed[name])
            except ConfigException as python_failure:
                add(name, _Failure(0, python_failure.message))
        elif name not in instance:
            key_checker = KafkaConfigValidator(schema["properties"][name], format_checker=FORMAT_CHECKER)
            for error in key_checker.iter_errors(None):
                add(name, _explain(key, str(error.schema_path[0]), None, error))
    for name in order:
        if name in missing:
            yield name, _Failure(-1, missing[name])
        if name in ranked:
            yield name, min(ranked[name], key=lambda failure: failure.rank)


def validate_all(config_def: DefinedKeys, props: Mapping[str, object]) -> dict[str, ConfigValue]:
    """Kafka's `ConfigDef.validateAll`: one `ConfigValue` per key, every error of every key.

    Called through `ConfigDef.validate`. Results are in definition order, followed by names listed
    as dependents but never defined (each with an error, not visible). Steps: module docstring.
    """
    keys = config_def.config_keys
    results = {name: ConfigValue(name) for name in keys}
    for name in config_def.undefined_dependents():
        results[name] = ConfigValue(name, errors=[f"{name} is referred in the dependents, but not defined."])
        results[name].visible = False
    order = _parse_order(config_def)
    parsed: dict[str, object] = {}
    instance: dict[str, object] = {}
    for name in order:
        key = keys[name]
        value: object = None
        if name in props:
            try:
                value = parse_type(name, props[name], key.type)
            except ConfigException as failure:
                results[name].add_error(failure.message)
            instance[name] = json_value(value)
        elif key.has_default:
            value = key.default
            instance[name] = json_value(value)
        results[name].value = parsed[name] = value
    for name, checked in _checked_errors(config_def, order, parsed, instance):
        results[name].add_error(checked.message)
        if checked.voids_value:
            results[name].value = parsed[name] = None
    for name in order:
        validator = keys[name].validator
        if validator is not None and not results[name].errors:
            results[name].value = parsed[name] = validator.canonical(parsed[name])
    view = MappingProxyType(parsed)
    for name in order:
        recommender = keys[name].recommender
        if recommender is None:
            continue
        try:
            results[name].recommended_values = list(recommender.valid_values(name, view))
            results[name].visible = recommender.visible(name, view)
        except ConfigException as failure:
            results[name].add_error(failure.message)
    return results


# --- The validate endpoint's result (Kafka's rest/entities/ConfigInfos and friends) ------------------------


@dataclass(frozen=True)
class ConfigKeyInfo:
    """A key's definition as the REST API shows it (Kafka's `ConfigKeyInfo`)."""

    name: str
    type: str
    required: bool
    default_value: str | None
    importance: str
    documentation: str | None
    group: str | None
    order_in_group: int
    width: str
    display_name: str
    dependents: tuple[str, ...]

    @classmethod
    def from_key(cls, key: ConfigKey, prefix: str = "") -> ConfigKeyInfo:
        """Kafka's `convertConfigKey`: required keys have a null default; others render theirs."""
        return cls(
            name=prefix + key.name,
            type=key.type.value,
            required=not key.has_default,
            default_value=convert_to_string(key.default, key.type) if key.has_default else None,
            importance=key.importance.value,
            documentation=key.documentation,
            group=key.group,
            order_in_group=key.order_in_group,
            width=key.width.value,
            display_name=key.display_name,
            dependents=key.dependents,
        )

    def to_json(self) -> dict[str, Any]:
        """Kafka's JSON, keys in Kafka's order; the order in group is emitted as ``order``."""
        return {
            "name": self.name,
            "type": self.type,
            "required": self.required,
            "default_value": self.default_value,
            "importance": self.importance,
            "documentation": self.documentation,
            "group": self.group,
            "width": self.width,
            "display_name": self.display_name,
            "dependents": list(self.dependents),
            "order": self.order_in_group,
        }


@dataclass(frozen=True)
class ConfigValueInfo:
    """A key's validated value as the REST API shows it (Kafka's `ConfigValueInfo`)."""

    name: str
    value: str | None
    recommended_values: tuple[str | None, ...]
    errors: tuple[str, ...]
    visible: bool

    @classmethod
    def from_value(cls, config_value: ConfigValue, config_type: ConfigType | None) -> ConfigValueInfo:
        """Kafka's `convertConfigValue`: values rendered as strings, PASSWORD as ``[hidden]``."""
        item_type = ConfigType.STRING if config_type is ConfigType.LIST else config_type
        return cls(
            name=config_value.name,
            value=convert_to_string(config_value.value, config_type),
            recommended_values=tuple(
                convert_to_string(v, item_type) for v in config_value.recommended_values
            ),
            errors=tuple(config_value.errors),
            visible=config_value.visible,
        )

    def to_json(self) -> dict[str, Any]:
        """Kafka's JSON."""
        return {
            "name": self.name,
            "value": self.value,
            "recommended_values": list(self.recommended_values),
            "errors": list(self.errors),
            "visible": self.visible,
        }


@dataclass(frozen=True)
class ConfigInfo:
    """One key's definition and value; either may be null (Kafka's `ConfigInfo`)."""

    definition: ConfigKeyInfo | None
    value: ConfigValueInfo | None

    def to_json(self) -> dict[str, Any]:
        """Kafka's JSON: ``{"definition": ..., "value": ...}``."""
        return {
            "definition": None if self.definition is None else self.definition.to_json(),
            "value": None if self.value is None else self.value.to_json(),
        }


@dataclass(frozen=True)
class ConfigInfos:
    """The validate endpoint's answer (Kafka's `ConfigInfos`); `name` is the connector class as sent."""

    name: str
    error_count: int
    groups: tuple[str, ...]
    configs: tuple[ConfigInfo, ...]

    def to_json(self) -> dict[str, Any]:
        """Kafka's JSON: ``name``, ``error_count``, ``groups``, ``configs``."""
        return {
            "name": self.name,
            "error_count": self.error_count,
            "groups": list(self.groups),
            "configs": [info.to_json() for info in self.configs],
        }

    def error_messages(self) -> list[str]:
        """Every error string, in output order."""
        return [error for info in self.configs if info.value is not None for error in info.value.errors]


def generate_result(
    connector_class: str,
    config_keys: Mapping[str, ConfigKey],
    config_values: Iterable[ConfigValue],
    groups: Iterable[str],
) -> ConfigInfos:
    """Kafka's `AbstractHerder.generateResult`.

    Values without a key definition come first (in the order given), then every key in definition
    order with its value (the last value given for a name wins), or a null value if none was given.
    `error_count` counts error strings.
    """
    configs: list[ConfigInfo] = []
    error_count = 0
    by_name: dict[str, ConfigValue] = {}
    for config_value in config_values:
        by_name[config_value.name] = config_value
        if config_value.name not in config_keys:
            configs.append(ConfigInfo(None, ConfigValueInfo.from_value(config_value, None)))
            error_count += len(config_value.errors)
    for name, key in config_keys.items():
        value_info = None
        if name in by_name:
            value_info = ConfigValueInfo.from_value(by_name[name], key.type)
            error_count += len(by_name[name].errors)
        configs.append(ConfigInfo(ConfigKeyInfo.from_key(key), value_info))
    return ConfigInfos(connector_class, error_count, tuple(dict.fromkeys(groups)), tuple(configs))


def invalid_config_message(config_infos: ConfigInfos, connector_type: str) -> str | None:
    """The 400 message of create/update for an invalid config (Kafka's `maybeAddConfigErrors`); None if valid.

    Kafka prints a literal ``{connectorType}`` in the endpoint path; kconnect names the real type
    (pass ``"{connectorType}"`` to get Kafka's exact text).
    """
    if config_infos.error_count <= 0:
        return None
    lines = [
        f"Connector configuration is invalid and contains the following {config_infos.error_count} error(s):"
    ]
    lines.extend(config_infos.error_messages())
    lines.append(
        "You can also find the above list of errors at the endpoint "
        f"`/connector-plugins/{connector_type}/config/validate`"
    )
    return "\n".join(lines)
