"""Java plugins on ``plugin.path`` are listed and described as Java Kafka Connect 4.3.1 lists them.

One kconnect standalone worker (the Python FileStream plugin disabled, so only Kafka's Java
classes answer to its names) and one Java ``ConnectStandalone`` 4.3.1 worker (without
``connect-file`` on its classpath) share one ``plugin.path``: Kafka's ``connect-file-4.3.1.jar`` in
one folder and ``connect-file-4.2.0.jar`` in another, both fetched from Maven Central with Maven.
Both jars report the version of the Kafka they run on (4.3.1), so each class is one plugin.
Compared exactly: the connect-file entries of ``GET /connector-plugins?connectorsOnly=false`` and
``GET /connector-plugins/{plugin}/config``. A create naming a Java transformation answers 400 for a
Python connector, 201 for a Java one.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kconnect.config import sink_connector_config_def, source_connector_config_def
from kconnect_java.jvm import FacadeJvm
from kconnect_testkit.plugin_jars import fetch_connect_file

from plugins.java.tests.integration.java_worker import side_by_side
from tests.java_connect import JavaConnectWorker, compile_java
from tests.worker_process import WorkerProcess, write_properties

pytestmark = pytest.mark.integration

VERSIONS = ("4.3.1", "4.2.0")
SINK_VERSIONS = ("2.0", "1.0")
FILE_PACKAGE = "org.apache.kafka.connect.file."
VERSIONED_SINK = "kconnect.test.VersionedSinkConnector"
JAVA_PACKAGES = (FILE_PACKAGE, "kconnect.test.")


def build_versioned_sink(folder: Path, version: str) -> Path:
    """A plugin folder holding the test classes of ``java/`` (a sink, a transformation) built as
    `version`, in one jar."""
    build = folder / f"build-{version}"
    (build / "src").mkdir(parents=True)
    sources = []
    for source in sorted((Path(__file__).parent / "java").glob("*.java")):
        copy = build / "src" / source.name
        copy.write_text(source.read_text(encoding="utf-8").replace("@VERSION@", version), encoding="utf-8")
        sources.append(copy)
    classes = compile_java(build / "classes", *sources)
    plugin = folder / f"versioned-sink-{version}"
    plugin.mkdir()
    jar = plugin / f"versioned-sink-{version}.jar"
    subprocess.run(["jar", "cf", str(jar), "-C", str(classes), "."], check=True)
    return plugin


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Four plugin folders: ``connect-file`` 4.3.1 and 4.2.0, a test sink built as 1.0 and as 2.0."""
    folder = tmp_path_factory.mktemp("plugin-path")
    folders = [fetch_connect_file(version) for version in VERSIONS]
    folders += [build_versioned_sink(folder, version) for version in SINK_VERSIONS]
    return ",".join(map(str, folders))


def _props(bootstrap: str, folder: Path, stem: str, plugin_path: str) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap,
        "offset.storage.file.filename": str(folder / f"{stem}.offsets"),
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "plugin.path": plugin_path,
    }


@pytest.fixture(scope="module")
def workers(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str, plugin_path: str
) -> Iterator[tuple[JavaConnectWorker, WorkerProcess]]:
    """A Java 4.3.1 and a kconnect standalone worker with the same ``plugin.path``, both ready."""
    folder = tmp_path_factory.mktemp("java-plugins")
    java_props = _props(kafka_bootstrap, folder, "java", plugin_path)
    kconnect_props = {**_props(kafka_bootstrap, folder, "kconnect", plugin_path), "spark.master": "local[1]"}
    with side_by_side(folder, java_props, kconnect_props) as (java, ours):
        yield java, ours


def _get(worker: JavaConnectWorker | WorkerProcess, path: str) -> Any:
    response = worker.request("GET", path)
    assert response.status_code == 200, response.text
    return response.json()


def test_plugins_listed_as_java_lists_them(workers: tuple[JavaConnectWorker, WorkerProcess]) -> None:
    java, ours = workers
    for path, count in (("/connector-plugins", 4), ("/connector-plugins?connectorsOnly=false", 6)):
        theirs = [p for p in _get(java, path) if p["class"].startswith(JAVA_PACKAGES)]
        mine = [p for p in _get(ours, path) if p["class"].startswith(JAVA_PACKAGES)]
        # connect-file reports Kafka's own version (4.3.1) from both jars: one entry per class;
        # the test sink and transformation one per version.
        assert len(theirs) == count, theirs
        assert mine == theirs
    # Python plugins are listed beside them.
    classes = {p["class"] for p in _get(ours, "/connector-plugins?connectorsOnly=false")}
    assert "org.apache.kafka.connect.json.JsonConverter" in classes


