"""Which client settings a connector may override: Kafka's ``connector.client.config.override.policy``.

A connector config may carry ``producer.override.*``, ``consumer.override.*`` and ``admin.override.*``
keys (KIP-458). The worker's policy decides which are allowed, as Kafka's policies do:

* ``All`` (Kafka's default): every key;
* ``None``: no key;
* ``Principal`` (deprecated in Kafka 4.2): ``sasl.jaas.config``, ``sasl.mechanism``, ``security.protocol``;
* ``Allowlist`` (KIP-1188, Kafka 4.2): the keys listed in ``connector.client.config.override.allowlist``
  (empty by default: none).

A policy is named by its class
(``org.apache.kafka.connect.connector.policy.NoneConnectorClientConfigOverridePolicy``), its simple
class name, or its alias (``None``); the allowlist holds exact client property names (no prefixes,
no patterns), as Kafka's ``AllowlistConnectorClientConfigOverridePolicy`` matches them.
`override_policy` reads the worker's choice at start-up and `log_override_policy` logs Kafka's set-up
lines (the worker's `check_client_config` calls both);
`validate_client_overrides` is the validation step Kafka's ``AbstractHerder.validateClientOverrides`` is,
run for each client the connector uses, plus kconnect's own rules for the keys its clients refuse
(`kconnect.config.client_properties`, `kconnect.security`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from kconnect.security import security_problems

from .client_properties import (
    ClientKind,
    client_config_def,
    client_problems,
    internal_client_props,
    worker_admin_props,
)
from .configdef import ConfigException, ConfigType, ConfigValue, parse_type
from .connector_keys import DLQ_TOPIC_NAME_CONFIG
from .topic_creation import TOPIC_CREATION_PREFIX
from .validation import ConfigInfo, ConfigKeyInfo, ConfigValueInfo
from .worker_settings import BOOTSTRAP_SERVERS_CONFIG, worker_text

POLICY_CONFIG = "connector.client.config.override.policy"
ALLOWLIST_CONFIG = "connector.client.config.override.allowlist"
DEFAULT_POLICY = "All"
_PACKAGE = "org.apache.kafka.connect.connector.policy."
_SUFFIX = "ConnectorClientConfigOverridePolicy"
#: In the order Java's HashSet of them iterates, which Kafka's deprecation warning prints.
_PRINCIPAL_KEYS = ("security.protocol", "sasl.mechanism", "sasl.jaas.config")

log = logging.getLogger(__name__)


class OverridePolicyError(ValueError):
    """The worker names an unknown policy or an invalid allowlist; the message names the key."""


@dataclass(frozen=True)
class OverridePolicy:
    """One of Kafka's override policies: its name in messages, and the keys it allows (None: all)."""

    name: str
    allowed: frozenset[str] | None
    listed: tuple[str, ...] = ()
    """The allowed keys in the order the worker lists them (``Allowlist``), for the set-up log line."""

    def allows(self, key: str) -> bool:
        """Whether a connector may override client property `key` (unprefixed)."""
        return self.allowed is None or key in self.allowed

    def error(self, key: str) -> str:
        """Kafka's message for an override this policy does not allow."""
        where = "in the connector configuration"
        return f"The '{self.name}' policy does not allow '{key}' to be overridden {where}."


POLICIES = ("All", "None", "Principal", "Allowlist")
"""The policies Kafka ships, by alias."""


def _alias(name: str) -> str | None:
    for alias in POLICIES:
        if name in (alias, alias + _SUFFIX, _PACKAGE + alias + _SUFFIX):
            return alias
    return None


def _allowlist(worker: Mapping[str, str]) -> tuple[str, ...]:
    raw = worker.get(ALLOWLIST_CONFIG, "")
    try:
        items = parse_type(ALLOWLIST_CONFIG, raw, ConfigType.LIST)
    except ConfigException as bad:
        raise OverridePolicyError(bad.message) from bad
    assert isinstance(items, list)
    if len(set(items)) != len(items):
        raise OverridePolicyError(f"Configuration '{ALLOWLIST_CONFIG}' values must not be duplicated.")
    if any(item == "" for item in items):
        raise OverridePolicyError(f"Configuration '{ALLOWLIST_CONFIG}' values must not be empty.")
    return tuple(str(item) for item in items)


def override_policy(worker: Mapping[str, str]) -> OverridePolicy:
    """The policy the worker's properties choose (Kafka's default ``All``).

    Raises OverridePolicyError, with Kafka's text, for a name that is no policy (after the key's
    name), or an allowlist Kafka would refuse (a duplicated or an empty item).
    """
    name = worker.get(POLICY_CONFIG, DEFAULT_POLICY).strip()
    alias = _alias(name)
    if alias is None:
        raise OverridePolicyError(
            f"{POLICY_CONFIG}: Failed to find any class that implements interface {_PACKAGE}{_SUFFIX} "
            f"and which name matches {name}"
        )
    if alias == "All":
        return OverridePolicy(alias, None)
    if alias == "None":
        return OverridePolicy(alias, frozenset())
    if alias == "Principal":
        return OverridePolicy(alias, frozenset(_PRINCIPAL_KEYS), _PRINCIPAL_KEYS)
    listed = _allowlist(worker)
    return OverridePolicy(alias, frozenset(listed), listed)


