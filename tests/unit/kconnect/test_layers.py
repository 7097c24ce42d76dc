"""The kernel's layers, read from its source: every import points down, no module is in a cycle.

`docs/architecture.md` ("Layers") draws the kernel as a stack; this test is that drawing's
referee. It parses every module of ``kernel/src/kconnect`` with `ast` and reads *every* import,
including those inside functions and under ``TYPE_CHECKING`` (an import hidden there is still an
arrow: it runs, or a type checker follows it), then fails naming ``file:line`` for

* an import of a higher layer (`LAYERS`: a module may import its own layer or lower ones);
* an import between `PEERS` (runtime and storage share a layer and know nothing of each other);
* an import cycle between modules, with the cycle spelled out;
* a module no layer names (a new package must be placed in the drawing first);
* the kernel importing pyspark, litestar, uvicorn or any ``kconnect_*`` distribution;
* a plugin (``plugins/*/src``) importing ``kconnect_rest``: REST extensions get what they need
  from ``kconnect.cluster``.

Run it as a script (``python -m tests.unit.kconnect.test_layers [repo]``) to print the counts for
any checkout, e.g. a worktree of an older commit.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
KERNEL = "kconnect"

# Bottom to top. A module belongs to the layer of the longest name here that is it or contains it;
# "kconnect" alone is the package's own __init__ (the author's whole import), not a prefix.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("vocabulary", ("kconnect.codegen", "kconnect.errors", "kconnect.frozen_init", "kconnect.model")),
    ("values", ("kconnect.data", "kconnect.records", "kconnect.security")),
    ("config", ("kconnect.config",)),
    (
        "author API",
        (
            "kconnect",
            "kconnect.connector",
            "kconnect.task",
            "kconnect.converter",
            "kconnect.transform",
            "kconnect.connector_utils",
            "kconnect.executor",
            "kconnect.hookspecs",
            "kconnect.plugin_registry",
            "kconnect.plugin_versions",
            "kconnect.worker_config",
            "kconnect.cluster",
        ),
    ),
    ("plugin host", ("kconnect.plugin_host", "kconnect.worker_providers")),
    ("Kafka", ("kconnect.kafka",)),
    ("loops, stores", ("kconnect.runtime", "kconnect.storage")),
    ("group", ("kconnect.distributed",)),
    ("herder", ("kconnect.herder",)),
)
# Packages of one layer that must not import each other.
PEERS: tuple[frozenset[str], ...] = (frozenset({"kconnect.runtime", "kconnect.storage"}),)
KERNEL_BANNED = ("pyspark", "litestar", "uvicorn")
PLUGIN_BANNED = ("kconnect_rest",)


@dataclass(frozen=True)
class Import:
    """One import statement's target, as the importing module sees it."""

    importer: str
    imported: str
    path: Path
    line: int


@dataclass(frozen=True)
class Violation:
    """A broken rule, at the import that breaks it."""

    rule: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def module_name(src: Path, path: Path) -> str:
    """The dotted name of the module in ``path`` under the ``src`` folder."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(src: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``src``: dotted name -> file."""
    return {module_name(src, p): p for p in sorted((src / package).rglob("*.py"))}


