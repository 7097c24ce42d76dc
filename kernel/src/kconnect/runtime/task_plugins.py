"""Builds what a task loop needs around the task: its converters and its transformation chain.

Called once when a task loop starts (on the executor side), from the worker's and the
connector's properties, exactly as Kafka reads them: ``key.converter`` / ``value.converter`` /
``header.converter`` with their ``<prefix>.``-stripped settings (connector config overrides the
worker's), and ``transforms`` / ``predicates`` with ``transforms.<alias>.type`` and settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.config.connector_keys import (
    HEADER_CONVERTER_CLASS_CONFIG,
    KEY_CONVERTER_CLASS_CONFIG,
    PREDICATES_CONFIG,
    TRANSFORMS_CONFIG,
    VALUE_CONVERTER_CLASS_CONFIG,
    WORKER_CONVERTER_DEFAULTS,
)
from kconnect.converter import Converter, HeaderConverter
from kconnect.errors import ConnectError
from kconnect.plugin_host import PluginHost, PluginType
from kconnect.records import ConnectRecord
from kconnect.runtime.error_handling import Stage, StageError, class_name
from kconnect.transform import Predicate, Transformation


def _prefixed(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)}


def _converter_props(
    worker: Mapping[str, str], connector: Mapping[str, str], key: str
) -> tuple[str, dict[str, str]]:
    """The converter class name and its settings: the connector's choice wins over the worker's.

    Settings follow the class: when the connector names its own converter, only the connector's
    ``<key>.`` settings apply (as Kafka does).
    """
    if connector.get(key):
        return connector[key], _prefixed(connector, key + ".")
    return worker.get(key) or WORKER_CONVERTER_DEFAULTS[key], _prefixed(worker, key + ".")


@dataclass
class TransformStep:
    """One configured transformation with its optional predicate."""

    alias: str
    transform: Transformation
    predicate: Predicate | None = None
    negate: bool = False

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        """Apply the transformation when the predicate (if any) says so."""
        if self.predicate is not None and self.predicate.test(record) == self.negate:
            return record
        return self.transform.apply(record)


@dataclass
class TaskPlugins:
    """A task's converters and transformation chain."""

    key_converter: Converter
    value_converter: Converter
    header_converter: HeaderConverter
    transforms: list[TransformStep]

    def converter_error(self, stage: Stage, error: Exception) -> StageError:
        """The StageError of `error` raised by `stage`'s converter (key, value or header), naming it."""
        converter = {
            Stage.KEY_CONVERTER: self.key_converter,
            Stage.VALUE_CONVERTER: self.value_converter,
        }.get(stage, self.header_converter)
        return StageError(stage, class_name(converter), error)

    def transform(self, record: ConnectRecord) -> ConnectRecord | None:
        """Run the chain; None when a transformation dropped the record.

        Raises `StageError` (stage TRANSFORMATION, the failing transformation's class) on a failure.
        """
        current: ConnectRecord | None = record
        step = None
        try:
            for step in self.transforms:
                if current is None:
                    return None
                current = step.apply(current)
        except Exception as exc:
            raise StageError(Stage.TRANSFORMATION, class_name(step.transform if step else None), exc) from exc
        return current

    def close(self) -> None:
        """Close every transformation and predicate."""
        for step in self.transforms:
            step.transform.close()
            if step.predicate is not None:
                step.predicate.close()


def build_task_plugins(
    host: PluginHost, worker: Mapping[str, str], connector: Mapping[str, str]
) -> TaskPlugins:
    """Instantiate and configure converters and transforms; ConnectError names the bad key."""
    converters: list[Any] = []
    for key, is_key in ((KEY_CONVERTER_CLASS_CONFIG, True), (VALUE_CONVERTER_CLASS_CONFIG, False)):
        name, props = _converter_props(worker, connector, key)
        converter = _instantiate(host, name, key, PluginType.CONVERTER)
        converter.configure(props, is_key)
        converters.append(converter)
    name, props = _converter_props(worker, connector, HEADER_CONVERTER_CLASS_CONFIG)
    header_converter = _instantiate(host, name, HEADER_CONVERTER_CLASS_CONFIG, PluginType.HEADER_CONVERTER)
    header_converter.configure(props)
    return TaskPlugins(converters[0], converters[1], header_converter, _transform_chain(host, connector))


def _aliases(raw: str | None) -> list[str]:
    return [part.strip() for part in (raw or "").split(",") if part.strip()]


def _transform_chain(host: PluginHost, connector: Mapping[str, str]) -> list[TransformStep]:
    predicates: dict[str, Predicate] = {}
    for alias in _aliases(connector.get(PREDICATES_CONFIG)):
        prefix = f"{PREDICATES_CONFIG}.{alias}."
        predicate = _instantiate(
            host, connector.get(prefix + "type", ""), prefix + "type", PluginType.PREDICATE
        )
        predicate.configure({k: v for k, v in _prefixed(connector, prefix).items() if k != "type"})
        predicates[alias] = predicate
    steps: list[TransformStep] = []
    for alias in _aliases(connector.get(TRANSFORMS_CONFIG)):
        prefix = f"{TRANSFORMS_CONFIG}.{alias}."
        settings = _prefixed(connector, prefix)
        transform = _instantiate(host, settings.get("type", ""), prefix + "type", PluginType.TRANSFORMATION)
        transform.configure({k: v for k, v in settings.items() if k not in ("type", "predicate", "negate")})
        predicate_alias = settings.get("predicate")
        if predicate_alias and predicate_alias not in predicates:
            raise ConnectError(f"{prefix}predicate: unknown predicate alias {predicate_alias!r}")
        steps.append(
            TransformStep(
                alias,
                transform,
                predicates.get(predicate_alias) if predicate_alias else None,
                settings.get("negate", "false").strip().lower() == "true",
            )
        )
    return steps


def _instantiate(host: PluginHost, name: str, key: str, kind: PluginType) -> Any:
    if not name:
        raise ConnectError(f"{key}: missing class name")
    try:
        return host.find(name, kind).cls()
    except ConnectError as exc:
        raise ConnectError(f"{key}: {exc}") from exc
