"""kconnect's own tests. Whatever they fetch (Kafka's jars, plugins, servers) is kept in the checkout's
``.cache`` unless ``$KCONNECT_CACHE`` names another folder, as ``scripts/kafka_broker.py`` keeps it, so
``python -m tests.storage_servers`` and a test session share one cache."""

from pathlib import Path

from kconnect_testkit import jars

jars.set_default_cache_root(Path(__file__).resolve().parent.parent / ".cache")
