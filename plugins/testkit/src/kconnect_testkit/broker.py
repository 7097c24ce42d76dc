"""A real single-node Apache Kafka broker (KRaft) on loopback ports, from Kafka's own jars (`jars`).

`KafkaBroker` can also open a SASL_PLAINTEXT listener with SCRAM users (``scram_users``, created by
the storage format) and an SSL listener on a PEM key store (``tls``), for tests of secured clients,
and run Kafka's StandardAuthorizer (``authorizer``) so a test can grant and deny with ``acls``.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import concurrent.futures
import contextlib
import logging
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from kconnect_testkit.jars import (
    KAFKA_VERSION,
    KafkaBrokerError,
    fetch_jars,
    java_connect_classpath,
    java_executable,
    tail,
)

logger = logging.getLogger(__name__)

_STORAGE_TOOL = "kafka.tools.StorageTool"
_ACL_COMMAND = "org.apache.kafka.tools.AclCommand"

_SERVER_PROPERTIES = """\
# Written by kconnect_testkit: one KRaft node acting as broker and controller.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:{controller_port}
listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}{extra_listeners}
advertised.listeners=PLAINTEXT://127.0.0.1:{port}{extra_advertised}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT{extra_protocols}
log.dirs={log_dirs}
num.partitions=1
auto.create.topics.enable=true
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions={offsets_partitions}
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms={initial_rebalance_delay_ms}
{security}"""

_SCRAM_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
_SCRAM_LISTENER = """\
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_plaintext.sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=\
org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=\
org.apache.kafka.common.security.scram.ScramLoginModule required;
"""
_AUTHORIZER = """\
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=true
super.users=User:ANONYMOUS
"""
_SSL_LISTENER = """\
listener.name.ssl.ssl.keystore.type=PEM
listener.name.ssl.ssl.keystore.location={keystore}
listener.name.ssl.ssl.truststore.type=PEM
listener.name.ssl.ssl.truststore.location={truststore}
listener.name.ssl.ssl.client.auth={client_auth}
"""

_LOG4J2_FILE = """\
# Written by kconnect_testkit: everything goes to one file, nothing to the console.
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log_path}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = {level}
rootLogger.appenderRef.file.ref = file
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.statechange.name = state.change.logger
logger.statechange.level = WARN
"""


@dataclass(frozen=True)
class BrokerTls:
    """The SSL listener's PEM stores: the broker's key and certificate chain in one file (Kafka's PEM
    key store), and the CA certificates it trusts for client certificates."""

    keystore: Path
    truststore: Path
    client_auth: str = "required"
    """Kafka's ``ssl.client.auth``: ``required``, ``requested`` or ``none``."""


