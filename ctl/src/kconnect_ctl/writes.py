"""The commands that change a cluster: apply, patch, pause/resume/stop/delete, restart, offsets.

Each takes the client and the parsed arguments, prints what it did to stdout and returns the exit
code. A command over several connectors goes on past a refused one (its error printed) and ends
with `EXIT_REFUSED`; an unreachable cluster ends it at once.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kconnect_ctl.client import ConnectClient, connector_path
from kconnect_ctl.diff import diff_configs
from kconnect_ctl.errors import EXIT_OK, EXIT_REFUSED, BadInput, Refused, report
from kconnect_ctl.files import read_connector_file, read_offsets_file


def apply(client: ConnectClient, args: argparse.Namespace) -> int:
    """Create or update each file's connector with ``PUT /connectors/{name}/config``, printing
    ``created``, ``unchanged`` (nothing sent, so the connector is not restarted) or ``configured``
    with the keys added, changed and removed. Every file is read first, so a bad one applies none;
    the first refusal ends the command."""
    if args.name is not None and len(args.files) > 1:
        raise BadInput("--name goes with one -f FILE, not several")
    files = [read_connector_file(Path(f), args.name) for f in args.files]
    for file in files:
        current = _current_config(client, file.name)
        if current is None:
            if not args.dry_run:
                client.call("PUT", connector_path(file.name, "config"), body=file.config)
            print(f"connector {file.name} {'would be ' if args.dry_run else ''}created")
            continue
        diff = diff_configs(current, file.config)
        if diff.unchanged:
            print(f"connector {file.name} unchanged")
            continue
        if not args.dry_run:
            client.call("PUT", connector_path(file.name, "config"), body=file.config)
        print(f"connector {file.name} {'would be ' if args.dry_run else ''}configured")
        print("\n".join(diff.lines()))
    return EXIT_OK


def _current_config(client: ConnectClient, name: str) -> dict[str, str] | None:
    """The connector's config, None if the cluster has no connector of that name."""
    try:
        return dict(client.get(connector_path(name, "config")))
    except Refused as refused:
        if refused.status == 404:
            return None
        raise


def patch_connector(client: ConnectClient, args: argparse.Namespace) -> int:
    """``PATCH /connectors/{name}/config``: ``-s KEY=VALUE`` sets a key, ``-r KEY`` removes one (a
    null value, as Kafka's PATCH takes it); prints the keys that changed."""
    body: dict[str, str | None] = {}
    for assignment in args.set or []:
        key, equals, value = assignment.partition("=")
        if not equals or not key:
            raise BadInput(f"-s {assignment!r}: expected KEY=VALUE")
        body[key] = value
    for key in args.remove or []:
        body[key] = None
    if not body:
        raise BadInput("nothing to patch: give -s KEY=VALUE or -r KEY")
    before = dict(client.get(connector_path(args.name, "config")))
    after: dict[str, Any] = client.call("PATCH", connector_path(args.name, "config"), body=body).json()
    diff = diff_configs(before, after.get("config") or {})
    print(f"connector {args.name} {'unchanged' if diff.unchanged else 'patched'}")
    if not diff.unchanged:
        print("\n".join(diff.lines()))
    return EXIT_OK


#: ``pause``, ``resume``, ``stop``, ``delete``: the HTTP method, the path's last part, the word printed.
LIFECYCLE = {
    "pause": ("PUT", "pause", "paused"),
    "resume": ("PUT", "resume", "resumed"),
    "stop": ("PUT", "stop", "stopped"),
    "delete": ("DELETE", None, "deleted"),
}


def lifecycle(client: ConnectClient, args: argparse.Namespace) -> int:
    """Pause, resume, stop or delete each named connector (``args.verb``)."""
    method, last, done = LIFECYCLE[args.verb]

    def one(name: str) -> None:
        client.call(method, connector_path(name, *([last] if last else [])))
        print(f"connector {name} {done}")

    return _each(args.names, one)


def restart_connector(client: ConnectClient, args: argparse.Namespace) -> int:
    """``POST /connectors/{name}/restart`` for each name, with ``includeTasks`` and ``onlyFailed``;
    prints what the cluster is restarting (its 202 answer) or ``restarted`` (a 204)."""
    params = {
        "includeTasks": "true" if args.include_tasks else "false",
        "onlyFailed": "true" if args.only_failed else "false",
    }

    def one(name: str) -> None:
        response = client.call("POST", connector_path(name, "restart"), params=params)
        if response.status_code != 202 or not response.content:
            print(f"connector {name} restarted")
            return
        print(f"connector {name}: {restarting(response.json())}")

    return _each(args.names, one)


def restarting(status: dict[str, Any]) -> str:
    """What a 202 restart answer says is restarting: ``restarting the connector and tasks 0, 2``."""
    parts = []
    if (status.get("connector") or {}).get("state") == "RESTARTING":
        parts.append("the connector")
    ids = [str(t.get("id")) for t in status.get("tasks") or [] if t.get("state") == "RESTARTING"]
    if ids:
        parts.append(f"task{'s' if len(ids) > 1 else ''} {', '.join(ids)}")
    return f"restarting {' and '.join(parts)}" if parts else "nothing to restart"


def restart_task(client: ConnectClient, args: argparse.Namespace) -> int:
    """``POST /connectors/{name}/tasks/{id}/restart`` for each ``NAME/ID``."""

    def one(task: str) -> None:
        name, slash, task_id = task.rpartition("/")
        if not slash or not name or not task_id.isdigit():
            raise BadInput(f"task {task!r}: expected CONNECTOR/TASK_ID, e.g. my-connector/0")
        client.call("POST", connector_path(name, "tasks", task_id, "restart"))
        print(f"task {name}/{task_id} restarted")

    return _each(args.tasks, one)


def alter_offsets(client: ConnectClient, args: argparse.Namespace) -> int:
    """``PATCH /connectors/{name}/offsets`` with the file's offsets (the connector must be stopped)."""
    body = read_offsets_file(Path(args.file))
    response = client.call("PATCH", connector_path(args.name, "offsets"), body=body)
    print(_message(response.json(), f"offsets of {args.name} altered"))
    return EXIT_OK


def reset_offsets(client: ConnectClient, args: argparse.Namespace) -> int:
    """``DELETE /connectors/{name}/offsets`` (the connector must be stopped)."""
    response = client.call("DELETE", connector_path(args.name, "offsets"))
    print(_message(response.json(), f"offsets of {args.name} reset"))
    return EXIT_OK


def _message(body: Any, fallback: str) -> str:
    """The ``message`` of Kafka's offsets answers, else `fallback`."""
    return str(body["message"]) if isinstance(body, dict) and body.get("message") else fallback


def _each(items: list[str], one: Callable[[str], None]) -> int:
    """`one` for every item; a refusal is printed and the rest still run; `EXIT_REFUSED` if any was."""
    code = EXIT_OK
    for item in items:
        try:
            one(item)
        except Refused as refused:
            report(refused)
            code = EXIT_REFUSED
    return code
