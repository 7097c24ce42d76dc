"""Shared fixtures: one real Kafka broker per test session, and per-test topic names.

Integration tests mark themselves with ``pytestmark = pytest.mark.integration``. Under ``CI=true`` (set
by ``.ci/run``) a skipped test fails: a tool missing on the CI machine must not leave CI green.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from kconnect_testkit.broker import KafkaBroker

from tests.throwaway_ca import KEY_PASSWORD, Certificate, CertificateAuthority, make_ca

REPO_ROOT = Path(__file__).resolve().parent.parent


def _load_script(name: str) -> ModuleType:
    """Import ``scripts/<name>.py`` by path; ``scripts`` is a folder of tools, not a package."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up here
    spec.loader.exec_module(module)
    return module


# --- CI runs everything ------------------------------------------------------------------------------------


def skips_fail() -> bool:
    """Whether a skipped test counts as failed: under ``CI=true``, where every tool must be installed."""
    return os.environ.get("CI", "").lower() in {"true", "1", "yes"}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """Under ``CI=true``, report a skipped test (not an expected failure) as failed, with its reason."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail") and skips_fail():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where nothing may skip: {reason}"


# --- Kafka -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[Any]:
    """Start one real single-node Kafka broker (KRaft) for the whole session; stop it at the end."""
    with KafkaBroker() as broker:
        yield broker


@pytest.fixture(scope="session")
def kafka_bootstrap(kafka_broker: Any) -> str:
    """Return the session broker's ``bootstrap.servers`` string."""
    return str(kafka_broker.bootstrap_servers)


@pytest.fixture
def unique_topic(request: pytest.FixtureRequest) -> str:
    """Return a topic name no other test uses: the test's name plus a random suffix."""
    stem = re.sub(r"[^a-zA-Z0-9._-]+", "-", request.node.name)[:80].strip("-")
    return f"{stem}-{uuid.uuid4().hex[:8]}"


# --- TLS ---------------------------------------------------------------------------------------------------
# One throwaway CA for the session (tests/throwaway_ca.py, made with the openssl command) and two
# certificates it signed for 127.0.0.1 and localhost, each usable by a server and by a client.


@pytest.fixture(scope="session")
def ca(tmp_path_factory: pytest.TempPathFactory) -> CertificateAuthority:
    """The session's CA: ``.certificate`` is the PEM trust store; ``.issue(name)`` signs another
    certificate; ``.client_context()`` is a client's SSL context trusting it."""
    return make_ca(tmp_path_factory.mktemp("ca"))


@pytest.fixture(scope="session")
def server_cert(ca: CertificateAuthority) -> Certificate:
    """A certificate `ca` signed, its key not encrypted (``.keystore`` is Kafka's PEM key store)."""
    return ca.issue("server")


@pytest.fixture(scope="session")
def client_cert(ca: CertificateAuthority) -> Certificate:
    """A certificate `ca` signed, its key encrypted with `tests.throwaway_ca.KEY_PASSWORD`."""
    return ca.issue("client", password=KEY_PASSWORD)


# --- Schema registry ---------------------------------------------------------------------------------------
# Apicurio Registry serving Confluent's API (tests/schema_registry_server.py), started on first use. Its
# global compatibility is BACKWARD, Confluent's default. A test that stops or halts a session registry
# starts or resumes it again before it ends; one that changes the global level uses
# `registry_compatibility`.


@pytest.fixture(scope="session")
def schema_registry() -> Iterator[Any]:
    """One Apicurio Registry over HTTP for the session: ``.url`` is ``schema.registry.url``."""
    from tests.schema_registry_server import ApicurioRegistry

    with ApicurioRegistry() as registry:
        registry.set_compatibility("BACKWARD")
        yield registry


@pytest.fixture
def registry_compatibility(schema_registry: Any) -> Iterator[Any]:
    """The session registry, its global compatibility put back to BACKWARD when the test ends."""
    yield schema_registry
    schema_registry.start()
    schema_registry.resume()
    schema_registry.set_compatibility("BACKWARD")


@pytest.fixture(scope="session")
def schema_registry_tls(ca: CertificateAuthority) -> Iterator[Any]:
    """One Apicurio Registry over HTTPS for the session, its certificate issued by `ca`
    for 127.0.0.1 and localhost: ``.url`` is ``https://...``, ``.tls.ca`` the CA's PEM file."""
    from tests.schema_registry_server import ApicurioRegistry, RegistryTls

    server = ca.issue("registry")
    tls = RegistryTls(key=server.key, certificate=server.certificate, ca=ca.certificate)
    with ApicurioRegistry(tls=tls) as registry:
        registry.set_compatibility("BACKWARD")
        yield registry


