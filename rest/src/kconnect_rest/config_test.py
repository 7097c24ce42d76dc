"""``kconnect test CONNECTOR.properties --records IN.jsonl [--expect OUT.jsonl] [--kind source|sink]``:
a connector config's converters, transformations and predicates run over sample records, without a
broker (docs/config-tests.md).

The pipeline is the runtime's own (`kconnect.runtime.dry_run`), the file format the kernel's
(`kconnect.runtime.sample_records`); this module reads the files, prints and picks the exit status.
Without ``--expect`` it prints one JSON line per input record and exits 0, or 1 when a record fails
the task (``errors.tolerance=none``). With ``--expect`` it prints a unified diff of expected and
actual lines and exits 1 when they differ, 0 when they match. Unreadable input exits 2.
"""

from __future__ import annotations

import argparse
import difflib
import json
from pathlib import Path
from typing import Any, TextIO

from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG
from kconnect.errors import ConnectError
from kconnect.herder.offline_validation import validation_worker
from kconnect.plugin_host import PluginHost, PluginType
from kconnect.runtime.dry_run import DryRun, Failed
from kconnect.runtime.sample_records import (
    ConnectDataFormat,
    connect_data_codec,
    consumed_message,
    normalized,
    parse_line,
    show_outcome,
)
from kconnect.worker_config import ConfigFileError, load_properties

EXIT_PASSED = 0
EXIT_FAILED = 1


def add_test_parser(commands: Any) -> None:
    """Add ``test`` to the ``kconnect`` command's subcommands (`commands`, argparse's subparsers)."""
    test = commands.add_parser(
        "test",
        help="run a connector config's converters and transformations over sample records",
        description="Run the config's transforms, predicates and converters over sample records "
        "(JSON lines) and print, or compare with --expect, what would reach Kafka (source) or the "
        "task (sink). Exit 0 on success or a match, 1 on a mismatch or a failed task, 2 on bad input.",
    )
    test.add_argument(
        "connector_config", metavar="CONNECTOR.properties", help="connector .properties or .json"
    )
    test.add_argument(
        "--records", required=True, metavar="IN.jsonl", help="sample records, one JSON object a line"
    )
    test.add_argument("--expect", metavar="OUT.jsonl", help="the expected output lines; print a diff")
    test.add_argument(
        "--kind", choices=("source", "sink"), help="default: the kind of the connector connector.class names"
    )
    test.add_argument(
        "--worker", metavar="WORKER.properties", help="the worker file (its converters are the defaults)"
    )


def _lines(path: str) -> list[tuple[str, str]]:
    """Each non-blank line of `path` with its place (``FILE:LINE``)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        raise ConfigFileError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from exc
    return [(f"{path}:{number}", line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]


def _expected(path: str, sink: bool) -> list[Any]:
    """The expected lines, normalized: a record (or error) object, or null for a dropped record."""
    return [
        None if line.strip() == "null" else normalized(parse_line(line, where), sink, where)
        for where, line in _lines(path)
    ]


def _is_sink(kind: str | None, config: dict[str, str], host: PluginHost, path: str) -> bool:
    if kind is not None:
        return kind == "sink"
    try:
        return host.connector(config.get(CONNECTOR_CLASS_CONFIG, "")).type is PluginType.SINK
    except ConnectError:
        raise ConfigFileError(
            f"{path}: {CONNECTOR_CLASS_CONFIG}: names no installed connector; "
            "say --kind source or --kind sink"
        ) from None


def _shown(line: Any) -> str:
    return json.dumps(line, sort_keys=True)


def _differences(expected: Any, actual: Any, path: str) -> list[str]:
    """Where two JSON values differ, one ``path: expected X, got Y`` each, deepest first."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        found: list[str] = []
        for key in [*expected, *(k for k in actual if k not in expected)]:
            where = f"{path}.{key}" if path else key
            if key not in actual:
                found.append(f"{where}: expected {json.dumps(expected[key])}, got nothing")
            elif key not in expected:
                found.append(f"{where}: expected nothing, got {json.dumps(actual[key])}")
            else:
                found += _differences(expected[key], actual[key], where)
        return found
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [
            d
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for d in _differences(e, a, f"{path}[{i}]")
        ]
    if expected == actual:
        return []
    return [f"{path or 'line'}: expected {json.dumps(expected)}, got {json.dumps(actual)}"]


def _compare(expect_path: str, actual: list[Any], sink: bool, out: TextIO) -> int:
    """Print a unified diff of the expected and actual lines, then each difference by field."""
    wanted = _expected(expect_path, sink)
    got = [normalized(line, sink, "actual") for line in actual]
    if [_shown(line) for line in wanted] == [_shown(line) for line in got]:
        print(f"{expect_path}: {len(got)} line{'s' if len(got) != 1 else ''} as expected", file=out)
        return EXIT_PASSED
    diff = difflib.unified_diff(
        [_shown(line) for line in wanted],
        [_shown(line) for line in got],
        f"{expect_path} (expected)",
        "actual",
        lineterm="",
    )
    for line in diff:
        print(line, file=out)
    differing = 0
    for number in range(max(len(wanted), len(got))):
        if number >= len(wanted) or number >= len(got):
            what = "an extra line" if number >= len(wanted) else "a missing line"
            print(f"line {number + 1}: {what}", file=out)
            differing += 1
            continue
        found = _differences(wanted[number], got[number], "")
        differing += bool(found)
        for difference in found:
            print(f"line {number + 1}: {difference}", file=out)
    print(f"{expect_path}: {differing} of {max(len(wanted), len(got))} lines differ", file=out)
    return EXIT_FAILED


def run_test(args: argparse.Namespace, out: TextIO) -> int:
    """Run the sample records through the config; print to `out` and return the exit status.

    ConnectError (a file that cannot be read, a bad line, a plugin that cannot be made) propagates
    for the command to print as one line and exit 2.
    """
    host = PluginHost.load()
    worker = validation_worker(args.worker, host)
    config = load_properties(args.connector_config)
    sink = _is_sink(args.kind, config, host, args.connector_config)
    data = ConnectDataFormat(connect_data_codec(host))
    records = [(where, parse_line(line, where)) for where, line in _lines(args.records)]
    if sink:
        inputs: list[Any] = [consumed_message(line, where, i) for i, (where, line) in enumerate(records)]
    else:
        inputs = [data.source_record(line, where) for where, line in records]
    run = DryRun(host, worker.props, config)
    try:
        outcomes = list(run.sink(inputs) if sink else run.source(inputs))
    finally:
        run.close()
    actual = [show_outcome(outcome, sink, data) for outcome in outcomes]
    if args.expect is not None:
        return _compare(args.expect, actual, sink, out)
    for line in actual:
        print(json.dumps(line), file=out)
    return EXIT_FAILED if outcomes and isinstance(outcomes[-1], Failed) else EXIT_PASSED
