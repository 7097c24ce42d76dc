"""``kconnectctl config``: set-context, use-context, get-contexts, on the context file.

These commands never talk to a cluster; each takes the context file's path and the parsed arguments.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from kconnect_ctl import contexts
from kconnect_ctl.contexts import Context
from kconnect_ctl.errors import EXIT_OK, BadInput
from kconnect_ctl.render import dump, table


def set_context(path: Path, args: argparse.Namespace) -> int:
    """Create a context, or change the options given of an existing one (the others stay). The
    first context of a file becomes the current one."""
    file = contexts.load(path)
    given = {
        "cluster": getattr(args, "cluster", None),
        "username": args.username,
        "password": args.password,
        "ca_cert": _absolute(args.ca_cert),
        "client_cert": _absolute(args.client_cert),
        "client_key": _absolute(args.client_key),
    }
    changes = {key: value for key, value in given.items() if value is not None}
    if args.insecure:
        changes["insecure"] = True
    existing = file.contexts.get(args.context_name)
    if existing is None:
        if "cluster" not in changes:
            raise BadInput(f"context {args.context_name!r} is new: give its --cluster URL")
        context = Context(**changes)
    else:
        context = dataclasses.replace(existing, **changes)
    if not context.cluster.startswith(("http://", "https://")):
        raise BadInput(f"--cluster {context.cluster!r}: expected an http:// or https:// URL")
    if (context.client_cert is None) != (context.client_key is None):
        raise BadInput("--client-cert and --client-key go together")
    file.contexts[args.context_name] = context
    if file.current is None:
        file.current = args.context_name
    contexts.save(path, file)
    current = " (current)" if file.current == args.context_name else ""
    print(f"context {args.context_name} {'created' if existing is None else 'updated'}{current}")
    return EXIT_OK


def use_context(path: Path, args: argparse.Namespace) -> int:
    """Make a defined context the current one."""
    file = contexts.load(path)
    if args.context_name not in file.contexts:
        raise BadInput(f"{path}: no context named {args.context_name!r}")
    file.current = args.context_name
    contexts.save(path, file)
    print(f"current context: {args.context_name}")
    return EXIT_OK


def get_contexts(path: Path, args: argparse.Namespace) -> int:
    """Every context with its cluster and how it authenticates; passwords are never printed."""
    file = contexts.load(path)
    if args.output == "name":
        print("\n".join(sorted(file.contexts)))
        return EXIT_OK
    if args.output != "table":
        shown = {
            name: {k: v for k, v in context.to_file().items() if k != "password"}
            for name, context in file.contexts.items()
        }
        print(dump({"current-context": file.current, "contexts": shown}, args.output))
        return EXIT_OK
    rows = [
        ["*" if name == file.current else "", name, context.cluster, _auth(context)]
        for name, context in sorted(file.contexts.items())
    ]
    print(table(["CURRENT", "NAME", "CLUSTER", "AUTH"], rows))
    return EXIT_OK


def _auth(context: Context) -> str:
    """How a context authenticates, in a word or two."""
    parts = []
    if context.username is not None:
        parts.append(f"basic ({context.username})")
    if context.client_cert is not None:
        parts.append("client certificate")
    if context.insecure:
        parts.append("insecure TLS")
    return ", ".join(parts) or "-"


def _absolute(file: str | None) -> str | None:
    """A file named on the command line as an absolute path, so the context works from any folder."""
    return None if file is None else str(Path(file).expanduser().resolve())