def _documented_form(keys: list[dict[str, Any]], framework: set[str]) -> list[dict[str, Any]]:
    """Kafka 4.3's config keys as kconnect writes them (docs/differences.md): ``order`` for
    ``order_in_group``, and the framework keys' documentation in kconnect's own words (left out)."""
    shown = []
    for key in keys:
        key = dict(key)
        if "order_in_group" in key:
            key["order"] = key.pop("order_in_group")
        if key["name"] in framework:
            key.pop("documentation")
        shown.append(key)
    return shown


@pytest.mark.parametrize(
    "plugin", ["FileStreamSinkConnector", "FileStreamSource", FILE_PACKAGE + "FileStreamSourceConnector"]
)
def test_plugin_config_as_java(workers: tuple[JavaConnectWorker, WorkerProcess], plugin: str) -> None:
    java, ours = workers
    path = f"/connector-plugins/{plugin}/config"
    framework = {*sink_connector_config_def().config_keys, *source_connector_config_def().config_keys}
    mine, theirs = _get(ours, path), _get(java, path)
    own = [key for key in theirs if key["name"] not in framework]
    assert own and [key["name"] for key in own] == [key["name"] for key in mine[: len(own)]]
    assert _documented_form(mine, framework) == _documented_form(theirs, framework)
    # The Java class's own keys, documentation included, are exactly Java's.
    assert [key["documentation"] for key in mine[: len(own)]] == [key["documentation"] for key in own]


def test_two_versions_listed_and_the_newest_described(
    workers: tuple[JavaConnectWorker, WorkerProcess],
) -> None:
    java, ours = workers
    theirs = [p for p in _get(java, "/connector-plugins") if p["class"] == VERSIONED_SINK]
    mine = [p for p in _get(ours, "/connector-plugins") if p["class"] == VERSIONED_SINK]
    assert sorted(p["version"] for p in theirs) == ["1.0", "2.0"]
    assert mine == theirs
    framework = {*sink_connector_config_def().config_keys}
    path = "/connector-plugins/VersionedSinkConnector/config"
    mine_keys, theirs_keys = _get(ours, path), _get(java, path)
    assert [k["name"] for k in mine_keys[:2]] == ["shared.key", "since.two"]  # 2.0's keys
    assert _documented_form(mine_keys, framework) == _documented_form(theirs_keys, framework)


@pytest.mark.parametrize("version", ["1.0", "[1.0,2.0)", "2.0", "latest"])
def test_the_config_of_a_version_as_java(
    workers: tuple[JavaConnectWorker, WorkerProcess], version: str
) -> None:
    java, ours = workers
    framework = {*sink_connector_config_def().config_keys}
    path = f"/connector-plugins/VersionedSinkConnector/config?version={version}"
    mine, theirs = _get(ours, path), _get(java, path)
    assert _documented_form(mine, framework) == _documented_form(theirs, framework)
    own = [k["name"] for k in mine if k["name"] not in framework]
    assert own == (["shared.key"] if version in ("1.0", "[1.0,2.0)") else ["shared.key", "since.two"])


@pytest.mark.parametrize(
    ("plugin", "version"),
    [
        ("VersionedSinkConnector", "3.0"),
        ("VersionedSinkConnector", "[3.0,)"),
        ("VersionedSinkConnector", "[1.0"),
    ],
)
def test_a_version_not_installed_is_answered_as_java_answers(
    workers: tuple[JavaConnectWorker, WorkerProcess], plugin: str, version: str
) -> None:
    java, ours = workers
    path = f"/connector-plugins/{plugin}/config?version={version}"
    mine, theirs = ours.request("GET", path), java.request("GET", path)
    assert (mine.status_code, mine.json()) == (theirs.status_code, theirs.json())
    assert mine.status_code == 400


JAVA_TRANSFORMATION = {"transforms": "noop", "transforms.noop.type": "kconnect.test.NoopTransformation"}


def test_a_python_connector_naming_a_java_transformation_is_refused(
    workers: tuple[JavaConnectWorker, WorkerProcess],
) -> None:
    _, ours = workers
    config = {"connector.class": "JdbcSinkConnector", "topics": "t", **JAVA_TRANSFORMATION}
    response = ours.request("POST", "/connectors", {"name": "with-java", "config": config})
    assert response.status_code == 400, response.text
    assert "Java transformations cannot run yet in this version of kconnect" in response.json()["message"]
    assert ours.get("/connectors").json() == []


