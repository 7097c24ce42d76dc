"""The plugin host: entry-point discovery, name resolution, blocking, and the import namespace."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from kconnect import hookimpl, hookspecs
from kconnect.errors import PluginError
from kconnect.plugin_host import PluginHost, PluginRegistry, PluginType
from kconnect.plugin_versions import PluginVersionError
from kconnect.worker_config import WorkerConfig

from tests.connectors import IdleSource


class InlineSource(IdleSource):
    """An idle source with a Java class name."""

    java_class_names = ("com.example.InlineSourceConnector",)


class _InlinePlugin:
    @hookimpl
    def register_connectors(self, registry: PluginRegistry) -> None:
        registry.add(InlineSource, aliases=["Inline"])


def test_bundled_plugins_are_found_through_entry_points() -> None:
    host = PluginHost.load()
    found = {(p.class_name, p.type) for p in host.plugins()}
    assert ("org.apache.kafka.connect.file.FileStreamSourceConnector", PluginType.SOURCE) in found
    assert ("org.apache.kafka.connect.file.FileStreamSinkConnector", PluginType.SINK) in found
    assert ("org.apache.kafka.connect.json.JsonConverter", PluginType.CONVERTER) in found
    assert ("org.apache.kafka.connect.json.JsonConverter", PluginType.HEADER_CONVERTER) in found
    assert "file" in host.distributions()


@pytest.mark.parametrize(
    "name",
    [
        "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "FileStreamSource",
        "FileStreamSourceConnector",
        "kconnect_file.source.FileStreamSourceConnector",
    ],
)
def test_connector_found_by_java_name_alias_or_python_path(name: str) -> None:
    assert PluginHost.load().connector(name).python_path == "kconnect_file.source.FileStreamSourceConnector"


def test_converter_found_by_java_name_and_alias() -> None:
    host = PluginHost.load()
    for name in ("org.apache.kafka.connect.storage.StringConverter", "StringConverter"):
        assert host.find(name, PluginType.CONVERTER).cls.__name__ == "StringConverter"


def test_unknown_plugin_error_names_it() -> None:
    with pytest.raises(PluginError, match="which name matches NoSuchConnector"):
        PluginHost.load().connector("NoSuchConnector")


def test_blocked_plugin_disappears() -> None:
    host = PluginHost.load(disabled=["file"])
    assert not [p for p in host.plugins() if "FileStream" in p.class_name]
    with pytest.raises(PluginError):
        host.connector("FileStreamSource")


def test_extra_plugin_registers_like_entry_points() -> None:
    host = PluginHost.load(extra_plugins=[_InlinePlugin()])
    plugin = host.connector("Inline")
    assert plugin.cls is InlineSource
    assert plugin.class_name == "com.example.InlineSourceConnector"
    assert host.connector("com.example.InlineSource").cls is InlineSource


def test_executor_comes_from_the_spark_plugin() -> None:
    from kconnect.worker_config import WorkerConfig

    executor: Any = PluginHost.load().create_executor(WorkerConfig.from_props({}))
    assert executor.name == "spark"


def test_every_hookspec_is_typed_and_documented() -> None:
    specs = [f for n, f in vars(hookspecs).items() if inspect.isfunction(f) and hasattr(f, "kconnect_spec")]
    assert {f.__name__ for f in specs} >= {"register_connectors", "register_converters", "create_executor"}
    for spec in specs:
        assert spec.__doc__ and len(spec.__doc__) > 40, spec.__name__
        assert all(
            p.annotation is not inspect.Parameter.empty for p in inspect.signature(spec).parameters.values()
        )


def test_author_api_is_one_import() -> None:
    import kconnect

    for name in (
        "SourceConnector",
        "SourceTask",
        "SinkConnector",
        "SinkTask",
        "Schema",
        "Struct",
        "ConfigDef",
    ):
        assert hasattr(kconnect, name)


def test_every_hook_has_a_docs_heading() -> None:
    docs = (Path(__file__).resolve().parents[3] / "docs" / "plugins.md").read_text(encoding="utf-8")
    specs = [n for n, f in vars(hookspecs).items() if inspect.isfunction(f) and hasattr(f, "kconnect_spec")]
    for name in specs:
        assert f"\n## {name}\n" in docs, f"docs/plugins.md has no heading for hook {name}"


@dataclass(frozen=True)
class _FoundSink:
    """A plugin found from the worker config (kconnect.plugin_registry.FoundPlugin)."""

    class_name: str
    version: str
    location: str = "file:/plugins/found"
    type: PluginType = PluginType.SINK
    task_runtime: str = "java"

    def refuse_to_run(self, task_runtime: str) -> Exception | None:
        return PluginError(f"{self.class_name} cannot run in {task_runtime} tasks")


class _WorkerConfigPlugin:
    @hookimpl
    def register_worker_plugins(self, config: WorkerConfig, registry: PluginRegistry) -> None:
        for version in config.props.get("found.versions", "").split(","):
            registry.add_found(_FoundSink("com.example.FoundSinkConnector", version))
        registry.add_found(_FoundSink("com.example.InlineSourceConnector", "9.9"))


def test_worker_plugins_added_from_the_worker_config_after_registered_classes() -> None:
    host = PluginHost.load(extra_plugins=[_InlinePlugin(), _WorkerConfigPlugin()], disabled=())
    assert host.lookup("FoundSink", PluginType.SINK) is None
    host.add_worker_plugins(WorkerConfig.from_props({"found.versions": "2.0,1.0"}))
    found = host.connector("FoundSink")
    assert (found.class_name, found.version, found.distribution) == (
        "com.example.FoundSinkConnector",
        "2.0",
        "file:/plugins/found",
    )
    assert [
        p.version for p in host.plugins(PluginType.SINK) if p.class_name.endswith("FoundSinkConnector")
    ] == [
        "2.0",
        "1.0",
    ]
    # A class registered at load answers first to a name a found plugin shares.
    assert host.connector("com.example.InlineSourceConnector").cls is InlineSource


def test_task_runtime_is_python_for_classes_and_what_a_found_plugin_says() -> None:
    host = PluginHost.load(extra_plugins=[_InlinePlugin(), _WorkerConfigPlugin()], disabled=())
    host.add_worker_plugins(WorkerConfig.from_props({"found.versions": "1.0"}))
    assert host.task_runtime("com.example.InlineSourceConnector") == "python"
    assert host.task_runtime("FoundSink") == "java"


def test_a_version_reaches_the_found_plugin_a_registered_class_shadows() -> None:
    host = PluginHost.load(extra_plugins=[_InlinePlugin(), _WorkerConfigPlugin()], disabled=())
    host.add_worker_plugins(WorkerConfig.from_props({"found.versions": "2.0,1.0"}))
    inline = "com.example.InlineSourceConnector"
    assert host.connector(inline).cls is InlineSource
    assert host.connector(inline, "9.9").version == "9.9" and host.task_runtime(inline, "9.9") == "java"
    assert host.connector("FoundSink", "1.0").version == "1.0"
    assert host.connector(inline, "[9,10)").version == "9.9"


@pytest.mark.parametrize(
    ("wanted", "version"),
    [
        (None, "2.0"),
        ("latest", "2.0"),
        ("1.0", "1.0"),
        ("[1.0]", "1.0"),
        ("[1.0,2.0)", "1.0"),
        ("[1,)", "2.0"),
    ],
)
def test_a_version_range_picks_the_newest_version_in_it(wanted: str | None, version: str) -> None:
    host = PluginHost.load(extra_plugins=[_InlinePlugin(), _WorkerConfigPlugin()], disabled=())
    host.add_worker_plugins(WorkerConfig.from_props({"found.versions": "2.0,1.0"}))
    assert host.connector("FoundSink", wanted).version == version


@pytest.mark.parametrize(("wanted", "shown"), [("3.0", "[3.0,3.0]"), ("[3.0,4.0)", "[3.0,4.0)")])
def test_no_version_in_the_range_is_kafkas_error(wanted: str, shown: str) -> None:
    host = PluginHost.load(extra_plugins=[_InlinePlugin(), _WorkerConfigPlugin()], disabled=())
    host.add_worker_plugins(WorkerConfig.from_props({"found.versions": "2.0,1.0"}))
    with pytest.raises(PluginVersionError) as raised:
        host.connector("FoundSink", wanted)
    assert str(raised.value) == (
        f"Plugin com.example.FoundSinkConnector not found that matches the version range {shown}, "
        "available versions: [1.0, 2.0]"
    )
    assert raised.value.available == ["1.0", "2.0"]
