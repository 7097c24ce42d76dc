"""A real schema registry for tests: Apicurio Registry 3.0.9 serving Confluent's API (``/apis/ccompat/v7``).

`ApicurioRegistry` runs ``io.apicurio:apicurio-registry-app:3.0.9:tar.gz:all`` (a Quarkus app, fetched from
Maven Central with ``mvn`` once and unpacked under ``<repo>/.cache/apicurio-registry-3.0.9/``, or under
``$KCONNECT_CACHE`` like Kafka's jars) on Java 17, on a free loopback port, for one test session. Its
storage is Apicurio's ``sql`` storage on H2 in file mode in the registry's temporary folder, so `stop` and
`start` (or `restart`) keep every subject, version and id; `halt`/`resume` freeze and thaw the JVM
(SIGSTOP/SIGCONT), so clients' connections hang as on a stalled server. ``tls`` serves HTTPS with a PEM
key and certificate chain (`RegistryTls`, e.g. from ``tests/throwaway_ca.py``); client certificates
cannot be required (Quarkus's ``quarkus.http.ssl.client-auth`` is fixed when the app is built, to
none). ``users`` turns on HTTP basic authentication for ``/apis/*`` with Quarkus's embedded user list
and permission policy, in front of Apicurio (whose own authentication needs an OIDC server).

Start-up takes 5-8 s on two busy cores; with a class-data archive (AppCDS, `class_archive`, made once
per cache and JVM by a first run that takes ~15 s more) it takes 2-3 s.

How Apicurio's ccompat API differs from Confluent's Schema Registry (checked against 3.0.9):

- Ids are Apicurio's content ids (``apicurio.ccompat.legacy-id-mode.enabled=false``, the default): the
  same schema text registered under two subjects gets the same id, as in Confluent. Ids are not dense:
  numbers may be skipped.
- Schema text is stored and echoed verbatim; nothing is canonicalised. Confluent parses an Avro schema
  and stores its canonical form, so whitespace or key order never make a new version there. In Apicurio
  a whitespace variant under the same subject is a new version with a new id, and under another subject
  a new id; looking it up (``POST /subjects/{subject}``) answers 404 ``40403``. With
  ``canonical_hash=True`` (``apicurio.ccompat.use-canonical-hash``) a variant registered under the same
  subject returns the first one's id and text, but one under another subject still gets a new id.
  A converter that always sends the same text for the same schema sees no difference.
- Global compatibility defaults to ``NONE`` (Confluent: ``BACKWARD``); the ``schema_registry`` fixture
  sets ``BACKWARD`` at start-up, and the ``registry_compatibility`` fixture puts it back after a test.
  ``DELETE /config`` does not reset it. A subject's level can be set only once the subject has a
  version (before: 404 ``40401``; Confluent accepts it), and a subject's ``NONE`` means "no level of
  its own": the global level applies, so ``NONE`` on a subject does not let an incompatible schema
  in under a global ``BACKWARD`` (use the global ``NONE``). ``GET /config/{subject}`` answers
  ``NONE`` for a subject without a level of its own (Confluent: 404 ``40408``).
- Responses carry ``"schemaType": "AVRO"`` where Confluent omits it for Avro; the lookup answer
  (``POST /subjects/{subject}``) omits ``schemaType`` for every type.
- Protobuf: a ``.proto`` text and a base64 ``FileDescriptorProto`` (what confluent-kafka's Python
  serializer registers) are both accepted and each echoed as sent: ``?format=serialized`` is ignored, so
  a client asking for base64 gets ``.proto`` text back if that is what was registered (Confluent
  converts). confluent-kafka's Python ``ProtobufDeserializer`` asks for base64, so it cannot read a
  record whose schema was registered as ``.proto`` text here ("Wire format was corrupt"); it reads its
  own serializer's records. An empty schema string is accepted too (Confluent refuses it).
- Errors: an incompatible schema answers HTTP 409 with ``error_code`` 409 and a message naming the
  subject (``RuleViolationException: Incompatible artifact: <subject> [AVRO], ...``), as Confluent's 409;
  an invalid schema answers HTTP 422 with ``error_code`` 42201 and the message ``Failed to discover
  artifact type from content.`` (Confluent names the parse error); unknown subject 404/40401, unknown
  version 404/40402, unknown id 404/40403, as in Confluent. ``/mode`` is not served (404).
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import shutil
import signal
import ssl
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from kconnect_java.maven import fetch
from kconnect_testkit.broker import free_port, port_open
from kconnect_testkit.jars import cache_root, java_executable, locked, tail

APICURIO_VERSION = "3.0.9"
ARTIFACT = f"io.apicurio:apicurio-registry-app:{APICURIO_VERSION}:tar.gz:all"
RUNNER_JAR = f"apicurio-registry-app-{APICURIO_VERSION}-runner.jar"
CCOMPAT_PATH = "/apis/ccompat/v7"
CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"

logger = logging.getLogger(__name__)


class RegistryError(RuntimeError):
    """Fetching or starting the registry failed; the message says where to look."""


@dataclass(frozen=True)
class RegistryTls:
    """The HTTPS listener's PEM files: the server's key and certificate chain, and the CA clients trust."""

    key: Path
    """The private key, unencrypted PKCS#8 PEM."""
    certificate: Path
    """The server certificate followed by its CA's."""
    ca: Path
    """The CA certificate clients verify the server with (``schema.registry.ssl.truststore.location``)."""


