"""Connector config validation for the herder: the validate endpoint and every create / update.

Steps, as Kafka's AbstractHerder.validateConnectorConfig: require ``connector.class``; find the
plugin among the registered ones (nothing is imported by name); validate the framework's source or
sink keys, enriched with the keys of the converters, transformations and predicates the config
names (`kconnect.config.plugin_keys`: an unknown one is an error of its key), plus the connector's
own (its `config_def` and `validate`, user code run in a thread); render Kafka's ConfigInfos. A
``connector.plugin.version`` range no installed version is in answers Kafka's error on that key
and on ``connector.class``, validating nothing else (KIP-891).
Create / update then reject a config with errors with Kafka's multi-error message, and an unknown
connector class with Kafka's 400 "Failed to find any class ..." text. The executor's own connector
keys (`Executor.connector_config_def`) are validated when a config sets them. A source config with a
``topic.creation.`` key also gets its topic creation groups' keys (`kconnect.config.topic_creation`)
when the worker's ``topic.creation.enable`` is true. A distributed worker also checks a source
config's exactly-once keys (`kconnect.herder.source_validation`); a standalone one does not, as Kafka.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from kconnect.config import (
    ConfigDef,
    ConfigInfos,
    ConfigKeyInfo,
    ConfigValue,
    build_config_infos,
    connector_config_def,
    connector_plugin_config,
    generate_result,
    invalid_config_message,
    sink_connector_config_def,
    source_connector_config_def,
)
from kconnect.config.connector_keys import (
    CONNECTOR_CLASS_CONFIG,
    CONNECTOR_VERSION_CONFIG,
    HEADER_CONVERTER_CLASS_CONFIG,
    KEY_CONVERTER_CLASS_CONFIG,
    NAME_CONFIG,
    NULL_VALUE_MESSAGE,
    PREDICATES_CONFIG,
    TRANSFORMS_CONFIG,
    VALUE_CONVERTER_CLASS_CONFIG,
    WORKER_CONVERTER_DEFAULTS,
)
from kconnect.config.extension_keys import extension_config_def
from kconnect.config.override_policy import override_policy, validate_client_overrides
from kconnect.config.plugin_keys import InstalledPlugins, PluginChoices, enrich, with_connector_version
from kconnect.config.providers_view import as_sent
from kconnect.config.providers_worker import WorkerConfigTransformer
from kconnect.config.topic_creation import enrich_topic_creation, uses_topic_creation
from kconnect.config.worker_keys import ExactlyOnceSourceSupport
from kconnect.errors import BadRequestError, PluginError
from kconnect.executor import Executor
from kconnect.herder.source_validation import source_key_errors
from kconnect.herder.source_validation import with_errors as with_key_errors
from kconnect.model import ConnectorType
from kconnect.plugin_host import PluginDesc, PluginHost, PluginType
from kconnect.plugin_versions import PluginVersionError, version_key, version_requirement
from kconnect.worker_config import WorkerConfig, topic_creation_enabled

log = logging.getLogger(__name__)


def _java_map(config: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in config.items()) + "}"


def _defined(version: str) -> str | None:
    return None if version in ("", "undefined") else version


def _listing_order(plugin: PluginDesc) -> tuple[str, tuple[tuple[int, int, str], ...]]:
    return plugin.class_name, version_key(plugin.version)


def _installed(host: PluginHost, interface: str, kind: PluginType) -> InstalledPlugins:
    """One kind's installed plugins, as `kconnect.config.plugin_keys` sees them."""
    versions: dict[str, str] = {}
    config_defs: dict[str, ConfigDef] = {}
    for plugin in host.plugins(kind):
        versions.setdefault(plugin.class_name, plugin.version)
        own = getattr(plugin.cls, "config_def", None)
        if isinstance(own, ConfigDef):
            config_defs.setdefault(plugin.class_name, own)
    accepted = {name: plugin.class_name for name, plugin in host.accepted_names(kind).items()}
    return InstalledPlugins(interface, accepted, versions, config_defs)


