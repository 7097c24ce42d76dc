"""``kconnect plugin new NAME``: write a pip-installable kconnect plugin project to start from.

The project is rendered from the templates shipped in this package (``scaffold_templates/common``
and ``scaffold_templates/<kind>``, `string.Template` placeholders): a ``pyproject.toml`` with the
``kconnect`` entry point, ``src/<package>/`` with a source or sink connector and task that already
move records, the hook that registers them, a README, and ``tests/`` that run the connector on a
real broker through a real worker with kconnect-testkit's fixtures. Only the written project needs
the kit (its ``test`` extra); writing it needs nothing of it.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING

from kconnect.errors import ConnectError

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

KINDS = ("source", "sink")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*")
_TEMPLATE_SUFFIX = ".tmpl"


class ScaffoldError(ConnectError):
    """The plugin cannot be written: a bad name or kind, or a folder that is already there."""


def placeholders(name: str, kind: str) -> dict[str, str]:
    """The values the templates use, from the plugin's `name` (``acme-counter``) and `kind`.

    ``acme-counter`` of kind source becomes distribution ``acme-counter``, package ``acme_counter``,
    connector ``AcmeCounterSourceConnector``, task ``AcmeCounterSourceTask``, alias ``AcmeCounterSource``.
    """
    if kind not in KINDS:
        raise ScaffoldError(f"Unknown plugin kind '{kind}': use one of {', '.join(KINDS)}")
    if not _NAME.fullmatch(name):
        raise ScaffoldError(
            f"Invalid plugin name '{name}': letters and digits, words joined by '-' or '_', "
            "starting with a letter (e.g. acme-counter)"
        )
    words = re.split(r"[-_]", name)
    title = "".join(word[:1].upper() + word[1:] for word in words)
    alias = title + kind.capitalize()
    return {
        "name": name.lower(),
        "distribution": "-".join(words).lower(),
        "package": "_".join(words).lower(),
        "kind": kind,
        "module": kind,
        "title": title,
        "alias": alias,
        "connector": alias + "Connector",
        "task": alias + "Task",
    }


def new_plugin(name: str, kind: str = "source", directory: Path | str = ".") -> Path:
    """Write the plugin project `name` of `kind` into ``<directory>/<distribution>``; returns that folder.

    Called by ``kconnect plugin new``. ScaffoldError for a bad name or kind, or when the folder
    exists and is not empty (nothing is ever overwritten).
    """
    values = placeholders(name, kind)
    target = Path(directory) / values["distribution"]
    if target.exists() and any(target.iterdir()):
        raise ScaffoldError(f"{target} already exists and is not empty")
    templates = resources.files("kconnect_rest") / "scaffold_templates"
    for tree in (templates / "common", templates / kind):
        _render_tree(tree, target, values)
    return target


def _render_tree(tree: Traversable, target: Path, values: dict[str, str]) -> None:
    """Render every template under `tree` to the same place under `target`; the folder ``package``
    becomes ``src/<package>``."""
    for entry in tree.iterdir():
        if entry.is_dir():
            where = target / "src" / values["package"] if entry.name == "package" else target / entry.name
            _render_tree(entry, where, values)
        elif entry.name.endswith(_TEMPLATE_SUFFIX):
            path = target / entry.name.removesuffix(_TEMPLATE_SUFFIX)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(Template(entry.read_text(encoding="utf-8")).substitute(values), encoding="utf-8")
