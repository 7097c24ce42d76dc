"""The command line's grammar: verbs, resources, options, and which function runs each command.

Each command's parser carries ``run`` (the function) and ``kind``: ``client`` (it talks to a
cluster: ``run(client, args)``), ``config`` (the context file: ``run(path, args)``) or
``completion`` (``run(parser, args)``). The global options (``--cluster``, ``--context``,
``--request-timeout``) are taken before or after the verb, as kubectl takes them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from kconnect_ctl import __version__, config_commands, reads, writes
from kconnect_ctl.errors import EXIT_BAD_INPUT
from kconnect_ctl.render import FORMATS

PROG = "kconnectctl"


class Parser(argparse.ArgumentParser):
    """argparse with a usage error on one line (and exit code 2), never the usage block."""

    def error(self, message: str) -> NoReturn:
        """Print ``error: PROG VERB: message`` and exit with `EXIT_BAD_INPUT`."""
        self.exit(EXIT_BAD_INPUT, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser(completion: Callable[[argparse.ArgumentParser, argparse.Namespace], int]) -> Parser:
    """The whole grammar; `completion` is the function ``completion bash|zsh`` runs."""
    common = Parser(add_help=False)
    common.add_argument(
        "--cluster", metavar="URL", default=argparse.SUPPRESS, help="the REST API's URL (beats the context)"
    )
    common.add_argument(
        "--context", metavar="NAME", default=argparse.SUPPRESS, help="a context of the file, not the current"
    )
    common.add_argument(
        "--request-timeout",
        metavar="SECONDS",
        type=float,
        default=argparse.SUPPRESS,
        help="how long one request may take (default 90)",
    )
    root = Parser(
        prog=PROG,
        parents=[common],
        description="A command line for the Kafka Connect REST API (kconnect or Java Kafka Connect).",
        epilog="Exit codes: 0 done, 1 the cluster refused, 2 bad usage or input file, 3 cluster unreachable.",
    )
    root.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    verbs = root.add_subparsers(dest="verb", metavar="COMMAND", required=True)

    def group(name: str, help: str) -> Any:
        parser = verbs.add_parser(name, help=help, description=help)
        return parser.add_subparsers(dest="resource", metavar="RESOURCE", required=True)

    def leaf(
        where: Any,
        name: str,
        help: str,
        run: Callable[..., int],
        kind: str = "client",
        aliases: Sequence[str] = (),
    ) -> Parser:
        parser: Parser = where.add_parser(
            name, help=help, description=help, parents=[common], aliases=aliases
        )
        parser.set_defaults(run=run, kind=kind)
        return parser

    def output(parser: Parser, *extra: str) -> None:
        parser.add_argument(
            "-o", "--output", choices=[*FORMATS, *extra], default="table", help="default: table"
        )

    get = group("get", "list connectors, plugins or a connector's offsets")
    output(
        leaf(
            get,
            "connectors",
            "every connector: type, state, tasks",
            reads.get_connectors,
            aliases=["connector"],
        ),
        "name",
    )
    output(leaf(get, "plugins", "every plugin of the cluster", reads.get_plugins, aliases=["plugin"]))
    offsets = leaf(get, "offsets", "a connector's committed offsets", reads.get_offsets)
    offsets.add_argument("name", metavar="NAME")
    output(offsets)

    describe = group("describe", "show one connector in full")
    connector = leaf(
        describe,
        "connector",
        "config, status, tasks, topics and traces",
        reads.describe_connector,
        aliases=["connectors"],
    )
    connector.add_argument("name", metavar="NAME")
    output(connector)

    apply = verbs.add_parser("apply", help="create or update connectors from files", parents=[common])
    apply.set_defaults(run=writes.apply, kind="client")
    apply.add_argument(
        "-f",
        "--file",
        dest="files",
        metavar="FILE",
        action="append",
        required=True,
        help="a .properties or .json connector file (repeatable)",
    )
    apply.add_argument("--name", help="the connector's name (beats the file's name)")
    apply.add_argument("--dry-run", action="store_true", help="print what would change, change nothing")

    patch = group("patch", "change some keys of a connector's config")
    patched = leaf(
        patch, "connector", "PATCH the connector's config", writes.patch_connector, aliases=["connectors"]
    )
    patched.add_argument("name", metavar="NAME")
    patched.add_argument("-s", "--set", metavar="KEY=VALUE", action="append", help="set a key (repeatable)")
    patched.add_argument("-r", "--remove", metavar="KEY", action="append", help="remove a key (repeatable)")

    for verb, help in [
        ("pause", "pause connectors and their tasks"),
        ("resume", "resume paused or stopped connectors"),
        ("stop", "stop connectors: no tasks, offsets may then be altered"),
        ("delete", "delete connectors"),
    ]:
        one = leaf(group(verb, help), "connector", help, writes.lifecycle, aliases=["connectors"])
        one.add_argument("names", metavar="NAME", nargs="+")

    restart = group("restart", "restart connectors or tasks")
    connectors = leaf(
        restart, "connector", "restart connectors", writes.restart_connector, aliases=["connectors"]
    )
    connectors.add_argument("names", metavar="NAME", nargs="+")
    connectors.add_argument("--include-tasks", action="store_true", help="restart the tasks too")
    connectors.add_argument("--only-failed", action="store_true", help="restart only what failed")
    tasks = leaf(restart, "task", "restart tasks", writes.restart_task, aliases=["tasks"])
    tasks.add_argument("tasks", metavar="NAME/ID", nargs="+")

    offsets_group = group("offsets", "a connector's offsets: get, alter, reset")
    got = leaf(offsets_group, "get", "a connector's committed offsets", reads.get_offsets)
    got.add_argument("name", metavar="NAME")
    output(got)
    alter = leaf(offsets_group, "alter", "alter a stopped connector's offsets", writes.alter_offsets)
    alter.add_argument("name", metavar="NAME")
    alter.add_argument("-f", "--file", required=True, metavar="FILE", help='JSON: {"offsets": [...]}')
    reset = leaf(offsets_group, "reset", "reset a stopped connector's offsets", writes.reset_offsets)
    reset.add_argument("name", metavar="NAME")

    shell = verbs.add_parser("completion", help="print a shell completion script")
    shell.add_argument("shell", choices=["bash", "zsh"])
    shell.set_defaults(run=completion, kind="completion")

    config = group("config", "the context file: clusters, credentials, TLS")
    set_context = leaf(
        config, "set-context", "create or change a context", config_commands.set_context, kind="config"
    )
    set_context.add_argument("context_name", metavar="NAME")
    set_context.add_argument("--username", help="basic-auth user")
    set_context.add_argument("--password", help="basic-auth password")
    set_context.add_argument("--ca-cert", metavar="FILE", help="PEM file of the CAs to trust")
    set_context.add_argument("--client-cert", metavar="FILE", help="PEM client certificate")
    set_context.add_argument("--client-key", metavar="FILE", help="PEM key of the client certificate")
    set_context.add_argument("--insecure", action="store_true", help="do not verify the server's certificate")
    use = leaf(
        config, "use-context", "make a context the current one", config_commands.use_context, kind="config"
    )
    use.add_argument("context_name", metavar="NAME")
    output(
        leaf(config, "get-contexts", "list the contexts", config_commands.get_contexts, kind="config"), "name"
    )
    return root
