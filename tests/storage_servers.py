"""Real storage servers for the storage sink's tests: HDFS (a MiniDFSCluster) and S3 (moto's server).

`HdfsCluster` runs Hadoop's own test cluster, ``org.apache.hadoop.mapreduce.MiniHadoopClusterManager``
from ``org.apache.hadoop:hadoop-client-minicluster:3.5.0`` (fetched with ``mvn`` once, with its
runtime dependencies, JUnit 4 and JUnit 5's API, into ``<repo>/.cache/hadoop-minicluster-3.5.0/``
or under ``$KCONNECT_CACHE``), on Java 17: one namenode and one datanode in one JVM, on free
loopback ports, its data in a temporary folder. Permissions are off, so any user name may write.

- ``webhdfs_url`` (``http://127.0.0.1:<http port>``) is the namenode's WebHDFS; its redirects name the
  datanode as ``127.0.0.1:<port>`` (MiniDFSCluster sets ``dfs.datanode.hostname`` so), which a client
  on this machine reaches. fsspec's ``WebHDFS`` (`HdfsCluster.webhdfs`) writes, renames, lists and
  reads; pyarrow writes Parquet through it with ``pyarrow.fs.PyFileSystem(FSSpecHandler(...))``.
- ``hdfs_url`` (``hdfs://127.0.0.1:<rpc port>``) is the RPC address, for Java clients such as Spark
  (pyspark ships ``hadoop-client-api``/``-runtime`` 3.5.0). ``pyarrow.fs.HadoopFileSystem`` cannot use
  it here: it needs the native ``libhdfs.so`` of a Hadoop binary release, which neither Maven
  Central, Debian nor PyPI serves.
- `HdfsCluster.stop` then `HdfsCluster.start` brings the cluster back on the same namenode ports with
  every file kept (the first start formats, later ones do not); the datanode's ports change.
  `HdfsCluster.halt`/`HdfsCluster.resume` freeze and thaw the JVM (SIGSTOP/SIGCONT).

`S3Server` runs moto's standalone server (``moto_server``, from the ``moto[server]`` package) as a
process on a free loopback port, so workers in other processes reach it at ``endpoint_url``. It
accepts any credentials, enforces S3's 5 MiB minimum for every multipart part but the last
(``EntityTooSmall`` at ``CompleteMultipartUpload``) and shows a multipart object only once it is
completed. It keeps everything in memory: `S3Server.stop` then `S3Server.start` answers on the same
port with no bucket left. For a store that becomes unreachable and comes back with its objects, use
`S3Server.halt`/`S3Server.resume` (SIGSTOP/SIGCONT).

`spark_avro_jar` fetches ``org.apache.spark:spark-avro_2.13`` for ``spark.jars``: 4.3.0 (the
installed pyspark's version) is not on Maven Central, and 4.2.0 reads and writes Avro in a pyspark
4.3.0 session from the local jar, with no network.
"""

from __future__ import annotations

import atexit
import logging
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from kconnect_java.maven import fetch
from kconnect_testkit.broker import free_port, port_open
from kconnect_testkit.jars import cache_root, java_executable, tail

if TYPE_CHECKING:
    from typing_extensions import Self

HADOOP_VERSION = "3.5.0"
HADOOP_MAIN = "org.apache.hadoop.mapreduce.MiniHadoopClusterManager"
#: What the minicluster needs on its class path; Maven adds their runtime dependencies.
HADOOP_ARTIFACTS = (
    f"org.apache.hadoop:hadoop-client-minicluster:{HADOOP_VERSION}",
    "junit:junit:4.13.2",
    "org.junit.jupiter:junit-jupiter-api:5.13.4",
    # Hadoop logs through SLF4J 1.7; without a binding a failed start would say nothing.
    "org.slf4j:slf4j-simple:1.7.36",
)
#: The newest spark-avro Maven Central serves; pyspark 4.3.0's own version is not there.
SPARK_AVRO_VERSION = "4.2.0"
SPARK_AVRO = f"org.apache.spark:spark-avro_2.13:{SPARK_AVRO_VERSION}"

logger = logging.getLogger(__name__)


class StorageServerError(RuntimeError):
    """Fetching or starting a storage server failed; the message says where to look."""


# --- fetching ----------------------------------------------------------------------------------------------


def fetch_minicluster() -> Path:
    """Fetch the minicluster's jars and their runtime dependencies with Maven into the cache once;
    return the folder that holds them."""
    return fetch(HADOOP_ARTIFACTS, cache_root() / f"hadoop-minicluster-{HADOOP_VERSION}" / "lib")


def spark_avro_jar() -> Path:
    """Fetch spark-avro with Maven into the cache once; return the jar, a local path for ``spark.jars``."""
    folder = fetch(
        [SPARK_AVRO], cache_root() / f"spark-avro_2.13-{SPARK_AVRO_VERSION}" / "lib", transitive=False
    )
    return folder / f"spark-avro_2.13-{SPARK_AVRO_VERSION}.jar"