def plugin_choices(host: PluginHost, worker_props: Mapping[str, str]) -> PluginChoices:
    """What `host` has installed and which converters the worker uses (its properties, else Kafka's)."""
    everything: dict[str, str] = {}
    for kind in PluginType:
        for name, plugin in host.accepted_names(kind).items():
            everything.setdefault(name, plugin.class_name)
    return PluginChoices(
        converters=_installed(host, "Converter", PluginType.CONVERTER),
        header_converters=_installed(host, "HeaderConverter", PluginType.HEADER_CONVERTER),
        transformations=_installed(host, "Transformation", PluginType.TRANSFORMATION),
        predicates=_installed(host, "Predicate", PluginType.PREDICATE),
        everything=everything,
        worker_converters={
            key: (worker_props.get(key) or "").strip() or default
            for key, default in WORKER_CONVERTER_DEFAULTS.items()
        },
    )


def _unmatched_version(config: Mapping[str, str | None], unmatched: PluginVersionError) -> ConfigInfos:
    """Kafka's answer when no version of the connector is in ``connector.plugin.version``'s range
    (AbstractHerder.invalidVersionedConnectorValidation): only the keys every connector has are
    validated, its newest version the default, and the error goes on ``connector.class`` and on
    ``connector.plugin.version``, whose recommended values are the versions there are."""
    newest = unmatched.available[-1] if unmatched.available else None
    common = with_connector_version(connector_config_def(), _defined(newest) if newest else None)
    values = common.validate(config)
    for key in (CONNECTOR_CLASS_CONFIG, CONNECTOR_VERSION_CONFIG):
        values[key].add_error(str(unmatched))
    values[CONNECTOR_VERSION_CONFIG].recommended_values = list(unmatched.available)
    for name, value in config.items():
        if value is None:
            values.setdefault(name, ConfigValue(name)).add_error(NULL_VALUE_MESSAGE)
    connector_class = str(config.get(CONNECTOR_CLASS_CONFIG) or "")
    return generate_result(connector_class, common.config_keys, values.values(), common.groups())


