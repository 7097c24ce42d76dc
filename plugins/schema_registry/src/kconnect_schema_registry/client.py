"""The registry client the converters share: confluent-kafka's client, its errors in Connect's words.

confluent-kafka's client speaks Confluent's REST API (Confluent Schema Registry, Apicurio's
``/apis/ccompat/v7``, Karapace), fails over between the URLs of ``schema.registry.url``, retries
network errors and 408/429/5xx answers with exponential backoff, and caches ids and schemas.
`RegistryClient` configures it from `RegistrySettings` and turns its failures into the errors the
task loops handle: a registry that cannot be reached (after the retries) is a `RetriableError`,
retried for ``errors.retry.timeout``; a schema the registry refuses is a `DataError` naming the
subject, the version it conflicts with and the registry, which ``errors.tolerance`` and the dead
letter queue handle like any conversion error.
"""

from __future__ import annotations

import contextlib
import os
import ssl
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType

import httpx
from confluent_kafka.schema_registry import (
    RegisteredSchema,
    SchemaReference,
    SchemaRegistryClient,
    SchemaRegistryError,
)
from confluent_kafka.schema_registry import Schema as RegistrySchema
from kconnect.errors import DataError, RetriableError

from kconnect_schema_registry.config import RegistrySettings

_client_httpx: ModuleType
try:
    # Recent confluent-kafka (2.16 here) talks through httpx2 (httpx's successor) when installed, else httpx:
    # a refused connection is then httpx2's ConnectError, which is no httpx.TransportError.
    from confluent_kafka.schema_registry.common._httpx_compat import httpx as _client_httpx
except ImportError:
    _client_httpx = httpx

#: What the registry client raises when the registry cannot be reached (refused, timed out, reset).
TRANSPORT_ERRORS: tuple[type[Exception], ...] = (httpx.TransportError, _client_httpx.TransportError)


def _tls_refused(error: BaseException) -> bool:
    """Whether a transport error comes from a TLS certificate check (an `ssl.SSLCertVerificationError`)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


_NO_ANSWER: tuple[type[Exception], ...] = (SchemaRegistryError, *TRANSPORT_ERRORS)

__all__ = ["RegisteredSchema", "RegistryClient", "RegistrySchema", "SchemaReference", "SchemaText"]

_RETRIABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class SchemaText:
    """A schema as the registry holds it: its text, its type (AVRO, PROTOBUF, JSON) and references."""

    text: str
    schema_type: str
    references: tuple[SchemaReference, ...] = ()

    def registry_schema(self) -> RegistrySchema:
        """The same schema as confluent-kafka's `Schema`."""
        return RegistrySchema(self.text, self.schema_type, list(self.references))


def _pem_file(directory: str, name: str, text: str) -> str:
    path = os.path.join(directory, name)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    return path


