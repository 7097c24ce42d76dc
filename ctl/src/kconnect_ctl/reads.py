"""The commands that only read: ``get connectors|plugins|offsets`` and ``describe connector``.

Each takes the client and the parsed arguments, prints to stdout and returns the exit code. With
``-o json`` or ``-o yaml`` they print what the REST API answered, so scripts see Kafka's own shapes.
"""

from __future__ import annotations

import argparse
from typing import Any

from kconnect_ctl.client import ConnectClient, connector_path
from kconnect_ctl.errors import EXIT_OK, Refused
from kconnect_ctl.render import compact, dump, indented, key_values, state_counts, table


def get_connectors(client: ConnectClient, args: argparse.Namespace) -> int:
    """Every connector with its type, state and tasks, from one ``GET /connectors?expand=...``.

    ``-o name`` prints the names alone, one a line (for shell completion and ``xargs``)."""
    expanded: dict[str, Any] = client.get("/connectors", "expand=status&expand=info")
    if args.output == "name":
        for name in sorted(expanded):
            print(name)
        return EXIT_OK
    if args.output != "table":
        print(dump(expanded, args.output))
        return EXIT_OK
    rows = []
    for name in sorted(expanded):
        status = expanded[name].get("status") or {}
        info = expanded[name].get("info") or {}
        rows.append(
            [
                name,
                str(status.get("type") or info.get("type") or "-"),
                str((status.get("connector") or {}).get("state", "-")),
                state_counts([str(task.get("state")) for task in status.get("tasks") or []]),
            ]
        )
    print(table(["NAME", "TYPE", "STATE", "TASKS"], rows))
    return EXIT_OK


def get_plugins(client: ConnectClient, args: argparse.Namespace) -> int:
    """Every plugin the cluster has: connectors, converters, transformations, predicates."""
    plugins: list[dict[str, Any]] = client.get("/connector-plugins", {"connectorsOnly": "false"})
    if args.output != "table":
        print(dump(plugins, args.output))
        return EXIT_OK
    rows = [[str(p.get("class")), str(p.get("type")), str(p.get("version") or "-")] for p in plugins]
    print(table(["CLASS", "TYPE", "VERSION"], rows))
    return EXIT_OK


def get_offsets(client: ConnectClient, args: argparse.Namespace) -> int:
    """A connector's committed offsets, one row per partition."""
    body: dict[str, Any] = client.get(connector_path(args.name, "offsets"))
    if args.output != "table":
        print(dump(body, args.output))
        return EXIT_OK
    rows = [[compact(entry.get("partition")), compact(entry.get("offset"))] for entry in body["offsets"]]
    print(table(["PARTITION", "OFFSET"], rows))
    return EXIT_OK


def describe_connector(client: ConnectClient, args: argparse.Namespace) -> int:
    """A connector's config, status, tasks, topics and stack traces.

    JSON and YAML give ``{"name", "type", "config", "status", "tasks", "topics"}``: the bodies of
    ``GET /connectors/{name}``, ``.../status`` and ``.../topics``; ``topics`` is null when the
    cluster does not track them (Kafka's ``topic.tracking.enable=false``)."""
    info: dict[str, Any] = client.get(connector_path(args.name))
    status: dict[str, Any] = client.get(connector_path(args.name, "status"))
    topics = _topics(client, args.name)
    if args.output != "table":
        described = {
            "name": info["name"],
            "type": info.get("type"),
            "config": info.get("config", {}),
            "status": status,
            "tasks": info.get("tasks", []),
            "topics": topics,
        }
        print(dump(described, args.output))
        return EXIT_OK
    print(describe_text(info, status, topics))
    return EXIT_OK


def describe_text(info: dict[str, Any], status: dict[str, Any], topics: list[str] | None) -> str:
    """The table form of ``describe connector``: headed sections, traces in full at the end."""
    connector = status.get("connector") or {}
    fields = [
        ("Name:", str(info["name"])),
        ("Type:", str(info.get("type") or status.get("type") or "-")),
        ("State:", str(connector.get("state", "-"))),
        ("Worker ID:", str(connector.get("worker_id", "-"))),
    ]
    config = info.get("config") or {}
    out = [key_values(fields), "Config:", indented(key_values([(k, str(config[k])) for k in sorted(config)]))]
    tasks = status.get("tasks") or []
    task_rows = [[str(t.get("id")), str(t.get("state")), str(t.get("worker_id", "-"))] for t in tasks]
    out += ["Tasks:", indented(table(["ID", "STATE", "WORKER ID"], task_rows)) if tasks else "  (none)"]
    if topics is not None:
        out += ["Topics:", indented("\n".join(topics)) if topics else "  (none)"]
    if connector.get("trace"):
        out += ["Trace of the connector:", indented(str(connector["trace"]))]
    for task in tasks:
        if task.get("trace"):
            out += [f"Trace of task {task.get('id')}:", indented(str(task["trace"]))]
    return "\n".join(out)


def _topics(client: ConnectClient, name: str) -> list[str] | None:
    """The topics a connector used; None where the cluster does not track them (a 400, as Java's
    ``Topic tracking is disabled.``)."""
    try:
        body: dict[str, Any] = client.get(connector_path(name, "topics"))
    except Refused as refused:
        if refused.status == 400:
            return None
        raise
    return [str(topic) for topic in (body.get(name) or {}).get("topics", [])]
