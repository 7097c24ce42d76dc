"""The context file: named clusters with their credentials and TLS files, and the current one.

``~/.kconnectctl.yaml`` (``KCONNECTCTL_CONFIG`` names another path), written by ``kconnectctl config``::

    current-context: local
    contexts:
      local:
        cluster: http://localhost:8083
      prod:
        cluster: https://connect.example.com:8443
        username: alice
        password: s3cret
        ca-cert: /etc/ssl/connect-ca.pem
        client-cert: /etc/ssl/me.pem
        client-key: /etc/ssl/me.key
        insecure: false

The file holds passwords, so it is written readable by its owner only.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kconnect_ctl.errors import BadInput

#: The environment variable naming the context file, instead of `DEFAULT_PATH`.
CONFIG_ENV = "KCONNECTCTL_CONFIG"
#: Where the context file is when `CONFIG_ENV` is unset.
DEFAULT_PATH = Path("~/.kconnectctl.yaml")
#: The cluster used with no ``--cluster`` and no current context: Kafka Connect's default listener.
DEFAULT_CLUSTER = "http://localhost:8083"

#: A context's keys in the file, and the `Context` field each sets.
_KEYS = {
    "cluster": "cluster",
    "username": "username",
    "password": "password",
    "ca-cert": "ca_cert",
    "client-cert": "client_cert",
    "client-key": "client_key",
    "insecure": "insecure",
}


@dataclass(frozen=True)
class Context:
    """One cluster: its REST URL, basic-auth credentials and TLS files (None: not set)."""

    cluster: str
    username: str | None = None
    password: str | None = None
    ca_cert: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    insecure: bool = False

    def to_file(self) -> dict[str, Any]:
        """The context as written in the file: only the keys that are set."""
        values = dataclasses.asdict(self)
        return {key: values[attr] for key, attr in _KEYS.items() if values[attr] not in (None, False)}

    @classmethod
    def from_file(cls, data: Any, where: str) -> Context:
        """A context read from the file; `where` (``FILE: context 'x'``) starts each error."""
        if not isinstance(data, Mapping):
            raise BadInput(f"{where}: expected a mapping of {', '.join(_KEYS)}")
        unknown = sorted(set(map(str, data)) - set(_KEYS))
        if unknown:
            raise BadInput(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(_KEYS)})")
        if not isinstance(data.get("cluster"), str):
            raise BadInput(f"{where}: 'cluster' must be the cluster's URL")
        values: dict[str, Any] = {}
        for key, attr in _KEYS.items():
            value = data.get(key)
            if value is None:
                continue
            expected = bool if key == "insecure" else str
            if not isinstance(value, expected):
                raise BadInput(f"{where}: {key!r} must be a {'boolean' if expected is bool else 'string'}")
            values[attr] = value
        return cls(**values)


@dataclass
class ContextFile:
    """Every context by name, and the name of the current one."""

    contexts: dict[str, Context] = field(default_factory=dict)
    current: str | None = None


def config_path(environ: Mapping[str, str] = os.environ) -> Path:
    """The context file's path: `CONFIG_ENV` if set, else `DEFAULT_PATH`."""
    return Path(environ.get(CONFIG_ENV) or DEFAULT_PATH).expanduser()


def load(path: Path) -> ContextFile:
    """Read the context file; a missing file is an empty one."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ContextFile()
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror or e}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        raise BadInput(f"{path}: {line}{getattr(e, 'problem', None) or e}") from None
    if data is None:
        return ContextFile()
    if not isinstance(data, Mapping) or not isinstance(data.get("contexts", {}), Mapping):
        raise BadInput(f"{path}: expected 'current-context' and a mapping 'contexts'")
    contexts = {
        str(name): Context.from_file(value, f"{path}: context {name!r}")
        for name, value in (data.get("contexts") or {}).items()
    }
    current = data.get("current-context")
    return ContextFile(contexts, None if current is None else str(current))


def save(path: Path, file: ContextFile) -> None:
    """Write the context file, readable and writable by its owner only (it holds passwords)."""
    data: dict[str, Any] = {"current-context": file.current}
    data["contexts"] = {name: context.to_file() for name, context in file.contexts.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        yaml.safe_dump(data, out, sort_keys=False)


def resolve(file: ContextFile, context_name: str | None, cluster: str | None, where: Path) -> Context:
    """The context a command talks to.

    ``--context NAME`` picks a context, else the current one. ``--cluster URL`` beats the context's
    URL; given alone it also drops the current context's credentials and TLS files, so they never go
    to a cluster they were not written for. Neither, and no current context: `DEFAULT_CLUSTER`.
    """
    if context_name is not None:
        if context_name not in file.contexts:
            raise BadInput(f"{where}: no context named {context_name!r}")
        chosen = file.contexts[context_name]
        return chosen if cluster is None else dataclasses.replace(chosen, cluster=cluster)
    if cluster is not None:
        return Context(cluster=cluster)
    if file.current is None:
        return Context(cluster=DEFAULT_CLUSTER)
    if file.current not in file.contexts:
        raise BadInput(f"{where}: the current context {file.current!r} is not defined")
    return file.contexts[file.current]
