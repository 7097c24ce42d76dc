"""A real single-node Apache Kafka broker (KRaft) for tests and benchmarks, plus Java Kafka Connect.

Importable (``KafkaBroker``, ``fetch_jars``, ``java_connect_classpath``, ``java_connect_command``) and a CLI::

    python scripts/kafka_broker.py fetch
    python scripts/kafka_broker.py start [--port N] [--data DIR]
    python scripts/kafka_broker.py run-java-connect worker.properties connector.properties [...]

The broker and the jars are the plugin author's kit's (``kconnect_testkit.broker`` and
``kconnect_testkit.jars``, in ``plugins/testkit``), so kconnect's suite and a third-party plugin's tests
start the same Kafka; this script adds the project's cache, Java Connect and the CLI. It runs from a
checkout without the kit installed too: it then imports the kit from ``plugins/testkit/src`` and its
Maven fetcher from ``plugins/java/src``.

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
from kconnect_testkit.broker import free_port as _free_port  # noqa: E402
from kconnect_testkit.broker import port_open as _port_open  # noqa: E402
from kconnect_testkit.jars import (  # noqa: E402
    KAFKA_VERSION,
    LOG4J_VERSION,
    KafkaBrokerError,
    cache_dir,
    fetch_jars,
    java_connect_classpath,
    libs_dir,
)
from kconnect_testkit.jars import java_executable as _java  # noqa: E402
from kconnect_testkit.jars import locked as _locked  # noqa: E402
from kconnect_testkit.jars import tail as _tail  # noqa: E402

__all__ = [
    "KAFKA_VERSION",
    "LOG4J_VERSION",
    "REPO_ROOT",
    "BrokerTls",
    "KafkaBroker",
    "KafkaBrokerError",
    "_free_port",
    "_java",
    "_locked",
    "_port_open",
    "_tail",
    "cache_dir",
    "console_log4j_config",
    "fetch_jars",
    "java_connect_classpath",
    "java_connect_command",
    "libs_dir",
    "main",
]

jars.set_default_cache_root(REPO_ROOT / ".cache")

_CONNECT_STANDALONE = "org.apache.kafka.connect.cli.ConnectStandalone"

_LOG4J2_CONSOLE = """\
# Written by scripts/kafka_broker.py: console logging, level from -Dkconnect.log.level (default WARN).
status = warn
appender.console.type = Console
appender.console.name = console
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = ${sys:kconnect.log.level:-WARN}
rootLogger.appenderRef.console.ref = console
"""


def console_log4j_config() -> Path:
    """Return a log4j2 config logging to the console, level from ``-Dkconnect.log.level`` (default WARN)."""
    path = cache_dir() / "log4j2-console.properties"
    if not path.is_file() or path.read_text(encoding="utf-8") != _LOG4J2_CONSOLE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_LOG4J2_CONSOLE, encoding="utf-8")
    return path


def java_connect_command(
    worker_properties: str | Path,
    *connector_properties: str | Path,
    heap: str = "512m",
    log_level: str = "WARN",
) -> list[str]:
    """Build the ``java`` command that runs Kafka Connect standalone (``ConnectStandalone``)."""
    return [
        _java(),
        f"-Xmx{heap}",
        f"-Dlog4j2.configurationFile={console_log4j_config()}",
        f"-Dkconnect.log.level={log_level}",
        "-cp",
        java_connect_classpath(),
        _CONNECT_STANDALONE,
        str(worker_properties),
        *(str(p) for p in connector_properties),
    ]


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