def cache_dir() -> Path:
    """Return the folder that holds (or will hold) the unpacked registry, next to Kafka's jars."""
    return cache_root() / f"apicurio-registry-{APICURIO_VERSION}"


def fetch_registry() -> Path:
    """Fetch the registry's archive with Maven and unpack it into the cache once; return the runner jar."""
    return fetch([ARTIFACT], cache_dir() / "app", transitive=False, unpack=True) / RUNNER_JAR


def class_archive(jar: Path) -> Path | None:
    """Return the registry's class-data archive for this JVM (AppCDS), made once by a first run that
    exercises the API; None if it could not be made. It halves start-up (about 6 s to 3 s on 2 cores).

    The archive is named after the ``java`` binary and its modification time: the JVM ignores an
    archive made by another build, so a Java upgrade makes a new one.
    """
    java = Path(java_executable()).resolve()
    key = hashlib.sha1(f"{java}:{java.stat().st_mtime_ns}".encode()).hexdigest()[:12]
    archive = jar.parent.parent / f"classes-{key}.jsa"
    failed = archive.with_suffix(".failed")  # tried once: do not spend the first run again
    if archive.is_file() or failed.is_file():
        return archive if archive.is_file() else None
    with locked(jar.parent.parent / ".archive.lock"):
        if archive.is_file() or failed.is_file():
            return archive if archive.is_file() else None
        partial = archive.with_suffix(".partial")
        maker = ApicurioRegistry(dump_classes=partial)
        try:
            maker.start()
            _exercise(maker)
        except RegistryError as exc:
            logger.warning("could not make the registry's class archive: %s", exc)
        finally:
            log = tail(maker.log_path, 40)  # close() deletes it
            maker.close(timeout=120.0)
        if not partial.is_file():
            failed.write_text(f"the first run made no archive; its log ended:\n{log}\n", encoding="utf-8")
            return None
        partial.rename(archive)
        return archive


def _exercise(registry: ApicurioRegistry) -> None:
    """Send the requests converters send, so their classes go into the class archive."""
    avro = '{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}'
    requests = [
        ("/subjects/a/versions", {"schema": avro}),
        ("/subjects/a", {"schema": avro}),
        ("/compatibility/subjects/a/versions/latest", {"schema": avro}),
        ("/subjects/p/versions", {"schemaType": "PROTOBUF", "schema": 'syntax = "proto3"; message M {}'}),
        ("/subjects/j/versions", {"schemaType": "JSON", "schema": '{"type":"object"}'}),
    ]
    with registry.client() as http:
        for path, body in requests:
            http.post(path, json=body, headers={"Content-Type": CONTENT_TYPE})
        http.get("/schemas/ids/1")
        http.get("/subjects/a/versions/latest")
        registry.set_compatibility("BACKWARD")