@pytest.fixture(scope="session")
def schema_registry_basic_auth() -> Iterator[Any]:
    """One Apicurio Registry over HTTP for the session whose API requires HTTP basic auth: ``.users`` is
    ``{"registry-user": "registry-pw"}``, so ``basic.auth.user.info`` is ``registry-user:registry-pw``."""
    from tests.schema_registry_server import ApicurioRegistry

    with ApicurioRegistry(users={"registry-user": "registry-pw"}) as registry:
        registry.set_compatibility("BACKWARD")
        yield registry


# --- Storage -----------------------------------------------------------------------------------------------
# A real HDFS (a MiniDFSCluster) and an S3-compatible server (moto's), tests/storage_servers.py, each
# started on first use. A test that stops or halts one starts or resumes it again before it ends; tests
# keep apart by unique paths and bucket names.


@pytest.fixture(scope="session")
def hdfs_cluster() -> Iterator[Any]:
    """One MiniDFSCluster for the session: ``.webhdfs_url`` (``http://127.0.0.1:<port>``), ``.hdfs_url``
    (``hdfs://127.0.0.1:<port>``), ``.webhdfs()`` an fsspec client; ``stop``/``start`` keep the files."""
    from tests.storage_servers import HdfsCluster

    with HdfsCluster() as cluster:
        yield cluster


@pytest.fixture(scope="session")
def s3_server() -> Iterator[Any]:
    """One S3-compatible server (moto) for the session: ``.endpoint_url``, ``.access_key``/``.secret_key``/
    ``.region``, ``.create_bucket(name)``, ``.client()`` (boto3); ``stop``/``start`` lose every object."""
    from tests.storage_servers import S3Server

    with S3Server() as server:
        yield server


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local SparkSession in the test process for the session (the storage tests read their files
    with it): spark-avro on ``spark.jars``, TIME columns enabled."""
    from pyspark.sql import SparkSession

    from tests.storage_servers import spark_avro_jar

    session = (
        SparkSession.builder.master("local[1]")
        .appName("kconnect-storage-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.jars", str(spark_avro_jar()))
        .config("spark.sql.timeType.enabled", "true")
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1")
        .getOrCreate()
    )
    yield session
    session.stop()


# --- Spark standalone cluster ------------------------------------------------------------------------------
# A master and two one-core workers on loopback (scripts/spark_cluster.py), started on first use. A test
# that kills a cluster worker starts a replacement (`start_worker`) when it needs one; before each test
# that uses the cluster any worker still dead is replaced, so a test that failed half-way leaves the
# next one two workers.


@pytest.fixture(scope="session")
def spark_cluster() -> Iterator[Any]:
    """One Spark standalone cluster for the session: a master and two one-core workers (``.master_url``,
    ``.workers``, ``.start_worker()``); its start costs three JVMs, so the modules that use it share it."""
    with _load_script("spark_cluster").SparkCluster(workers=2, cores=1, memory="1g") as cluster:
        yield cluster


@pytest.fixture(autouse=True)
def _spark_cluster_whole(request: pytest.FixtureRequest) -> None:
    """Before a test that uses `spark_cluster`, directly or through a fixture, replace the cluster's
    dead workers (`SparkCluster.replace_dead_workers`)."""
    if "spark_cluster" in request.fixturenames:
        request.getfixturevalue("spark_cluster").replace_dead_workers()


# --- kconnect workers ------------------------------------------------------------------------------------


@pytest.fixture
def start_worker(tmp_path: Path, kafka_bootstrap: str) -> Iterator[Any]:
    """A factory starting real ``kconnect standalone`` workers on the session broker; stopped at the end.

    Call ``start_worker(extra_props, connector_files, env, python)``; the offset file defaults to the test's
    tmp dir, the interpreter to this one (pass a `venv_without` python to run without a package).
    """
    from tests.worker_process import WorkerProcess, stop_all

    workers: list[WorkerProcess] = []

    def start(
        props: dict[str, str] | None = None,
        connector_files: list[Path] | None = None,
        env: dict[str, str] | None = None,
        python: str = sys.executable,
    ) -> WorkerProcess:
        worker_props = {
            "bootstrap.servers": kafka_bootstrap,
            "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
            "offset.flush.interval.ms": "1000",
            **(props or {}),
        }
        worker = WorkerProcess(tmp_path, worker_props, connector_files, env, python)
        workers.append(worker)
        return worker.start()

    yield start
    stop_all(workers)