def log_override_policy(policy: OverridePolicy) -> None:
    """Log what Kafka's policy logs when the worker configures it: its set-up line (INFO), and for
    ``Principal`` the deprecation warning naming the equivalent allowlist. Called once, at worker start."""
    if policy.name == "All":
        log.info(
            "Setting up All Policy for ConnectorClientConfigOverride. "
            "This will allow all client configurations to be overridden"
        )
    elif policy.name == "None":
        log.info(
            "Setting up None Policy for ConnectorClientConfigOverride. "
            "This will disallow any client configuration to be overridden"
        )
    elif policy.name == "Principal":
        log.warning(
            "The Principal ConnectorClientConfigOverridePolicy is deprecated, "
            "use the Allowlist policy instead. "
            'To replicate the Principal policy behavior, set the %s configuration to "%s"',
            ALLOWLIST_CONFIG,
            ",".join(policy.listed),
        )
        log.info(
            "Setting up Principal policy for ConnectorClientConfigOverride. "
            "This will allow `sasl` client configuration to be overridden."
        )
    else:
        log.info(
            "Setting up Allowlist policy for ConnectorClientConfigOverride. "
            "This will allow the following client configurations to be overridden. [%s]",
            ", ".join(policy.listed),
        )


def clients_used(config: Mapping[str, str | None], *, sink: bool) -> tuple[ClientKind, ...]:
    """The clients whose overrides are validated, as Kafka's herder decides: a source's producer (and
    admin if it sets ``topic.creation.*`` keys); a sink's consumer (and producer and admin with a DLQ)."""
    if sink:
        if (config.get(DLQ_TOPIC_NAME_CONFIG) or "").strip():
            return (ClientKind.PRODUCER, ClientKind.ADMIN, ClientKind.CONSUMER)
        return (ClientKind.CONSUMER,)
    if any(key.startswith(TOPIC_CREATION_PREFIX) for key in config):
        return (ClientKind.PRODUCER, ClientKind.ADMIN)
    return (ClientKind.PRODUCER,)


def _worker_base(kind: ClientKind, worker: Mapping[str, str]) -> dict[str, str]:
    """What the worker gives client `kind` before the connector's overrides (Kafka's Worker)."""
    if kind is ClientKind.ADMIN:
        return {**internal_client_props(worker), **worker_admin_props(worker)}
    prefix = f"{kind.value}."
    base = {BOOTSTRAP_SERVERS_CONFIG: worker_text(worker, BOOTSTRAP_SERVERS_CONFIG)}
    base.update({k[len(prefix) :]: v for k, v in worker.items() if k.startswith(prefix)})
    return base


def _value_info(kind: ClientKind, name: str, raw: str | None, errors: list[str]) -> ConfigInfo:
    key = client_config_def(kind).config_keys.get(name)
    value: object = raw
    if key is not None and raw is not None:
        try:
            value = parse_type(name, raw, key.type)
        except ConfigException:
            value = raw
    prefixed = kind.override_prefix + name
    config_value = ConfigValue(prefixed, value=value, errors=list(errors))
    return ConfigInfo(
        None if key is None else ConfigKeyInfo.from_key(key, kind.override_prefix),
        ConfigValueInfo.from_value(config_value, None if key is None else key.type),
    )


def validate_client_overrides(
    policy: OverridePolicy,
    config: Mapping[str, str | None],
    worker: Mapping[str, str],
    *,
    sink: bool,
) -> tuple[list[ConfigInfo], int]:
    """The override keys' entries for the validate endpoint, and how many have errors.

    For each client the connector uses (`clients_used`), in Kafka's order (producer, admin, consumer):
    each ``<client>.override.<key>`` gets the policy's error when the policy forbids it (Kafka's text);
    an allowed key gets kconnect's error when its clients refuse it (unknown key, unsupported key or
    value, invalid security settings as combined with the worker's). Entries keep the config's order.
    """
    infos: list[ConfigInfo] = []
    with_errors = 0
    used = clients_used(config, sink=sink)
    for kind in (k for k in (ClientKind.PRODUCER, ClientKind.ADMIN, ClientKind.CONSUMER) if k in used):
        prefix = kind.override_prefix
        overrides = {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}
        allowed = {k: v for k, v in overrides.items() if policy.allows(k) and v is not None}
        problems = client_problems(kind, allowed)
        combined = {**_worker_base(kind, worker), **allowed}
        for name, reason in security_problems(combined).items():
            if name in allowed or name not in overrides:
                problems.setdefault(name, reason)
        for name, raw in overrides.items():
            errors = [policy.error(name)] if not policy.allows(name) else []
            if not errors and name in problems:
                errors.append(problems.pop(name))
            infos.append(_value_info(kind, name, raw, errors))
            with_errors += bool(errors)
        if allowed:
            # A combined security rule broken by a key the connector did not set (a SASL protocol
            # without its JAAS line): reported against that key, under the connector's prefix.
            for name, reason in problems.items():
                if name not in overrides:
                    infos.append(_value_info(kind, name, None, [reason]))
                    with_errors += 1
    return infos, with_errors
