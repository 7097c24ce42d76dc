"""The ``kconnect`` command: ``kconnect standalone WORKER.properties [CONNECTOR.properties|.json ...]``
and ``kconnect distributed WORKER.properties`` (Kafka's connect-standalone / connect-distributed), and
the configs' checks before deploy (docs/config-tests.md): ``kconnect validate FILE...`` and
``kconnect test CONNECTOR.properties --records IN.jsonl [--expect OUT.jsonl]``, and the plugin
author's start, ``kconnect plugin new NAME [--kind source|sink] [--dir DIR]`` (`kconnect_rest.scaffold`).

Bad input (a missing file, a bad key, an invalid connector config) ends with one line on stderr
naming the file, the key and the reason, and a non-zero exit status; never a traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from kconnect import __version__
from kconnect.errors import ConnectError

from kconnect_rest.api_version import KAFKA_CONNECT_VERSION
from kconnect_rest.config_test import add_test_parser, run_test
from kconnect_rest.config_validate import run_validate
from kconnect_rest.scaffold import new_plugin

log = logging.getLogger("kconnect")

EXIT_BAD_INPUT = 2
EXIT_FAILURE = 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kconnect",
        description="Kafka Connect for Python: Kafka Connect's config files and REST API.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"kconnect {__version__} (serves the REST API of Kafka Connect {KAFKA_CONNECT_VERSION})",
    )
    parser.add_argument("--log-level", help="root log level (default INFO; WARNING for validate and test)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    standalone = commands.add_parser("standalone", help="run a standalone worker")
    standalone.add_argument(
        "worker_config", help="worker .properties file (Kafka's connect-standalone.properties)"
    )
    standalone.add_argument("connector_configs", nargs="*", help="connector .properties or .json files")
    distributed = commands.add_parser("distributed", help="run a worker of a distributed cluster")
    distributed.add_argument(
        "worker_config", help="worker .properties file (Kafka's connect-distributed.properties)"
    )
    validate = commands.add_parser(
        "validate",
        help="validate connector configs against the installed plugins, without a worker",
        description="Validate connector configs as PUT /connector-plugins/{plugin}/config/validate does. "
        "Exit 0 when every file is valid, 1 when any has an error, 2 when a file cannot be read.",
    )
    validate.add_argument(
        "--worker",
        metavar="WORKER.properties",
        help="the worker file the connectors will run on (default: a standalone worker's defaults; "
        "a file with group.id adds the distributed checks)",
    )
    validate.add_argument("-o", "--output", choices=("text", "json"), default="text")
    validate.add_argument("files", nargs="+", metavar="FILE", help="connector .properties or .json files")
    add_test_parser(commands)
    plugin = commands.add_parser("plugin", help="write a new plugin project")
    plugin_commands = plugin.add_subparsers(dest="plugin_command", required=True, metavar="COMMAND")
    new = plugin_commands.add_parser(
        "new",
        help="scaffold a pip-installable plugin with a connector, a task and tests",
        description="Write <DIR>/<NAME>: pyproject.toml with the kconnect entry point, a source or sink "
        "connector and task that move records, and tests on a real broker with kconnect-testkit's fixtures.",
    )
    new.add_argument("name", metavar="NAME", help="the plugin's name, e.g. acme-counter")
    new.add_argument("--kind", choices=("source", "sink"), default="source", help="default: source")
    new.add_argument("--dir", default=".", help="the folder to write the project into (default: here)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kconnect`` command; returns the process exit status."""
    args = _parser().parse_args(argv)
    offline = args.command in ("validate", "test", "plugin")
    logging.basicConfig(
        level=(args.log_level or ("WARNING" if offline else "INFO")).upper(),
        format="[%(asctime)s] %(levelname)s %(message)s (%(name)s)",
        stream=sys.stderr,
    )
    for noisy in ("aiokafka", "py4j", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if offline:
        return _offline(args)
    from kconnect_rest import event_loop
    from kconnect_rest.worker import DistributedWorker, StandaloneWorker

    try:
        if args.command == "distributed":
            event_loop.run(DistributedWorker.from_file(args.worker_config).run())
        else:
            event_loop.run(StandaloneWorker.from_files(args.worker_config, args.connector_configs).run())
    except ConnectError as exc:
        print(f"kconnect: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 0
    except Exception as exc:
        log.debug("Unexpected error", exc_info=True)
        print(f"kconnect: unexpected error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    return 0


def _offline(args: argparse.Namespace) -> int:
    """``kconnect validate`` and ``kconnect test``: bad input is one line on stderr and exit 2."""
    try:
        if args.command == "validate":
            return run_validate(args.files, args.worker, args.output, sys.stdout)
        if args.command == "plugin":
            return _plugin_new(args)
        return run_test(args, sys.stdout)
    except ConnectError as exc:
        print(f"kconnect {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:
        log.debug("Unexpected error", exc_info=True)
        print(f"kconnect {args.command}: unexpected error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILURE


def _plugin_new(args: argparse.Namespace) -> int:
    """``kconnect plugin new``: write the project (`kconnect_rest.scaffold`) and print its folder."""
    print(new_plugin(args.name, args.kind, args.dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
