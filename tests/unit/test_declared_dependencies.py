"""Every workspace member imports only what it declares, and the product never depends on the test kit.

A member's source files (``<member>/src/**/*.py``) are parsed with `ast`, not imported, so every
``import x`` and ``from x import y`` counts wherever it is written: at the top of a module, inside a
function, under ``try: ... except ImportError`` and under ``if TYPE_CHECKING:``. A type-only import
is held to the same rule as any other: mypy, pyright and the runtime's own ``get_type_hints`` (litestar
reads handler signatures) all resolve it against what is installed, so a distribution that merely
happens to be installed beside the member would hide a missing declaration. An optional import
(the ``except ImportError`` kind) is declared as an extra (``[project.optional-dependencies]``).

A top-level imported module is allowed when it is the standard library (`sys.stdlib_module_names`),
the member's own package (its folder under ``src/``, or a relative import), or provided by a
distribution the member declares in ``[project] dependencies`` or any of its optional dependencies.
Which distribution provides an import name is read from the installed distributions' metadata
(`importlib.metadata.packages_distributions`: their ``top_level.txt`` or ``RECORD``), so an import
name that differs from its distribution's (``yaml`` from PyYAML) resolves as pip installed it.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import tomllib

REPO = Path(__file__).resolve().parents[2]
WORKSPACE = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
MEMBERS: list[str] = WORKSPACE["tool"]["kconnect"]["workspace"]["members"]
TESTKIT = "kconnect-testkit"


def normalized(name: str) -> str:
    """PEP 503's normal form of a distribution name: ``PyYAML`` -> ``pyyaml``, ``a_b.c`` -> ``a-b-c``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def shown(path: Path) -> str:
    """`path` as a message names it: relative to the checkout when it is in it."""
    return str(path.relative_to(REPO) if path.is_relative_to(REPO) else path)


def requirement_name(requirement: str) -> str:
    """The distribution a requirement names: ``confluent-kafka[avro]>=2.6; ...`` -> ``confluent-kafka``."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, f"not a requirement: {requirement!r}"
    return normalized(match.group(1))


@dataclass(frozen=True)
class Member:
    """One workspace member as its pyproject.toml and its ``src/`` folder describe it."""

    root: Path
    distribution: str
    packages: frozenset[str]
    declared: frozenset[str]

    @classmethod
    def read(cls, root: Path) -> Member:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        requirements = list(project.get("dependencies", []))
        for extra in project.get("optional-dependencies", {}).values():
            requirements.extend(extra)
        return cls(
            root=root,
            distribution=normalized(project["name"]),
            packages=frozenset(init.parent.name for init in (root / "src").glob("*/__init__.py")),
            declared=frozenset(requirement_name(r) for r in requirements),
        )

    def sources(self) -> list[Path]:
        """Every Python file the distribution ships."""
        return sorted((self.root / "src").rglob("*.py"))


@dataclass(frozen=True)
class Import:
    """One absolute import statement's top-level module and where it is written."""

    module: str
    statement: str
    path: Path
    line: int

    def where(self) -> str:
        return f"{shown(self.path)}:{self.line}"


def imports_of(path: Path) -> list[Import]:
    """Every absolute import in `path`, anywhere in the file (functions, ``try``, ``if TYPE_CHECKING``),
    in line order.

    Relative imports (``from . import x``) are the package's own and are left out.
    """
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(alias.name.split(".")[0], f"import {alias.name}", path, node.lineno))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            statement = f"from {node.module} import {', '.join(alias.name for alias in node.names)}"
            found.append(Import(node.module.split(".")[0], statement, path, node.lineno))
    return sorted(found, key=lambda i: i.line)


def providers() -> dict[str, frozenset[str]]:
    """Import name -> the normalized names of the installed distributions that provide it."""
    return {
        name: frozenset(normalized(d) for d in dists)
        for name, dists in importlib.metadata.packages_distributions().items()
    }


def undeclared_imports(member: Member, provided_by: dict[str, frozenset[str]]) -> list[str]:
    """One line per import of `member` that is neither the standard library, its own package, nor
    provided by a distribution it declares: the file and line, the statement, and who provides it."""
    problems = []
    for path in member.sources():
        for found in imports_of(path):
            if found.module in sys.stdlib_module_names or found.module in member.packages:
                continue
            dists = provided_by.get(found.module, frozenset())
            if dists & member.declared:
                continue
            provider = ", ".join(sorted(dists)) if dists else "no installed distribution"
            problems.append(
                f"{found.where()}: {found.statement!r}: {found.module} comes from {provider}, "
                f"which {member.distribution} ({shown(member.root / 'pyproject.toml')}) does not declare"
            )
    return problems


MEMBER_INFO = [Member.read(REPO / folder) for folder in MEMBERS]


@pytest.mark.parametrize("member", MEMBER_INFO, ids=lambda m: m.distribution)
def test_every_import_is_the_standard_library_the_own_package_or_declared(member: Member) -> None:
    assert member.sources(), f"{shown(member.root / 'src')} has no Python files"
    problems = undeclared_imports(member, providers())
    assert not problems, "undeclared imports:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "member", [m for m in MEMBER_INFO if m.distribution != TESTKIT], ids=lambda m: m.distribution
)
def test_the_product_does_not_depend_on_the_test_kit(member: Member) -> None:
    # `dependencies` and every extra: the product's installs never pull the test kit in.
    assert TESTKIT not in member.declared, f"{shown(member.root / 'pyproject.toml')} declares {TESTKIT}"


def test_an_undeclared_import_is_named_with_its_file_and_distribution(tmp_path: Path) -> None:
    # The check itself, on a member of this test's own: a deferred import of a workspace plugin and
    # a type-only one of a third-party library, neither declared, beside imports that are allowed.
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "Acme_Plugin"\ndependencies = ["kconnect>=0.1"]\n'
        "[project.optional-dependencies]\nyaml = [\"PyYAML>=6; python_version >= '3.10'\"]\n",
        encoding="utf-8",
    )
    module = tmp_path / "src" / "acme" / "__init__.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "from __future__ import annotations\n"
        "import json\n"
        "from typing import TYPE_CHECKING\n"
        "from kconnect.errors import ConnectError\n"
        "from acme import sibling\n"
        "from . import other\n"
        "if TYPE_CHECKING:\n"
        "    import pluggy\n"
        "def run() -> None:\n"
        "    from kconnect_java.build import facade_classpath\n"
        "    import yaml\n",
        encoding="utf-8",
    )
    member = Member.read(tmp_path)
    assert member.distribution == "acme-plugin"
    assert member.declared == {"kconnect", "pyyaml"}

    assert undeclared_imports(member, providers()) == [
        f"{module}:8: 'import pluggy': pluggy comes from pluggy, "
        f"which acme-plugin ({tmp_path / 'pyproject.toml'}) does not declare",
        f"{module}:10: 'from kconnect_java.build import facade_classpath': kconnect_java comes from "
        f"kconnect-java, which acme-plugin ({tmp_path / 'pyproject.toml'}) does not declare",
    ]