def test_a_java_connector_naming_a_java_transformation_is_created(
    workers: tuple[JavaConnectWorker, WorkerProcess], tmp_path: Path
) -> None:
    _, ours = workers
    config = {
        "connector.class": "FileStreamSink",
        "topics": "t",
        "file": str(tmp_path / "out"),
        **JAVA_TRANSFORMATION,
    }
    response = ours.request("POST", "/connectors", {"name": "with-java", "config": config})
    assert response.status_code == 201, response.text
    assert ours.request("DELETE", "/connectors/with-java").status_code == 204


def _validate(
    worker: JavaConnectWorker | WorkerProcess, plugin: str, config: dict[str, str]
) -> dict[str, Any]:
    response = worker.request("PUT", f"/connector-plugins/{plugin}/config/validate", config)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("plugin", "config"),
    [
        ("FileStreamSource", {"name": "java-source", "batch.size": "many"}),
        ("FileStreamSinkConnector", {"name": "java-sink", "topics": "t", "file": "/tmp/x"}),
        ("VersionedSinkConnector", {"name": "v", "topics": "t", "shared.key": "bad", "since.two": "x"}),
        ("VersionedSinkConnector", {"name": "v", "topics": "t", "shared.key": "good"}),
    ],
)
def test_validate_runs_the_java_connectors_validate(
    workers: tuple[JavaConnectWorker, WorkerProcess], plugin: str, config: dict[str, str]
) -> None:
    java, ours = workers
    config = {"connector.class": plugin, **config}
    theirs, mine = (_validate(worker, plugin, config) for worker in (java, ours))
    assert mine["error_count"] == theirs["error_count"]
    own = {key["name"] for key in _get(java, f"/connector-plugins/{plugin}/config")} - {
        *sink_connector_config_def().config_keys,
        *source_connector_config_def().config_keys,
    }
    # The connector's own keys: values, recommended values, errors and visibility exactly as Java's.
    mine_values = {c["value"]["name"]: c["value"] for c in mine["configs"] if c["value"]["name"] in own}
    theirs_values = {c["value"]["name"]: c["value"] for c in theirs["configs"] if c["value"]["name"] in own}
    assert mine_values == theirs_values
    assert mine_values


def test_plugin_discovery_has_kafkas_meaning(plugin_path: str) -> None:
    """The test sink has no ServiceLoader manifest and connect-file has: ``service_load`` finds only it."""
    jvm = FacadeJvm()
    try:
        for discovery, versioned_sink_found in (
            ("only_scan", True),
            ("hybrid_warn", True),
            ("service_load", False),
        ):
            scan = jvm.call({"op": "scan", "plugin.path": plugin_path, "plugin.discovery": discovery})
            classes = {plugin["class"] for plugin in scan["plugins"]}
            assert FILE_PACKAGE + "FileStreamSinkConnector" in classes, discovery
            assert (VERSIONED_SINK in classes) is versioned_sink_found, discovery
    finally:
        jvm.close()


def test_hybrid_fail_stops_the_worker_naming_the_key(
    tmp_path: Path, kafka_bootstrap: str, plugin_path: str
) -> None:
    props = {**_props(kafka_bootstrap, tmp_path, "fail", plugin_path), "plugin.discovery": "hybrid_fail"}
    worker = WorkerProcess(tmp_path, props, env={"KCONNECT_DISABLE_PLUGINS": "file"})
    with pytest.raises(RuntimeError, match="worker exited with 2") as failure:
        worker.start(timeout=300)
    assert "plugin.discovery: Java plugins could not be loaded" in str(failure.value)
    assert "kconnect.test.VersionedSinkConnector" in str(failure.value)


def test_kconnect_validate_finds_java_plugins_of_the_worker_file(
    tmp_path: Path, kafka_bootstrap: str, plugin_path: str
) -> None:
    """``kconnect validate --worker`` sees the worker file's Java plugins, as the worker does."""
    worker_file = write_properties(
        tmp_path / "worker.properties", _props(kafka_bootstrap, tmp_path, "v", plugin_path)
    )
    good = write_properties(
        tmp_path / "good.properties",
        {"name": "good", "connector.class": "VersionedSinkConnector", "topics": "t", "shared.key": "fine"},
    )
    bad = write_properties(
        tmp_path / "bad.properties",
        {"name": "bad", "connector.class": "VersionedSinkConnector", "topics": "t", "shared.key": "bad"},
    )
    command = [
        sys.executable,
        "-m",
        "kconnect_rest.cli",
        "validate",
        "--worker",
        str(worker_file),
        str(good),
        str(bad),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{bad}: shared.key: shared.key is bad in version 2.0" in result.stdout
    assert "1 valid, 1 invalid (1 error)" in result.stdout