# --- the process both servers are --------------------------------------------------------------------------


class _ServerProcess:
    """One server process for a test session: started, stopped and restarted on the same ports,
    halted and resumed, its temporary folder deleted by `close`."""

    name = "server"

    def __init__(self, prefix: str, startup_timeout: float) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix=prefix))
        self.startup_timeout = startup_timeout
        self.startup_seconds = 0.0
        """How long the last `start` took, until the server answered."""
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def log_path(self) -> Path:
        """Return the file that receives the server's console output."""
        return self.directory / f"{self.name}.log"

    @property
    def running(self) -> bool:
        """Return whether the process is alive (a halted one counts as alive)."""
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> Self:
        """Start the server (on the same ports as before, if started before); return once it answers."""
        if self.running:
            return self
        command = self._command()
        started = time.monotonic()
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=self.directory
            )
        atexit.register(self.close)
        deadline = started + self.startup_timeout
        last = "no answer"
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                self._terminate()
                raise self._error(f"the {self.name} exited with code {self._proc.returncode}")
            try:
                if self._ready():
                    self.startup_seconds = time.monotonic() - started
                    return self
            except (httpx.HTTPError, OSError, ValueError) as exc:
                last = repr(exc)
            time.sleep(0.2)
        self._terminate()
        raise self._error(f"the {self.name} was not ready within {self.startup_timeout:.0f} s ({last})")

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the server (SIGTERM, SIGKILL after `timeout`); on return its ports refuse connections."""
        self._terminate(timeout)

    def halt(self) -> None:
        """SIGSTOP the server: connections are accepted by the kernel but never answered."""
        if self._proc is None or not self.running:
            raise StorageServerError(f"the {self.name} is not running")
        self._proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT a halted server: it answers the requests that waited."""
        if self._proc is not None and self.running:
            self._proc.send_signal(signal.SIGCONT)

    def close(self, timeout: float = 30.0) -> None:
        """Stop the server and delete its temporary folder."""
        atexit.unregister(self.close)
        self._terminate(timeout)
        shutil.rmtree(self.directory, ignore_errors=True)

    def _command(self) -> list[str]:
        raise NotImplementedError

    def _ready(self) -> bool:
        raise NotImplementedError

    def _ports(self) -> list[int]:
        raise NotImplementedError

    def _terminate(self, timeout: float = 30.0) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGCONT)  # a halted process would not act on SIGTERM
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and any(port_open(p) for p in self._ports()):
            time.sleep(0.05)

    def _error(self, what: str) -> StorageServerError:
        return StorageServerError(
            f"{what}; log: {self.log_path}\n--- its last lines ---\n" + tail(self.log_path, 40)
        )


# --- HDFS --------------------------------------------------------------------------------------------------


class HdfsCluster(_ServerProcess):
    """A MiniDFSCluster (one namenode, `datanodes` datanodes, one JVM) on loopback ports.

    ``webhdfs_url`` and ``hdfs_url`` are its addresses; `webhdfs` is an fsspec client. Use as a
    context manager, or call `start` and `close` (which also deletes the data).
    """

    name = "hdfs"

    def __init__(self, *, datanodes: int = 1, heap: str = "512m", startup_timeout: float = 180.0) -> None:
        """`datanodes` is how many datanodes the cluster starts; `heap` the JVM's ``-Xmx``."""
        super().__init__("kconnect-hdfs-", startup_timeout)
        self.datanodes = datanodes
        self.heap = heap
        self.namenode_port = free_port()
        self.http_port = free_port(self.namenode_port)
        self._formatted = False

    @property
    def webhdfs_url(self) -> str:
        """Return the namenode's HTTP address, ``http://127.0.0.1:<port>``; WebHDFS is ``/webhdfs/v1``."""
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def hdfs_url(self) -> str:
        """Return the namenode's RPC address, ``hdfs://127.0.0.1:<port>``, for Java clients (Spark)."""
        return f"hdfs://127.0.0.1:{self.namenode_port}"

    @property
    def config_path(self) -> Path:
        """Return the Hadoop configuration the cluster runs with (XML), written at each start."""
        return self.directory / "hadoop-conf.xml"

    def webhdfs(self, user: str = "kconnect") -> Any:
        """Return an fsspec ``WebHDFS`` filesystem on this cluster, acting as `user`."""
        from fsspec.implementations.webhdfs import WebHDFS

        return WebHDFS(host="127.0.0.1", port=self.http_port, user=user, use_https=False)

    def start(self) -> Self:
        """Start the cluster, formatting it the first time; later starts keep every file. Return once
        WebHDFS answers and every datanode is live. The first start fetches the jars if needed."""
        self._details_path.unlink(missing_ok=True)
        started = super().start()
        self._formatted = True
        return started

    @property
    def _details_path(self) -> Path:
        return self.directory / "details.json"

    def _command(self) -> list[str]:
        lib = fetch_minicluster()
        settings = {"dfs.permissions.enabled": "false"}
        return [
            java_executable(),
            f"-Xmx{self.heap}",
            "-XX:TieredStopAtLevel=1",
            "-Djava.awt.headless=true",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            f"-Dtest.build.data={self.directory / 'data'}",
            "-cp",
            str(lib / "*"),
            HADOOP_MAIN,
            "-nomr",
            *(() if self._formatted else ("-format",)),
            "-datanodes",
            str(self.datanodes),
            "-nnport",
            str(self.namenode_port),
            "-nnhttpport",
            str(self.http_port),
            "-writeConfig",
            str(self.config_path),
            "-writeDetails",
            str(self._details_path),
            *(arg for key, value in settings.items() for arg in ("-D", f"{key}={value}")),
        ]

    def _ready(self) -> bool:
        """The manager writes its details once the cluster is up; then the namenode must see every
        datanode live and be out of safe mode."""
        if not self._details_path.is_file():
            return False
        query = "Hadoop:service=NameNode,name=FSNamesystemState"
        beans = httpx.get(f"{self.webhdfs_url}/jmx", params={"qry": query}, timeout=5.0).json().get("beans")
        state = beans[0] if beans else {}
        if state.get("NumLiveDataNodes", 0) < self.datanodes or state.get("FSState") != "Operational":
            return False
        return httpx.get(f"{self.webhdfs_url}/webhdfs/v1/?op=GETFILESTATUS", timeout=5.0).status_code == 200

    def _ports(self) -> list[int]:
        return [self.namenode_port, self.http_port]


