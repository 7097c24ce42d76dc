"""Which class a plugin name resolves to: pluggy's call order, and nothing but registered plugins."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from kconnect import hookimpl
from kconnect.errors import PluginError
from kconnect.plugin_host import PluginHost, PluginRegistry, PluginType

from tests.connectors import IdleSink, IdleSinkTask, IdleSource, IdleSourceTask


class FirstSource(IdleSource):
    """Registered by the first plugin under the alias "Shared"."""


class SecondSource(IdleSource):
    """Registered by the second plugin under the alias "Shared"."""


def _registering(cls: type, **marks: bool) -> object:
    class Plugin:
        @hookimpl(**marks)
        def register_connectors(self, registry: PluginRegistry) -> None:
            registry.add(cls, aliases=["Shared"])

    return Plugin()


def test_the_plugin_registered_last_wins_a_shared_name() -> None:
    host = PluginHost.load(extra_plugins=[_registering(FirstSource), _registering(SecondSource)])
    assert host.connector("Shared").cls is SecondSource
    # Both stay installed and each is still found by its own Python path.
    assert host.connector(f"{__name__}.FirstSource").cls is FirstSource
    reversed_host = PluginHost.load(extra_plugins=[_registering(SecondSource), _registering(FirstSource)])
    assert reversed_host.connector("Shared").cls is FirstSource


def test_tryfirst_and_trylast_change_which_plugin_wins() -> None:
    tryfirst = PluginHost.load(
        extra_plugins=[_registering(FirstSource, tryfirst=True), _registering(SecondSource)]
    )
    assert tryfirst.connector("Shared").cls is FirstSource
    trylast = PluginHost.load(
        extra_plugins=[_registering(FirstSource), _registering(SecondSource, trylast=True)]
    )
    assert trylast.connector("Shared").cls is FirstSource


def test_a_later_plugin_can_override_a_bundled_name() -> None:
    class Override(IdleSource):
        java_class_names = ("org.apache.kafka.connect.file.FileStreamSourceConnector",)

    class Plugin:
        @hookimpl
        def register_connectors(self, registry: PluginRegistry) -> None:
            registry.add(Override, aliases=["FileStreamSource"])

    host = PluginHost.load(extra_plugins=[Plugin()])
    assert host.connector("FileStreamSource").cls is Override
    assert host.connector("org.apache.kafka.connect.file.FileStreamSourceConnector").cls is Override
    assert host.connector("kconnect_file.source.FileStreamSourceConnector").cls.__name__ == (
        "FileStreamSourceConnector"
    )


def test_a_hookwrapper_sees_every_registration_call() -> None:
    seen: list[tuple[str, list[str]]] = []

    class Wrapper:
        @hookimpl(wrapper=True)
        def register_connectors(self, registry: PluginRegistry) -> Iterator[None]:
            result = yield
            seen.append((registry.kind, [p.class_name for p in registry.plugins]))
            return result

    host = PluginHost.load(extra_plugins=[Wrapper(), _registering(FirstSource)])
    assert len(seen) == 1
    kind, classes = seen[0]
    assert kind == "register_connectors"
    assert f"{__name__}.FirstSource" in classes
    assert "org.apache.kafka.connect.file.FileStreamSinkConnector" in classes
    assert host.connector("Shared").cls is FirstSource


def test_pluggy_tracing_records_registration_hooks() -> None:
    messages: list[str] = []
    PluginHost.load(extra_plugins=[_registering(FirstSource)], trace=messages.append)
    traced = "".join(messages)
    for hook in ("register_connectors", "register_converters", "register_transforms"):
        assert f"{hook} [hook]" in traced
    assert "registry: PluginRegistry(kind='register_connectors'" in traced


@pytest.fixture
def marker_module(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A module on sys.path that writes a marker file when imported; yields (its name, the marker)."""
    marker = tmp_path / "imported.marker"
    package = tmp_path / "kconnect_marker_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "evil.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\nclass Evil: pass\n",
        encoding="utf-8",
    )
    sys.path.insert(0, str(tmp_path))
    try:
        yield "kconnect_marker_pkg.evil.Evil", marker
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.startswith("kconnect_marker_pkg")]:
            del sys.modules[name]


@pytest.mark.parametrize("kind", list(PluginType))
def test_no_lookup_imports_a_dotted_name(marker_module: tuple[str, Path], kind: PluginType) -> None:
    name, marker = marker_module
    with pytest.raises(PluginError, match=re.escape(f"which name matches {name}")):
        PluginHost.load().find(name, kind)
    assert not marker.exists()


@pytest.mark.parametrize("name", ["os.system", "subprocess.Popen", "builtins.object", "pathlib.Path"])
def test_connector_class_naming_a_python_object_is_not_found(name: str) -> None:
    with pytest.raises(PluginError) as failure:
        PluginHost.load().connector(name)
    message = str(failure.value)
    assert message.startswith(
        f"Failed to find any class that implements Connector and which name matches {name}, "
        "available connectors are: PluginDesc{klass=class kconnect_file."
    )
    assert "name='org.apache.kafka.connect.file.FileStreamSinkConnector'" in message
    assert "location='kconnect-file'" in message


def test_task_class_is_the_one_the_registered_connector_returns() -> None:
    class Plugin:
        @hookimpl
        def register_connectors(self, registry: PluginRegistry) -> None:
            registry.add(FirstSource, aliases=["First"])
            registry.add(IdleSink, aliases=["Sink"])

    host = PluginHost.load(extra_plugins=[Plugin()])
    assert host.task_class("First", "tests.connectors.IdleSourceTask") is IdleSourceTask
    assert host.task_class("Sink", "tests.connectors.IdleSinkTask") is IdleSinkTask


def test_task_class_never_imports_what_the_task_config_names(marker_module: tuple[str, Path]) -> None:
    name, marker = marker_module
    host = PluginHost.load(extra_plugins=[_registering(FirstSource)])
    with pytest.raises(PluginError, match=re.escape(f"task.class {name} is not the task class of connector")):
        host.task_class("Shared", name)
    with pytest.raises(PluginError, match=r"which name matches os\.system"):
        host.task_class("os.system", "tests.connectors.IdleSourceTask")
    assert not marker.exists()


def test_no_source_module_imports_by_name() -> None:
    """Keeps the promise in code: nothing under src/ imports a module or class from a string."""
    root = Path(__file__).resolve().parents[3]
    sources = [
        *root.glob("kernel/src/**/*.py"),
        *root.glob("rest/src/**/*.py"),
        *root.glob("plugins/*/src/**/*.py"),
    ]
    assert sources
    for source in sources:
        text = source.read_text(encoding="utf-8")
        for call in ("import_module(", "resolve_name(", "__import__(", "find_spec("):
            assert call not in text, f"{source.relative_to(root)} calls {call}"