class ConnectorValidator:
    """Validates connector configs and answers plugin questions, on behalf of the herder.

    `worker_props` are the worker's properties: its ``key.converter`` / ``value.converter`` /
    ``header.converter`` are what validate shows for a connector that sets none. `exactly_once` is a
    distributed worker's ``exactly.once.source.support``; None (a standalone worker) skips the
    exactly-once checks, as Kafka's StandaloneHerder.
    """

    def __init__(
        self,
        plugins: PluginHost,
        worker_props: Mapping[str, str] | None = None,
        executor_keys: ConfigDef | None = None,
        transformer: WorkerConfigTransformer | None = None,
        exactly_once: ExactlyOnceSourceSupport | None = None,
    ) -> None:
        """`executor_keys`: the connector keys the executor reads (`Executor.connector_config_def`);
        `transformer`: the worker's config providers, whose references are resolved before validation."""
        self._plugins = plugins
        self._transformer = transformer or WorkerConfigTransformer()
        self._choices = plugin_choices(plugins, worker_props or {})
        self._executor_keys = executor_keys or ConfigDef()
        self._worker_props = dict(worker_props or {})
        self._override_policy = override_policy(self._worker_props)
        self._topic_creation = topic_creation_enabled(worker_props or {})
        self._exactly_once = exactly_once
        #: `plugin_config` by plugin name (newest version): installed plugins and their ConfigDefs do
        #: not change while the worker runs, and REST asks for every connector of a listing (its
        #: PASSWORD keys).
        self._plugin_configs: dict[str, tuple[ConfigKeyInfo, ...]] = {}

    @classmethod
    def for_worker(
        cls,
        worker_config: WorkerConfig,
        plugins: PluginHost,
        executor: Executor | None,
        transformer: WorkerConfigTransformer,
        exactly_once: ExactlyOnceSourceSupport | None = None,
    ) -> ConnectorValidator:
        """The validator of a worker: its properties, its executor's connector keys (none without an
        executor) and kconnect's own (`extension_config_def`). Called by the herder's front door and
        by ``kconnect validate``, so both give the same answers."""
        executor_keys = executor.connector_config_def() if executor is not None else ConfigDef()
        return cls(
            plugins,
            worker_config.props,
            executor_keys.merge(extension_config_def()),
            transformer,
            exactly_once,
        )

    def plugin(self, config: Mapping[str, str]) -> PluginDesc:
        """The connector plugin ``connector.class`` names; PluginError if none."""
        return self._plugins.connector(
            config.get(CONNECTOR_CLASS_CONFIG, ""), config.get(CONNECTOR_VERSION_CONFIG)
        )

    def task_version(self, config: Mapping[str, str], task_class: str) -> str | None:
        """The version of the task class of the connector ``connector.class`` names, if it is
        `task_class`; None when unknown (the class is never imported by its name)."""
        try:
            cls: Any = self._plugins.task_class(config.get(CONNECTOR_CLASS_CONFIG, ""), task_class)
            version = getattr(cls, "version", None)
            return str(version() if callable(version) else version) if version else None
        except Exception:
            return None

    def connector_type(self, config: Mapping[str, str]) -> ConnectorType:
        """SOURCE, SINK, or UNKNOWN when ``connector.class`` names no installed connector."""
        try:
            plugin = self._plugins.connector(
                config.get(CONNECTOR_CLASS_CONFIG, ""), config.get(CONNECTOR_VERSION_CONFIG)
            )
        except Exception:
            return ConnectorType.UNKNOWN
        return ConnectorType.SINK if plugin.type is PluginType.SINK else ConnectorType.SOURCE

    async def validate(self, config: Mapping[str, str | None]) -> ConfigInfos:
        """Kafka's ConfigInfos for `config`; BadRequestError without ``connector.class``, PluginError
        when it names no installed connector.

        As Kafka's validateConnectorConfig, the config's provider references are resolved first and
        the resolved values validated; the answer shows the values as sent (docs/secrets.md).
        """
        sent = config
        if self._transformer.enabled:
            # A provider's ConfigException propagates: a 500 with its message, as in Kafka.
            config = await asyncio.to_thread(self._transformer.transform, sent)
        connector_class = config.get(CONNECTOR_CLASS_CONFIG)
        if not connector_class:
            raise BadRequestError(f"Connector config {_java_map(sent)} contains no connector type")
        try:
            plugin = self._plugins.connector(connector_class, config.get(CONNECTOR_VERSION_CONFIG))
        except PluginVersionError as unmatched:
            return as_sent(_unmatched_version(config, unmatched), sent, config)
        infos = await asyncio.to_thread(self._validate_with, plugin, config)
        return as_sent(infos, sent, config)

    def _validate_with(self, plugin: PluginDesc, config: Mapping[str, str | None]) -> ConfigInfos:
        sink = plugin.type is PluginType.SINK
        framework = sink_connector_config_def() if sink else source_connector_config_def()
        choices = dataclasses.replace(self._choices, connector_version=_defined(plugin.version))
        common = enrich(framework, config, choices)
        if not sink and self._topic_creation and uses_topic_creation(config):
            common = enrich_topic_creation(common, config)
        # Only the executor keys a config sets: a config without them validates exactly as in Kafka.
        used = ConfigDef()
        for name, key in self._executor_keys.config_keys.items():
            if name in config:
                used.define_key(key)
        common = common.merge(used, keep_existing=True)
        own_def: ConfigDef = getattr(plugin.cls, "config_def", None) or ConfigDef()
        instance = plugin.cls()
        infos = build_config_infos(
            str(config.get(NAME_CONFIG) or ""),
            plugin.class_name,
            common,
            own_def,
            config,
            instance.validate,
            sink=sink,
        )
        # A Java source connector's instance is no SourceConnector but answers the same two questions.
        if not sink and self._exactly_once is not None:
            # Kafka checks these on the framework's values, before the connector's own validate.
            resolved = {key: value for key, value in config.items() if value is not None}
            errors = source_key_errors(instance, resolved, infos, self._exactly_once)
            infos = with_key_errors(infos, errors)
        # Kafka's validateClientOverrides: the override keys' entries follow the connector's own.
        overrides, with_errors = validate_client_overrides(
            self._override_policy, config, self._worker_props, sink=sink
        )
        return dataclasses.replace(
            infos, error_count=infos.error_count + with_errors, configs=(*infos.configs, *overrides)
        )

    async def check(self, config: Mapping[str, str]) -> None:
        """What create / update require: a valid config (BadRequestError with Kafka's multi-error text)
        naming no plugin that cannot run (a Java plugin, in this version: its own 400 first).

        The framework's ``name`` key carries Kafka's name rules (not empty, no control characters).
        """
        try:
            infos = await self.validate(config)
        except PluginError as unknown:
            raise BadRequestError(str(unknown)) from unknown  # Kafka answers 400 on create / update
        try:
            runtime = self._plugins.task_runtime(
                config.get(CONNECTOR_CLASS_CONFIG, ""), config.get(CONNECTOR_VERSION_CONFIG)
            )
        except PluginVersionError:
            runtime = None  # no version in the range: the config's errors say so below
        for plugin in self._named_plugins(config) if runtime is not None else ():
            # A plugin found from the worker config (FoundPlugin, e.g. a Java class) that cannot run
            # with this connector (a Java transformation runs in a Java connector's tasks only).
            refuse = getattr(plugin.cls, "refuse_to_run", None)
            refusal = refuse(runtime) if callable(refuse) else None
            if refusal is not None:
                raise refusal
        # The endpoint named in the message takes a plugin name: the connector class as given works.
        message = invalid_config_message(infos, config.get(CONNECTOR_CLASS_CONFIG, ""))
        if message is not None:
            raise BadRequestError(message)

    def _named_plugins(self, config: Mapping[str, str]) -> list[PluginDesc]:
        """The installed plugins `config` names: its connector, converters, transformations, predicates."""
        named: list[tuple[str, tuple[PluginType, ...]]] = [
            (config.get(CONNECTOR_CLASS_CONFIG, ""), (PluginType.SOURCE, PluginType.SINK)),
            (config.get(KEY_CONVERTER_CLASS_CONFIG, ""), (PluginType.CONVERTER,)),
            (config.get(VALUE_CONVERTER_CLASS_CONFIG, ""), (PluginType.CONVERTER,)),
            (config.get(HEADER_CONVERTER_CLASS_CONFIG, ""), (PluginType.HEADER_CONVERTER,)),
        ]
        for key, value in config.items():
            if key.endswith(".type") and key.startswith(f"{TRANSFORMS_CONFIG}."):
                named.append((value, (PluginType.TRANSFORMATION,)))
            elif key.endswith(".type") and key.startswith(f"{PREDICATES_CONFIG}."):
                named.append((value, (PluginType.PREDICATE,)))
        found = (self._plugins.lookup((name or "").strip(), *kinds) for name, kinds in named)
        return [plugin for plugin in found if plugin is not None]

    def plugins(self, connectors_only: bool) -> list[PluginDesc]:
        """Sinks, then sources, then (unless `connectors_only`) the other kinds; by class name in a kind.

        Kafka lists each kind sorted by class name, then version (oldest first); a name registered
        twice is listed twice.
        """
        kinds = [PluginType.SINK, PluginType.SOURCE]
        if not connectors_only:
            kinds += [
                PluginType.TRANSFORMATION,
                PluginType.PREDICATE,
                PluginType.CONVERTER,
                PluginType.HEADER_CONVERTER,
            ]
        return [p for kind in kinds for p in sorted(self._plugins.plugins(kind), key=_listing_order)]

    def plugin_config(self, plugin_name: str, version: str | None = None) -> list[ConfigKeyInfo]:
        """The plugin's config keys, then the framework's connector keys (KIP-769); PluginError if unknown.

        With `version` (KIP-891: a version, exactly it, or a Maven range) those of the newest installed
        version in it: PluginVersionError with Kafka's text when none is, BadRequestError with
        Kafka's text when Maven cannot parse it.
        """
        if (version or "").strip():
            # Not cached: the versions and ranges a client may ask for are unbounded.
            return self._plugin_config(plugin_name, version)
        known = self._plugin_configs.get(plugin_name)
        if known is None:
            known = self._plugin_configs[plugin_name] = tuple(self._plugin_config(plugin_name, None))
        return list(known)

    def _plugin_config(self, plugin_name: str, version: str | None) -> list[ConfigKeyInfo]:
        kinds = [t for t in PluginType if t is not PluginType.REST_EXTENSION]
        try:
            requirement = version_requirement(version)
        except ValueError as invalid:
            raise BadRequestError(f"Invalid version specification: {version}") from invalid
        plugin = self._plugins.versioned(plugin_name, requirement, *kinds)
        if plugin.type is PluginType.CONFIG_PROVIDER:
            raise BadRequestError(
                f"Invalid plugin class {plugin_name}. Valid types are sink, source, converter, "
                "header_converter, transformation, predicate."
            )
        own_def: ConfigDef = getattr(plugin.cls, "config_def", None) or ConfigDef()
        framework: ConfigDef | None = None
        if plugin.type is PluginType.SINK:
            framework = sink_connector_config_def()
        elif plugin.type is PluginType.SOURCE:
            framework = source_connector_config_def()
        if framework is not None:  # the newest version as default, as validate shows it (and Kafka
            # shows it whichever version was asked for)
            newest = self._plugins.find(plugin_name, *kinds)
            framework = with_connector_version(framework, _defined(newest.version))
        return connector_plugin_config(own_def, framework)
