"""Input files read without the cluster: connector configs (``.properties`` or ``.json``, as Kafka takes
them) and offsets (the body of ``PATCH /connectors/{name}/offsets``).

Every error is a `BadInput` naming the file, and the line or key where one is known.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import javaproperties

from kconnect_ctl.errors import BadInput


@dataclass(frozen=True)
class ConnectorFile:
    """A connector's name and config, as one ``PUT /connectors/{name}/config`` sends them."""

    name: str
    config: dict[str, str]


def read_text(path: Path) -> str:
    """A file's text, or `BadInput` naming it."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not UTF-8 text") from None
    except OSError as e:
        raise BadInput(f"{path}: {(e.strerror or str(e)).lower()}") from None


def read_connector_file(path: Path, name: str | None = None) -> ConnectorFile:
    """A connector file: a ``.properties`` file as ``connect-standalone`` takes it, or JSON either as
    ``POST /connectors`` takes it (``{"name": ..., "config": {...}}``) or as ``PUT .../config`` takes
    it (the config map). `name` (``--name``) beats the file's ``name``; the config's ``name`` is set to
    it, as Kafka sets it."""
    text = read_text(path)
    is_json = path.suffix.lower() == ".json" or (
        path.suffix.lower() != ".properties" and text.lstrip().startswith("{")
    )
    config = _json_config(path, text) if is_json else _properties_config(path, text)
    resolved = name if name is not None else config.get("name")
    if not resolved:
        raise BadInput(f"{path}: no connector name: set 'name' in the file or give --name")
    return ConnectorFile(resolved, {**config, "name": resolved})


def _properties_config(path: Path, text: str) -> dict[str, str]:
    """The key/value pairs of a Java properties file (the last of a repeated key wins, as in Java)."""
    config: dict[str, str] = {}
    line = 1
    try:
        for element in javaproperties.parse(text):
            if isinstance(element, javaproperties.KeyValue):
                if not element.key:
                    raise BadInput(f"{path}: line {line}: a value without a key: {element.source.strip()!r}")
                config[element.key] = element.value
            line += element.source.count("\n")
    except javaproperties.InvalidUEscapeError as e:
        raise BadInput(f"{path}: line {line}: {e}") from None
    return config


def _json_config(path: Path, text: str) -> dict[str, str]:
    """The config of a JSON connector file, in either of Kafka's two shapes."""
    data = _json(path, text)
    if not isinstance(data, Mapping):
        raise BadInput(f"{path}: expected a JSON object: the config, or {{'name': ..., 'config': {{...}}}}")
    if isinstance(data.get("config"), Mapping):
        unknown = sorted(set(data) - {"name", "config", "initial_state", "offsets"})
        if unknown:
            raise BadInput(f"{path}: unknown field {unknown[0]!r} beside 'config'")
        config = _string_map(path, data["config"])
        if isinstance(data.get("name"), str):
            config.setdefault("name", data["name"])
        return config
    return _string_map(path, data)


def _string_map(path: Path, data: Mapping[str, Any]) -> dict[str, str]:
    """A JSON config's values as strings: numbers and booleans as Java writes them, others refused."""
    config: dict[str, str] = {}
    for key, value in data.items():
        if isinstance(value, bool):
            config[key] = "true" if value else "false"
        elif isinstance(value, (str, int, float)):
            config[key] = str(value)
        else:
            kind = "null" if value is None else type(value).__name__.replace("dict", "object")
            raise BadInput(f"{path}: key {key!r}: a config value must be a string, not {kind}")
    return config


def _json(path: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: line {e.lineno}: {e.msg}") from None


def read_offsets_file(path: Path) -> dict[str, Any]:
    """An offsets file: ``{"offsets": [{"partition": {...}, "offset": {...} or null}, ...]}``, the body
    ``GET /connectors/{name}/offsets`` returns and ``PATCH`` takes (so ``get offsets -o json`` output
    can be edited and sent back)."""
    data = _json(path, read_text(path))
    entries = data.get("offsets") if isinstance(data, Mapping) else None
    if not isinstance(entries, list):
        raise BadInput(f'{path}: expected {{"offsets": [{{"partition": ..., "offset": ...}}, ...]}}')
    for i, entry in enumerate(entries):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("partition"), Mapping):
            raise BadInput(f"{path}: offsets[{i}]: expected an object with a 'partition' object")
        if "offset" not in entry or not isinstance(entry["offset"], (Mapping, type(None))):
            raise BadInput(f"{path}: offsets[{i}]: 'offset' must be an object or null")
    return {"offsets": entries}