# --- S3 ----------------------------------------------------------------------------------------------------


class S3Server(_ServerProcess):
    """moto's S3-compatible server in its own process on a loopback port (state in memory).

    ``endpoint_url`` is what a client's endpoint (Confluent's ``store.url``) is set to; any credentials
    pass, `access_key`/`secret_key`/`region` are the ones the helpers use. Use as a context manager, or
    call `start` and `close`.
    """

    name = "moto"

    def __init__(
        self,
        *,
        access_key: str = "kconnect-access-key",
        secret_key: str = "kconnect-secret-key",
        region: str = "us-east-1",
        startup_timeout: float = 60.0,
    ) -> None:
        """The credentials and region are those the helpers and `environment` hand to clients."""
        super().__init__("kconnect-s3-", startup_timeout)
        self.access_key = access_key
        self.secret_key = secret_key
        self.region = region
        self.port = free_port()

    @property
    def endpoint_url(self) -> str:
        """Return ``http://127.0.0.1:<port>``, the S3 endpoint."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def environment(self) -> dict[str, str]:
        """Return the AWS environment variables that point an SDK (boto3, pyarrow) at this server."""
        return {
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": self.secret_key,
            "AWS_REGION": self.region,
            "AWS_DEFAULT_REGION": self.region,
            "AWS_ENDPOINT_URL_S3": self.endpoint_url,
            "AWS_EC2_METADATA_DISABLED": "true",
        }

    def client(self) -> Any:
        """Return a boto3 S3 client on this server."""
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            region_name=self.region,
        )

    def create_bucket(self, name: str) -> str:
        """Create bucket `name` (3-63 lower-case letters, digits, dots, hyphens); return `name`."""
        self.client().create_bucket(Bucket=name)
        return name

    def pyarrow_filesystem(self) -> Any:
        """Return a ``pyarrow.fs.S3FileSystem`` on this server; its paths are ``<bucket>/<key>``."""
        from pyarrow.fs import S3FileSystem

        return S3FileSystem(
            access_key=self.access_key,
            secret_key=self.secret_key,
            region=self.region,
            endpoint_override=self.endpoint_url,
            scheme="http",
        )

    def s3fs_options(self) -> dict[str, Any]:
        """Return the ``storage_options`` for fsspec's ``s3://`` (``s3fs.S3FileSystem(**options)``)."""
        return {
            "key": self.access_key,
            "secret": self.secret_key,
            "endpoint_url": self.endpoint_url,
            "client_kwargs": {"region_name": self.region},
        }

    def _command(self) -> list[str]:
        server = Path(sys.executable).parent / "moto_server"
        if not server.is_file():
            raise StorageServerError(f"{server} is missing: install 'moto[server]' (the test group has it)")
        return [str(server), "-H", "127.0.0.1", "-p", str(self.port)]

    def _ready(self) -> bool:
        return httpx.get(f"{self.endpoint_url}/moto-api/data.json", timeout=5.0).status_code == 200

    def _ports(self) -> list[int]:
        return [self.port]


def main() -> int:
    """``python -m tests.storage_servers``: fetch the minicluster and spark-avro now, as tox does before
    the tests, so no test's time limit pays for it."""
    print(fetch_minicluster())
    print(spark_avro_jar())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
