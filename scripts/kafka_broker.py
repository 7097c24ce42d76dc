"""A real single-node Apache Kafka broker (KRaft) for tests and benchmarks, plus Java Kafka Connect.

Importable (``KafkaBroker``, ``fetch_jars``, ``java_connect_classpath``, ``java_connect_command``) and a CLI::

    python scripts/kafka_broker.py fetch
    python scripts/kafka_broker.py start [--port N] [--data DIR]
    python scripts/kafka_broker.py run-java-connect worker.properties connector.properties [...]

The broker, the jars and Java Connect's command are the plugin author's kit's
(``kconnect_testkit.broker`` and ``kconnect_testkit.jars``, in ``plugins/testkit``), so kconnect's suite
and a third-party plugin's tests start the same Kafka; this script adds the project's cache
(``<repo>/.cache``) and the CLI. It runs from a checkout without the kit installed too: it then imports
the kit from ``plugins/testkit/src`` and its Maven fetcher from ``plugins/java/src``.

Kafka's jars come from Maven Central through ``mvn`` and are cached in
``$KCONNECT_CACHE/kafka-<version>/libs`` (default ``<repo>/.cache/kafka-<version>/libs``). The same
jars carry Kafka Connect's runtime and the ``connect-file`` and ``connect-json`` plugins, so Java's
``ConnectStandalone`` runs from them with no ``plugin.path``.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

try:
    import kconnect_testkit  # noqa: F401
except ImportError:  # a checkout whose environment lacks the kit (a bare `python scripts/...`)
    # The kit and the Maven fetcher it uses (`kconnect_java.maven`, standard library only).
    sys.path[:0] = [
        str(REPO_ROOT / "plugins" / "testkit" / "src"),
        str(REPO_ROOT / "plugins" / "java" / "src"),
    ]

from kconnect_testkit import jars  # noqa: E402
from kconnect_testkit.broker import BrokerTls, KafkaBroker  # noqa: E402
from kconnect_testkit.jars import (  # noqa: E402
    CONNECT_STANDALONE,
    KAFKA_VERSION,
    LOG4J_VERSION,
    KafkaBrokerError,
    cache_dir,
    console_log4j_config,
    fetch_jars,
    java_connect_classpath,
    java_connect_command,
    libs_dir,
)

__all__ = [
    "CONNECT_STANDALONE",
    "KAFKA_VERSION",
    "LOG4J_VERSION",
    "REPO_ROOT",
    "BrokerTls",
    "KafkaBroker",
    "KafkaBrokerError",
    "cache_dir",
    "console_log4j_config",
    "fetch_jars",
    "java_connect_classpath",
    "java_connect_command",
    "libs_dir",
    "main",
]

jars.set_default_cache_root(REPO_ROOT / ".cache")


# ---------------------------------------------------------------------------------------------------------
# CLI


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI: ``fetch``, ``start [--port N] [--data DIR]`` or ``run-java-connect WORKER CONN...``."""
    parser = argparse.ArgumentParser(prog="kafka_broker.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("fetch", help="download Kafka's jars into the cache")
    start = commands.add_parser("start", help="run a broker in the foreground until Ctrl-C")
    start.add_argument("--port", type=int, help="PLAINTEXT port (default: a free one)")
    start.add_argument("--data", type=Path, help="data folder to use and keep (default: a temporary one)")
    connect = commands.add_parser("run-java-connect", help="run Java Kafka Connect standalone")
    connect.add_argument("worker", type=Path, help="worker .properties")
    connect.add_argument("connectors", type=Path, nargs="+", help="connector .properties")
    connect.add_argument("--log-level", default="INFO", help="log4j level on the console (default INFO)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        if args.command == "fetch":
            print(fetch_jars())
            return 0
        if args.command == "run-java-connect":
            command = java_connect_command(args.worker, *args.connectors, log_level=args.log_level)
            with contextlib.suppress(KeyboardInterrupt):
                return subprocess.call(command)
            return 130
        broker = KafkaBroker(port=args.port, data_dir=args.data)
        with broker:
            print(broker.bootstrap_servers, flush=True)
            print(
                f"cluster id {broker.cluster_id}, log {broker.log_path}; Ctrl-C to stop",
                file=sys.stderr,
            )
            with contextlib.suppress(KeyboardInterrupt):
                code = broker.wait()
                print(f"Kafka exited with code {code}; see {broker.log_path}", file=sys.stderr)
                return 1
        return 0
    except KafkaBrokerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