class KafkaBroker:
    """One Kafka broker in KRaft combined mode (broker and controller in one JVM) on loopback ports.

    Use as a context manager, or call ``start()`` and ``stop()``. A data folder created here is deleted by
    ``stop()``; one passed in is kept, and its storage is reused if it was formatted before.
    """

    def __init__(
        self,
        *,
        port: int | None = None,
        data_dir: str | Path | None = None,
        heap: str = "512m",
        log_level: str = "INFO",
        offsets_partitions: int = 1,
        startup_timeout: float = 60.0,
        initial_rebalance_delay_ms: int = 0,
        scram_users: Mapping[str, str] | None = None,
        tls: BrokerTls | None = None,
        authorizer: bool = False,
    ) -> None:
        """`scram_users` (name: password) opens a SASL_PLAINTEXT listener with SCRAM-SHA-256 and
        SCRAM-SHA-512 credentials for them; `tls` opens an SSL listener. Both are off by default.
        `authorizer` runs Kafka's StandardAuthorizer: a resource without ACLs stays open to everyone,
        the PLAINTEXT listener's ANONYMOUS principal is a super user (the broker's own requests and
        `acls` use it), and ACLs added with `acls` bind the other listeners' users."""
        self.scram_users = dict(scram_users or {})
        self.tls = tls
        self.authorizer = authorizer
        self.sasl_port = 0
        self.ssl_port = 0
        self._requested_port = port
        self._owns_data = data_dir is None
        self.data_dir = Path(data_dir) if data_dir else Path(tempfile.mkdtemp(prefix="kconnect-kafka-"))
        self.heap = heap
        self.log_level = log_level
        self.offsets_partitions = offsets_partitions
        self.initial_rebalance_delay_ms = initial_rebalance_delay_ms
        self.startup_timeout = startup_timeout
        self.port = 0
        self.controller_port = 0
        self.cluster_id = ""
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap_servers(self) -> str:
        """Return ``host:port`` of the PLAINTEXT listener, for any Kafka client."""
        return f"127.0.0.1:{self.port}"

    @property
    def sasl_bootstrap_servers(self) -> str:
        """Return ``host:port`` of the SASL_PLAINTEXT (SCRAM) listener; only with ``scram_users``."""
        if not self.scram_users:
            raise KafkaBrokerError("this broker has no SASL listener (no scram_users)")
        return f"127.0.0.1:{self.sasl_port}"

    @property
    def ssl_bootstrap_servers(self) -> str:
        """Return ``host:port`` of the SSL listener; only with ``tls``."""
        if self.tls is None:
            raise KafkaBrokerError("this broker has no SSL listener (no tls)")
        return f"127.0.0.1:{self.ssl_port}"

    @property
    def log_path(self) -> Path:
        """Return the broker's log4j log file."""
        return self.data_dir / "logs" / "server.log"

    @property
    def jvm_log_path(self) -> Path:
        """Return the file that receives the JVM's own stdout and stderr (crashes, log4j status)."""
        return self.data_dir / "logs" / "jvm.log"

    @property
    def running(self) -> bool:
        """Return whether the broker JVM is alive."""
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> KafkaBroker:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> KafkaBroker:
        """Start the broker and return once it serves metadata requests.

        Steps: pick free ports; write ``server.properties`` and the log4j2 config; format storage with a
        random cluster id (skipped if the data folder is already formatted); start the JVM; wait until
        ``describe_cluster`` lists this broker. Retries with fresh ports if an auto-picked port was taken.
        """
        if self.running:
            return self
        fetch_jars()
        attempts = 1 if self._requested_port else 3
        for attempt in range(1, attempts + 1):
            self.port = self._requested_port or free_port()
            self.controller_port = free_port(exclude=self.port)
            taken = {self.port, self.controller_port}
            if self.scram_users:
                self.sasl_port = free_port(exclude=taken)
                taken.add(self.sasl_port)
            if self.tls is not None:
                self.ssl_port = free_port(exclude=taken)
            self._write_config()
            self._format_storage()
            self._launch()
            try:
                self._wait_ready()
            except KafkaBrokerError:
                self._terminate()
                if attempt < attempts and "Address already in use" in tail(self.log_path, 200):
                    logger.warning("a port of %s was taken; retrying", self._ports())
                    continue
                raise
            atexit.register(self.stop)
            logger.info("Kafka %s ready at %s (log %s)", KAFKA_VERSION, self.bootstrap_servers, self.log_path)
            return self
        raise AssertionError("unreachable")

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the broker: SIGTERM for a controlled shutdown, then SIGKILL after ``timeout`` seconds."""
        atexit.unregister(self.stop)
        self._terminate(timeout)
        if self._owns_data:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def freeze(self) -> None:
        """SIGSTOP the broker JVM: to its clients it looks like a long GC pause or a network partition."""
        if self._proc is None or self._proc.poll() is not None:
            raise KafkaBrokerError("the broker is not running")
        self._proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        """SIGCONT a frozen broker JVM: it carries on where it stopped."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGCONT)

    def acls(self, *arguments: str) -> str:
        """Run Kafka's ``kafka-acls`` tool on the PLAINTEXT listener (as the super user) with `arguments`,
        e.g. ``("--add", "--deny-principal", "User:connect", "--operation", "Write", "--topic", "t")``;
        returns its output, KafkaBrokerError if it fails. Needs ``authorizer``."""
        if not self.authorizer:
            raise KafkaBrokerError("this broker runs no authorizer (authorizer=False)")
        command = self._java_command(_ACL_COMMAND, "--bootstrap-server", self.bootstrap_servers, *arguments)
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise KafkaBrokerError(f"kafka-acls {' '.join(arguments)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout

    def restart(self, timeout: float = 30.0) -> None:
        """Stop the broker process and start it again on the same ports and data folder."""
        self.thaw()
        self._terminate(timeout)
        self._launch()
        try:
            self._wait_ready()
        except KafkaBrokerError:
            self._terminate()
            raise

    def wait(self) -> int:
        """Block until the broker JVM exits and return its exit code; the CLI's ``start`` calls this."""
        if self._proc is None:
            raise KafkaBrokerError("the broker was never started")
        return self._proc.wait()

    # -- steps of start() ------------------------------------------------------------------------------------

    def _write_config(self) -> None:
        (self.data_dir / "logs").mkdir(parents=True, exist_ok=True)
        (self.data_dir / "server.properties").write_text(
            _SERVER_PROPERTIES.format(
                port=self.port,
                controller_port=self.controller_port,
                log_dirs=self.data_dir / "kafka-logs",
                offsets_partitions=self.offsets_partitions,
                initial_rebalance_delay_ms=self.initial_rebalance_delay_ms,
                **self._security_properties(),
            ),
            encoding="utf-8",
        )
        (self.data_dir / "log4j2.properties").write_text(
            _LOG4J2_FILE.format(log_path=self.log_path, level=self.log_level), encoding="utf-8"
        )

    def _ports(self) -> list[int]:
        return [p for p in (self.port, self.controller_port, self.sasl_port, self.ssl_port) if p]

    def _security_properties(self) -> dict[str, str]:
        """The extra listeners and their settings, as placeholders of ``_SERVER_PROPERTIES``."""
        listeners, protocols, security = "", "", ""
        if self.scram_users:
            listeners += f",SASL_PLAINTEXT://127.0.0.1:{self.sasl_port}"
            protocols += ",SASL_PLAINTEXT:SASL_PLAINTEXT"
            security += _SCRAM_LISTENER
        if self.tls is not None:
            listeners += f",SSL://127.0.0.1:{self.ssl_port}"
            protocols += ",SSL:SSL"
            security += _SSL_LISTENER.format(
                keystore=self.tls.keystore, truststore=self.tls.truststore, client_auth=self.tls.client_auth
            )
        if self.authorizer:
            security += _AUTHORIZER
        return {
            "extra_listeners": listeners,
            "extra_advertised": listeners,
            "extra_protocols": protocols,
            "security": security,
        }

    def _java_command(self, main_class: str, *args: str) -> list[str]:
        return [
            java_executable(),
            f"-Xmx{self.heap}",
            "-Djava.awt.headless=true",
            f"-Dlog4j2.configurationFile={self.data_dir / 'log4j2.properties'}",
            "-cp",
            java_connect_classpath(fetch=False),
            main_class,
            *args,
        ]

    def _format_storage(self) -> None:
        meta = self.data_dir / "kafka-logs" / "meta.properties"
        if meta.is_file():
            self.cluster_id = _read_properties(meta).get("cluster.id", "")
            if self.cluster_id:
                return
        self.cluster_id = _random_cluster_id()
        properties = str(self.data_dir / "server.properties")
        command = self._java_command(_STORAGE_TOOL, "format", "-t", self.cluster_id, "-c", properties)
        for name, password in self.scram_users.items():
            for mechanism in _SCRAM_MECHANISMS:
                command += ["--add-scram", f"{mechanism}=[name={name},password={password}]"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise KafkaBrokerError(
                f"formatting Kafka storage in {self.data_dir / 'kafka-logs'} failed "
                f"(exit {done.returncode}):\n{done.stdout}{done.stderr}"
            )

    def _launch(self) -> None:
        command = self._java_command("kafka.Kafka", str(self.data_dir / "server.properties"))
        with self.jvm_log_path.open("ab") as jvm_log:
            self._proc = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=jvm_log, stderr=subprocess.STDOUT
            )
        logger.debug("started Kafka pid %d: %s", self._proc.pid, " ".join(command))

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        last_error = "port never accepted a connection"
        while time.monotonic() < deadline:
            assert self._proc is not None
            if self._proc.poll() is not None:
                raise self._error(f"the Kafka JVM exited with code {self._proc.returncode} during start-up")
            if port_open(self.port):
                try:
                    cluster = _describe_cluster(self.bootstrap_servers, timeout=5.0)
                except Exception as exc:  # any client error means "not ready yet"
                    last_error = repr(exc)
                else:
                    if cluster.get("brokers") and cluster.get("cluster_id") == self.cluster_id:
                        return
                    last_error = f"describe_cluster answered {cluster!r}"
            time.sleep(0.2)
        raise self._error(f"Kafka was not ready within {self.startup_timeout:.0f} s ({last_error})")

    def _terminate(self, timeout: float = 30.0) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGCONT)  # a frozen JVM would not act on SIGTERM
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            logger.warning("Kafka pid %d ignored SIGTERM for %.0f s; killing it", proc.pid, timeout)
            proc.kill()
            proc.wait()

    def _error(self, what: str) -> KafkaBrokerError:
        return KafkaBrokerError(
            f"{what}; broker log: {self.log_path}, JVM output: {self.jvm_log_path}\n"
            f"--- last lines of {self.log_path.name} ---\n{tail(self.log_path)}"
        )


def free_port(exclude: int | set[int] = 0) -> int:
    """Return a free loopback TCP port, not one of `exclude`."""
    excluded = {exclude} if isinstance(exclude, int) else exclude
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
        if port not in excluded:
            return port


def port_open(port: int) -> bool:
    """Return whether something accepts connections on loopback `port`."""
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True
    return False


def _random_cluster_id() -> str:
    """Return a cluster id the way Kafka's ``Uuid.randomUuid()`` prints one (22 chars, no leading dash)."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode("ascii").rstrip("=")
        if not text.startswith("-"):
            return text


def _read_properties(path: Path) -> dict[str, str]:
    result: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#") and "=" in line:
            key, value = line.split("=", 1)
            result[key.strip()] = value.strip()
    return result


def _describe_cluster(bootstrap: str, timeout: float) -> dict[str, Any]:
    """Run aiokafka's ``describe_cluster`` on a private event loop, so callers inside a loop are safe too."""
    from aiokafka.admin import AIOKafkaAdminClient

    async def describe() -> dict[str, Any]:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=int(timeout * 1000))
        await admin.start()
        try:
            return await asyncio.wait_for(admin.describe_cluster(), timeout)
        finally:
            await admin.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, describe()).result(timeout + 5)