class RegistryClient:
    """One converter's connection to the registry (thread-safe as confluent-kafka's client is)."""

    def __init__(self, settings: RegistrySettings) -> None:
        self.settings = settings
        self.urls = ",".join(settings.urls)
        self._pem_dir: tempfile.TemporaryDirectory[str] | None = None
        self._client = SchemaRegistryClient(self._client_config(settings))

    def _client_config(self, settings: RegistrySettings) -> dict[str, object]:
        conf: dict[str, object] = {
            "url": self.urls,
            "max.retries": settings.max_retries,
            "retries.wait.ms": settings.retries_wait_ms,
            "retries.max.wait.ms": settings.retries_max_wait_ms,
            "timeout": settings.request_timeout_ms / 1000,
            "cache.capacity": settings.cache_capacity,
        }
        if settings.latest_cache_ttl_sec >= 0:
            conf["cache.latest.ttl.sec"] = settings.latest_cache_ttl_sec
        if settings.user_info:
            conf["basic.auth.user.info"] = settings.user_info
        ca, cert, key = settings.truststore_location, settings.keystore_location, settings.keystore_location
        if settings.truststore_certificates or settings.keystore_key:
            # confluent-kafka's client reads PEM from files only: inline PEM goes to owner-only files.
            self._pem_dir = tempfile.TemporaryDirectory(prefix="kconnect-registry-tls-")
            if settings.truststore_certificates:
                ca = _pem_file(self._pem_dir.name, "ca.pem", settings.truststore_certificates)
            if settings.keystore_key:
                key = _pem_file(self._pem_dir.name, "key.pem", settings.keystore_key)
                cert = _pem_file(self._pem_dir.name, "chain.pem", settings.keystore_certificate_chain)
        if ca:
            conf["ssl.ca.location"] = ca
        if cert:
            conf["ssl.certificate.location"] = cert
            conf["ssl.key.location"] = key
            if settings.key_password:
                conf["ssl.key.password"] = settings.key_password
        return conf

    def close(self) -> None:
        """Close the HTTP connections and remove inline PEM files."""
        self._client.close()
        if self._pem_dir is not None:
            self._pem_dir.cleanup()
            self._pem_dir = None

    @contextlib.contextmanager
    def _calling(self, action: str, subject: str | None) -> Iterator[None]:
        where = f"subject '{subject}' " if subject else ""
        try:
            yield
        except SchemaRegistryError as e:
            detail = f"{e.error_message} (HTTP {e.http_status_code}, error code {e.error_code})"
            if e.http_status_code in _RETRIABLE_STATUS:
                raise RetriableError(
                    f"Schema Registry {self.urls} failed while {action} {where}: {detail}"
                ) from None
            if e.http_status_code == 409 and subject:
                raise DataError(
                    f"Schema being registered is incompatible with {self._latest_version_text(subject)} "
                    f"of subject '{subject}' on Schema Registry {self.urls}: {detail}"
                ) from None
            raise DataError(f"Schema Registry {self.urls} refused {action} {where}: {detail}") from None
        except TRANSPORT_ERRORS as e:
            if _tls_refused(e):
                # A certificate the trust store does not accept will not be accepted on a retry.
                raise DataError(
                    f"Schema Registry {self.urls} failed the TLS handshake while {action} {where}: {e} "
                    "(check schema.registry.ssl.truststore.*)"
                ) from None
            raise RetriableError(
                f"Schema Registry {self.urls} unreachable while {action} {where}: "
                f"{type(e).__name__}: {e or 'no answer'}"
            ) from None

    def _latest_version_text(self, subject: str) -> str:
        try:
            return f"version {self._client.get_latest_version(subject).version}"
        except _NO_ANSWER:
            return "an earlier version"

    def id_for(self, subject: str, schema: SchemaText) -> int:
        """The id of `schema` in `subject`: registered when ``auto.register.schemas``, else looked up."""
        registry_schema = schema.registry_schema()
        if self.settings.auto_register:
            with self._calling("registering a schema under", subject):
                return self._client.register_schema(subject, registry_schema, self.settings.normalize)
        with self._calling("looking up a schema (auto.register.schemas=false) under", subject):
            found = self._client.lookup_schema(subject, registry_schema, self.settings.normalize)
        if found.schema_id is None:
            raise DataError(f"Schema Registry {self.urls} gave no id for the schema of subject '{subject}'")
        return int(found.schema_id)

    def version_of(self, subject: str, schema: SchemaText) -> int:
        """The version `schema` has in `subject` (Confluent's deserializers' ``getVersion``)."""
        with self._calling("looking up the version of a schema in", subject):
            found = self._client.lookup_schema(subject, schema.registry_schema(), False)
        if found.version is None:
            raise DataError(
                f"Schema Registry {self.urls} gave no version for the schema of subject '{subject}'"
            )
        return int(found.version)

    def latest(self, subject: str) -> RegisteredSchema:
        """The latest version of `subject` (``use.latest.version``), cached per ``latest.cache.ttl.sec``."""
        with self._calling("reading the latest version of", subject):
            return self._client.get_latest_version(subject)

    def schema_by_id(self, schema_id: int) -> SchemaText:
        """The schema registered under `schema_id` (cached: ids never change meaning)."""
        with self._calling(f"reading schema id {schema_id}", None):
            found = self._client.get_schema(schema_id)
        return SchemaText(found.schema_str or "", found.schema_type or "AVRO", tuple(found.references or ()))

    def version_schema(self, subject: str, version: int) -> SchemaText:
        """The schema of `subject` at `version` (references of Protobuf and JSON Schema schemas)."""
        with self._calling(f"reading version {version} of", subject):
            found = self._client.get_version(subject, version)
        schema = found.schema
        if schema is None:
            raise DataError(f"Schema Registry {self.urls} has no schema for version {version} of '{subject}'")
        return SchemaText(
            schema.schema_str or "", schema.schema_type or "AVRO", tuple(schema.references or ())
        )

    def is_compatible(self, subject: str, schemas: Sequence[SchemaText]) -> bool:
        """Whether every schema in `schemas` is compatible with the latest version of `subject`."""
        with self._calling("testing compatibility with", subject):
            return all(self._client.test_compatibility(subject, s.registry_schema()) for s in schemas)