def _resolve(importer: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name ``from <level dots><name>`` means inside ``importer``."""
    if level == 0:
        return name or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, name] if name else base)


def imports(src: Path, path: Path, known: Iterable[str] = ()) -> Iterator[Import]:
    """Every import in one file, wherever it stands (module level, function, ``TYPE_CHECKING``).

    ``from package import name`` counts as importing ``package.name`` when that is a module in
    ``known``, otherwise ``package`` itself (the name is an attribute of its ``__init__``).
    """
    known = set(known)
    importer = module_name(src, path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(importer, alias.name, path, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(importer, is_package, node.level, node.module)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                yield Import(importer, sub if sub in known else target, path, node.lineno)


def layer_of(module: str) -> int | None:
    """The index in `LAYERS` of the layer holding ``module``; None if no layer names it."""
    best: tuple[int, int] | None = None
    for index, (_, names) in enumerate(LAYERS):
        for name in names:
            exact_only = name == KERNEL
            if module == name or (not exact_only and module.startswith(name + ".")):
                if best is None or len(name) > best[0]:
                    best = (len(name), index)
    return None if best is None else best[1]


def peer_group(module: str) -> str | None:
    """The package of ``module`` that `PEERS` names, if any."""
    for group in PEERS:
        for name in group:
            if module == name or module.startswith(name + "."):
                return name
    return None


def top_package(module: str) -> str:
    """The kernel package or top-level module ``module`` belongs to: ``kconnect.herder.api`` ->
    ``kconnect.herder``; ``kconnect.worker_config`` -> itself; ``kconnect`` -> ``kconnect``."""
    return ".".join(module.split(".")[:2])


def _where(repo: Path, imp: Import) -> str:
    path = imp.path.relative_to(repo) if imp.path.is_relative_to(repo) else imp.path
    return f"{path}:{imp.line}"


def _layer_name(index: int) -> str:
    return f"layer {index} {LAYERS[index][0]}"


def kernel_imports(repo: Path) -> list[Import]:
    """Every import in the kernel's source, in file order."""
    src = repo / "kernel" / "src"
    found = modules(src, KERNEL)
    return [imp for path in found.values() for imp in imports(src, path, found)]


def internal_graph(all_imports: Iterable[Import]) -> dict[str, dict[str, Import]]:
    """importer -> {imported kernel module -> its first import}, self-imports left out."""
    graph: dict[str, dict[str, Import]] = {}
    for imp in all_imports:
        if _in_kernel(imp.imported) and imp.imported != imp.importer:
            graph.setdefault(imp.importer, {}).setdefault(imp.imported, imp)
    return graph


def _in_kernel(module: str) -> bool:
    return module == KERNEL or module.startswith(KERNEL + ".")


def cycles(graph: Mapping[str, Mapping[str, Import]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def cycle_path(graph: Mapping[str, Mapping[str, Import]], component: list[str]) -> list[Import]:
    """One shortest cycle through the first module of ``component``, as the imports that close it."""
    start, members = component[0], set(component)
    came: dict[str, Import] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt, imp in sorted(graph.get(node, {}).items()):
                if nxt not in members or nxt in came:
                    continue
                came[nxt] = imp
                if nxt == start:
                    path = [imp]
                    while path[0].importer != start:
                        path.insert(0, came[path[0].importer])
                    return path
                following.append(nxt)
        frontier = following
    return []


def check(repo: Path) -> list[Violation]:
    """Every broken layer rule in the checkout at ``repo``."""
    found: list[Violation] = []
    all_imports = kernel_imports(repo)
    seen_unplaced: set[str] = set()
    for imp in all_imports:
        where = _where(repo, imp)
        top = imp.imported.split(".")[0]
        if top in KERNEL_BANNED or top.startswith(KERNEL + "_"):
            found.append(Violation("banned", where, f"{imp.importer} imports {imp.imported}"))
        if not _in_kernel(imp.imported):
            continue
        low, high = layer_of(imp.importer), layer_of(imp.imported)
        for module, layer in ((imp.importer, low), (imp.imported, high)):
            if layer is None and module not in seen_unplaced:
                seen_unplaced.add(module)
                found.append(Violation("unplaced", where, f"{module} is in no layer"))
        if low is None or high is None:
            continue
        if high > low:
            found.append(
                Violation(
                    "upward",
                    where,
                    f"{imp.importer} ({_layer_name(low)}) imports {imp.imported} ({_layer_name(high)})",
                )
            )
        mine, theirs = peer_group(imp.importer), peer_group(imp.imported)
        if mine and theirs and mine != theirs:
            found.append(Violation("peers", where, f"{imp.importer} imports its peer {imp.imported}"))
    graph = internal_graph(all_imports)
    for component in cycles(graph):
        path = cycle_path(graph, component)
        loop = " -> ".join([imp.importer for imp in path] + [component[0]])
        lines = ", ".join(_where(repo, imp) for imp in path)
        found.append(
            Violation("cycle", lines, f"import cycle {loop} (modules in it: {', '.join(component)})")
        )
    for plugin_src in sorted((repo / "plugins").glob("*/src")):
        for package in sorted(p for p in plugin_src.iterdir() if (p / "__init__.py").exists()):
            for path in modules(plugin_src, package.name).values():
                for imp in imports(plugin_src, path):
                    if imp.imported.split(".")[0] in PLUGIN_BANNED:
                        found.append(
                            Violation("plugin", _where(repo, imp), f"{imp.importer} imports {imp.imported}")
                        )
    return list(dict.fromkeys(found))  # two names from one module: one violation


def upward_arrows(repo: Path) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """The distinct upward or peer arrows: (module -> module, package -> package)."""
    by_module: set[tuple[str, str]] = set()
    for imp in kernel_imports(repo):
        if not _in_kernel(imp.imported):
            continue
        low, high = layer_of(imp.importer), layer_of(imp.imported)
        mine, theirs = peer_group(imp.importer), peer_group(imp.imported)
        upward = low is not None and high is not None and high > low
        if upward or (mine and theirs and mine != theirs):
            by_module.add((imp.importer, imp.imported))
    return by_module, {(top_package(a), top_package(b)) for a, b in by_module}


def _report(violations: Iterable[Violation]) -> str:
    return "\n".join(str(v) for v in violations)


def _write(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


# --- the checker can fail --------------------------------------------------------------------------


def test_a_store_importing_the_herder_is_reported_with_its_file_and_line(tmp_path: Path) -> None:
    repo = _write(
        tmp_path,
        {
            "kernel/src/kconnect/__init__.py": "",
            "kernel/src/kconnect/model.py": "",
            "kernel/src/kconnect/herder/__init__.py": "",
            "kernel/src/kconnect/herder/api.py": "from kconnect.model import x\n",
            "kernel/src/kconnect/storage/__init__.py": "",
            "kernel/src/kconnect/storage/base.py": (
                "from kconnect.model import y\n\n\ndef f():\n    from kconnect.herder import x\n"
            ),
        },
    )
    assert [str(v) for v in check(repo)] == [
        "kernel/src/kconnect/storage/base.py:5: kconnect.storage.base (layer 6 loops, stores) "
        "imports kconnect.herder (layer 8 herder)"
    ]


def test_cycles_peers_hidden_imports_banned_names_and_plugins_are_reported(tmp_path: Path) -> None:
    repo = _write(
        tmp_path,
        {
            "kernel/src/kconnect/__init__.py": "",
            "kernel/src/kconnect/data/__init__.py": "",
            "kernel/src/kconnect/data/schema.py": "from . import struct\n",
            "kernel/src/kconnect/data/struct.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .schema import Schema\n"
            ),
            "kernel/src/kconnect/runtime/__init__.py": "",
            "kernel/src/kconnect/runtime/loop.py": "import kconnect.storage.base\nimport pyspark.sql\n",
            "kernel/src/kconnect/storage/__init__.py": "",
            "kernel/src/kconnect/storage/base.py": "from kconnect_rest import app\n",
            "kernel/src/kconnect/gadgets.py": "",
            "plugins/metrics/src/kconnect_metrics/__init__.py": (
                "def f():\n    from kconnect_rest.extensions import ClusterState\n"
            ),
        },
    )
    assert sorted((v.rule, str(v)) for v in check(repo)) == [
        ("banned", "kernel/src/kconnect/runtime/loop.py:2: kconnect.runtime.loop imports pyspark.sql"),
        ("banned", "kernel/src/kconnect/storage/base.py:1: kconnect.storage.base imports kconnect_rest"),
        (
            "cycle",
            "kernel/src/kconnect/data/schema.py:1, kernel/src/kconnect/data/struct.py:3: import cycle "
            "kconnect.data.schema -> kconnect.data.struct -> kconnect.data.schema "
            "(modules in it: kconnect.data.schema, kconnect.data.struct)",
        ),
        (
            "peers",
            "kernel/src/kconnect/runtime/loop.py:1: "
            "kconnect.runtime.loop imports its peer kconnect.storage.base",
        ),
        (
            "plugin",
            "plugins/metrics/src/kconnect_metrics/__init__.py:2: "
            "kconnect_metrics imports kconnect_rest.extensions",
        ),
    ]
    assert layer_of("kconnect.gadgets") is None


def test_relative_imports_resolve_against_the_importing_package(tmp_path: Path) -> None:
    src = _write(tmp_path, {"kconnect/config/__init__.py": "from .configdef import A\nfrom . import rules\n"})
    known = {"kconnect.config", "kconnect.config.configdef", "kconnect.config.rules"}
    got = [i.imported for i in imports(src, src / "kconnect/config/__init__.py", known)]
    assert got == ["kconnect.config.configdef", "kconnect.config.rules"]


# --- the real tree ---------------------------------------------------------------------------------


@functools.cache
def _checked() -> tuple[Violation, ...]:
    return tuple(check(REPO))


def _violations(rule: str) -> list[Violation]:
    return [v for v in _checked() if v.rule == rule]


def test_every_kernel_module_is_in_a_layer() -> None:
    assert not _violations("unplaced"), _report(_violations("unplaced"))


def test_no_kernel_import_points_up_the_layers() -> None:
    assert not _violations("upward"), _report(_violations("upward"))


def test_runtime_and_storage_do_not_import_each_other() -> None:
    assert not _violations("peers"), _report(_violations("peers"))


def test_no_kernel_module_is_in_an_import_cycle() -> None:
    assert not _violations("cycle"), _report(_violations("cycle"))


def test_the_kernel_imports_no_spark_no_http_server_and_no_kconnect_distribution() -> None:
    assert not _violations("banned"), _report(_violations("banned"))


def test_no_plugin_imports_the_rest_layer() -> None:
    assert not _violations("plugin"), _report(_violations("plugin"))


if __name__ == "__main__":
    root = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else REPO
    by_module, by_package = upward_arrows(root)
    graph = internal_graph(kernel_imports(root))
    components = cycles(graph)
    print(f"{root}: {len(by_module)} upward module->module arrows, {len(by_package)} package->package")
    for a, b in sorted(by_package):
        print(f"  {a} -> {b}")
    print(f"{len(components)} import cycles (strongly connected groups of modules)")
    for component in components:
        print("  " + ", ".join(component))
    print(_report(check(root)))