class ApicurioRegistry:
    """One Apicurio Registry process on a loopback port, its data kept across `stop` and `start`.

    `url` is the Confluent-compatible base URL, the value of ``schema.registry.url``. Use as a context
    manager, or call `start` and `close` (which also deletes the data folder).
    """

    def __init__(
        self,
        *,
        tls: RegistryTls | None = None,
        users: dict[str, str] | None = None,
        canonical_hash: bool = False,
        heap: str = "384m",
        startup_timeout: float = 120.0,
        dump_classes: Path | None = None,
    ) -> None:
        """`tls` serves HTTPS instead of HTTP; `users` (name: password) requires HTTP basic auth;
        `canonical_hash` sets ``apicurio.ccompat.use-canonical-hash`` (see the module docstring);
        `dump_classes` is where `class_archive`'s first run writes the archive at exit."""
        self.dump_classes = dump_classes
        self._class_archive: Path | None = None
        self.tls = tls
        self.users = dict(users or {})
        self.canonical_hash = canonical_hash
        self.heap = heap
        self.startup_timeout = startup_timeout
        self.directory = Path(tempfile.mkdtemp(prefix="kconnect-registry-"))
        self.port = free_port()
        self.startup_seconds = 0.0
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """Return ``http(s)://127.0.0.1:<port>``, the server's root."""
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """Return the Confluent-compatible API's base URL (``schema.registry.url``)."""
        return self.base_url + CCOMPAT_PATH

    @property
    def log_path(self) -> Path:
        """Return the file that receives the registry's console log (HTTP access lines included)."""
        return self.directory / "registry.log"

    @property
    def running(self) -> bool:
        """Return whether the registry's JVM is alive (a halted one counts as alive)."""
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> ApicurioRegistry:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, timeout: float | None = None) -> ApicurioRegistry:
        """Start the registry (on the same port and data as before, if started before); return once
        ``GET <url>/subjects`` answers 200. The first start fetches the registry if needed."""
        if self.running:
            return self
        jar = fetch_registry()
        if self.dump_classes is None:
            self._class_archive = class_archive(jar)
        started = time.monotonic()
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                self._command(jar),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.directory,
            )
        atexit.register(self.close)
        try:
            self._wait_ready(timeout or self.startup_timeout)
        except RegistryError:
            self._terminate()
            raise
        self.startup_seconds = time.monotonic() - started
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the registry (SIGTERM, SIGKILL after `timeout`); its data stays for the next `start`.

        On return the process is gone and the port refuses connections.
        """
        self._terminate(timeout)

    def restart(self) -> ApicurioRegistry:
        """`stop`, then `start` on the same port with the same schemas and ids."""
        self.stop()
        return self.start()

    def halt(self) -> None:
        """SIGSTOP the JVM: connections are accepted by the kernel but never answered."""
        if not self.running:
            raise RegistryError("the registry is not running")
        assert self._proc is not None
        self._proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT a halted JVM: it answers the requests that waited."""
        if self.running:
            assert self._proc is not None
            self._proc.send_signal(signal.SIGCONT)

    def close(self, timeout: float = 30.0) -> None:
        """Stop the registry and delete its data folder."""
        atexit.unregister(self.close)
        self._terminate(timeout)
        shutil.rmtree(self.directory, ignore_errors=True)

    def client(self, **kwargs: Any) -> httpx.Client:
        """An httpx client on `url` (trusting `tls`'s chain, with the first user's credentials)."""
        if self.tls is not None:
            kwargs.setdefault("verify", _ssl_context(self.tls))
        if self.users:
            kwargs.setdefault("auth", next(iter(self.users.items())))
        kwargs.setdefault("timeout", 30.0)
        return httpx.Client(base_url=self.url, **kwargs)

    def set_compatibility(self, level: str, subject: str | None = None) -> None:
        """Set the global (or `subject`'s) compatibility level through ``PUT /config[/subject]``."""
        path = "/config" if subject is None else f"/config/{subject}"
        with self.client() as http:
            response = http.put(path, json={"compatibility": level}, headers={"Content-Type": CONTENT_TYPE})
        if response.status_code != 200:
            raise RegistryError(f"PUT {path} answered {response.status_code}: {response.text}")

    # -- steps of start() ------------------------------------------------------------------------------------

    def _command(self, jar: Path) -> list[str]:
        properties = {
            "quarkus.http.host": "127.0.0.1",
            "quarkus.management.enabled": "false",
            "quarkus.http.port": str(self.port),
            "apicurio.storage.kind": "sql",
            "apicurio.storage.sql.kind": "h2",
            "apicurio.datasource.url": f"jdbc:h2:file:{self.directory / 'registry'}",
            "apicurio.ccompat.use-canonical-hash": str(self.canonical_hash).lower(),
        }
        if self.tls is not None:
            properties |= {
                "quarkus.http.ssl-port": str(self.port),
                "quarkus.http.insecure-requests": "disabled",
                "quarkus.http.ssl.certificate.files": str(self.tls.certificate),
                "quarkus.http.ssl.certificate.key-files": str(self.tls.key),
            }
        if self.users:
            properties |= {
                "quarkus.http.auth.basic": "true",
                "quarkus.security.users.embedded.enabled": "true",
                "quarkus.security.users.embedded.plain-text": "true",
                "quarkus.http.auth.permission.apis.paths": "/apis/*",
                "quarkus.http.auth.permission.apis.policy": "authenticated",
            }
            properties |= {f"quarkus.security.users.embedded.users.{u}": p for u, p in self.users.items()}
        if self.dump_classes is not None:
            classes = [f"-XX:ArchiveClassesAtExit={self.dump_classes}"]
        elif self._class_archive is not None:
            classes = [f"-XX:SharedArchiveFile={self._class_archive}"]
        else:
            classes = []
        return [
            java_executable(),
            f"-Xmx{self.heap}",
            "-XX:TieredStopAtLevel=1",
            *classes,
            "-Djava.awt.headless=true",
            *(f"-D{key}={value}" for key, value in properties.items()),
            "-jar",
            str(jar),
        ]

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last = "no answer"
        with self.client(timeout=5.0) as http:
            while time.monotonic() < deadline:
                assert self._proc is not None
                if self._proc.poll() is not None:
                    raise self._error(f"the registry's JVM exited with code {self._proc.returncode}")
                try:
                    response = http.get("/subjects")
                except httpx.HTTPError as exc:
                    last = repr(exc)
                else:
                    if response.status_code == 200:
                        return
                    last = f"{response.status_code} {response.text[:200]}"
                time.sleep(0.2)
        raise self._error(
            f"the registry did not answer GET {self.url}/subjects within {timeout:.0f} s ({last})"
        )

    def _terminate(self, timeout: float = 30.0) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGCONT)  # a halted JVM would not act on SIGTERM
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        _wait_refused(self.port)

    def _error(self, what: str) -> RegistryError:
        return RegistryError(
            f"{what}; log: {self.log_path}\n--- its last lines ---\n" + tail(self.log_path, 40)
        )


def _ssl_context(tls: RegistryTls) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(tls.ca))


def _wait_refused(port: int, timeout: float = 10.0) -> None:
    """Wait until nothing accepts connections on `port` (the JVM has released it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and port_open(port):
        time.sleep(0.05)


def main() -> int:
    """``python -m tests.schema_registry_server``: fetch the registry and make its class archive now,
    as tox does before the tests, so no test's time limit pays for it."""
    jar = fetch_registry()
    print(class_archive(jar) or jar)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
