"""The worker's config providers at work on its connectors' configs.

`WorkerConfigTransformer` (Kafka's class of that name) holds the providers the herder uses for
connectors: it resolves a connector's or task's config when the instance starts, schedules the
connector's restart when a value's TTL expires (``config.action.reload=restart``), and remembers the
secrets it resolved so traces can be scrubbed of them (`kconnect.config.providers_view`). The
providers are plugins: `kconnect.worker_providers` creates them with the plugin host, and resolves
the worker's own properties with them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping

from kconnect.config.connector_keys import CONFIG_RELOAD_ACTION_CONFIG
from kconnect.config.providers import CONFIG_PROVIDERS_CONFIG, ConfigProvider
from kconnect.config.providers_resolver import has_variable, reverse_transform, transform
from kconnect.config.providers_view import scrub
from kconnect.errors import ConnectError

log = logging.getLogger(__name__)

RELOAD_RESTART = "restart"


class ConfigProviderError(ConnectError):
    """A config provider could not be created or configured; the message names the key and the reason."""


def provider_names(props: Mapping[str, str]) -> list[str]:
    """The names ``config.providers`` lists (a LIST: comma-separated, blanks around names dropped)."""
    raw = props.get(CONFIG_PROVIDERS_CONFIG) or ""
    return [name.strip() for name in raw.split(",") if name.strip()]


def close_providers(providers: Iterable[ConfigProvider]) -> None:
    """Close each provider; an error closing one is logged and the others are still closed."""
    for provider in providers:
        try:
            provider.close()
        except Exception:
            log.warning("Failed to close config provider %r", provider, exc_info=True)


class _ReloadSchedule:
    """One timer per connector and path: when it fires, the connector is restarted."""

    def __init__(self, restart: Callable[[str], None]) -> None:
        self._restart = restart
        self._timers: dict[tuple[str, str], threading.Timer] = {}
        self._lock = threading.Lock()

    def schedule(self, connector: str, path: str, ttl_ms: int) -> None:
        """Restart `connector` in `ttl_ms`, replacing the timer of an earlier value from `path`."""
        log.info("Scheduling a restart of connector %s in %d ms", connector, ttl_ms)
        with self._lock:
            previous = self._timers.pop((connector, path), None)
            if previous is not None:
                previous.cancel()
            timer = threading.Timer(ttl_ms / 1000, self._fire, (connector, path))
            timer.name = f"kconnect-config-reload-{connector}"
            timer.daemon = True
            self._timers[(connector, path)] = timer
            timer.start()

    def _fire(self, connector: str, path: str) -> None:
        with self._lock:
            timer = self._timers.get((connector, path))
            if timer is not None and timer is threading.current_thread():
                del self._timers[(connector, path)]
        log.info("Restarting connector %s: a config value from %s expired", connector, path or "its provider")
        self._restart(connector)

    def cancel_all(self) -> None:
        """Cancel every pending restart (the worker is stopping)."""
        with self._lock:
            timers, self._timers = list(self._timers.values()), {}
        for timer in timers:
            timer.cancel()


class WorkerConfigTransformer:
    """The worker's config providers, used for its connectors (Kafka's ``WorkerConfigTransformer``).

    The herder's front door creates one
    (`kconnect.worker_providers.worker_config_transformer`) and hands it to the connector instances (which
    resolve a connector's config before `start`), the effect runner (a task's configs before the
    executor gets them) and the validator (a config is validated resolved). `restart` is called, from
    a timer thread, with a connector's name when a value its config used expires. Every method may be
    called from any thread.
    """

    def __init__(
        self,
        providers: Mapping[str, ConfigProvider] | None = None,
        restart: Callable[[str], None] = lambda _name: None,
        password_keys: Callable[[Mapping[str, str | None]], frozenset[str]] = lambda _config: frozenset(),
    ) -> None:
        self._providers = dict(providers or {})
        self._reloads = _ReloadSchedule(restart)
        self._password_keys = password_keys
        self._secrets: dict[str, frozenset[str]] = {}
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        """True when the worker has at least one provider."""
        return bool(self._providers)

    def transform(self, config: Mapping[str, str | None]) -> dict[str, str | None]:
        """`config` resolved, for validation: no restart is scheduled, nothing remembered."""
        if not self._providers:
            return dict(config)
        return transform(self._providers, config).data

    def resolve_connector(self, connector: str, config: Mapping[str, str]) -> dict[str, str]:
        """The connector's stored config resolved for its instance's `start`.

        Schedules the connector's restart for each TTL the providers gave, unless the config's
        ``config.action.reload`` is ``none``; remembers its PASSWORD values for `scrub`.
        """
        resolved = self._resolve(connector, config, config)
        self._remember(connector, config, resolved)
        return resolved

    def resolve_task(
        self, connector: str, connector_config: Mapping[str, str], task_config: Mapping[str, str]
    ) -> tuple[dict[str, str], dict[str, str]]:
        """The connector's and a task's stored configs resolved for the executor (as `resolve_connector`)."""
        connector_resolved = self._resolve(connector, connector_config, connector_config)
        task_resolved = self._resolve(connector, task_config, connector_config)
        self._remember(connector, connector_config, connector_resolved)
        self._remember(connector, task_config, task_resolved, self._password_keys(connector_config))
        return connector_resolved, task_resolved

    def reverse_transform(
        self, connector_config: Mapping[str, str], task_configs: Iterable[Mapping[str, str]]
    ) -> list[dict[str, str]]:
        """Task configs generated from the resolved `connector_config`, with its references put back."""
        return reverse_transform(connector_config, list(task_configs))

    def scrub(self, connector: str, text: str | None) -> str | None:
        """`text` (a trace) with every PASSWORD value resolved for `connector` replaced by ``[hidden]``."""
        with self._lock:
            secrets = self._secrets.get(connector, frozenset())
        return scrub(text, secrets)

    def close(self) -> None:
        """Cancel pending restarts and close the providers (the worker is stopping)."""
        self._reloads.cancel_all()
        providers, self._providers = list(self._providers.values()), {}
        close_providers(providers)

    def _resolve(
        self, connector: str, config: Mapping[str, str], connector_config: Mapping[str, str]
    ) -> dict[str, str]:
        if not self._providers:
            return dict(config)
        result = transform(self._providers, config)
        action = (connector_config.get(CONFIG_RELOAD_ACTION_CONFIG) or RELOAD_RESTART).strip().lower()
        if action == RELOAD_RESTART:
            for path, ttl in result.ttls.items():
                self._reloads.schedule(connector, path, ttl)
        return {key: value or "" for key, value in result.data.items()}

    def _remember(
        self,
        connector: str,
        raw: Mapping[str, str],
        resolved: Mapping[str, str],
        keys: frozenset[str] | None = None,
    ) -> None:
        password_keys = self._password_keys(raw) if keys is None else keys
        values = {resolved.get(key) for key in password_keys} | {
            raw.get(key) for key in password_keys if not has_variable(raw.get(key))
        }
        found = frozenset(value for value in values if value)
        if not found:
            return
        with self._lock:
            self._secrets[connector] = self._secrets.get(connector, frozenset()) | found
