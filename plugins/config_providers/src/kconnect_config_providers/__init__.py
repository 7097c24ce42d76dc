"""Kafka's config providers (KIP-297) for kconnect.

Installed as a kconnect plugin through the entry point ``config_providers``. A worker names them as
Kafka's does (``config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider``)
or by the class name alone (``FileConfigProvider``); each reads the same ``param.*`` keys and
answers as the Kafka class of that name does. See docs/secrets.md.
"""

from __future__ import annotations

__version__ = "0.1.0"
