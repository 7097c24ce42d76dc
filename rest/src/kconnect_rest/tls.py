"""TLS for the REST API: the https listeners' SSL contexts, and the one workers use to call each other.

Kafka Connect configures an https listener from the keys prefixed ``listeners.https.`` (for example
``listeners.https.ssl.keystore.location``); when no key has that prefix it uses the worker's own
``ssl.*`` keys instead, all or nothing (Kafka's ``SSLUtils`` with ``valuesWithPrefixAllOrNothing``).
`RestTlsSettings.from_props` makes that choice; `server_context` builds the listeners' context and
`client_context` the one this worker's forwarding and internal requests use for https URLs
(Kafka's ``createServerSideSslContextFactory`` / ``createClientSideSslContextFactory``).

Python's ``ssl`` module reads PEM, so key and trust stores must be ``PEM`` (Kafka's PEM keys:
``ssl.keystore.location`` naming one file with the private key and its certificate chain, or
``ssl.keystore.key`` with ``ssl.keystore.certificate.chain``; ``ssl.truststore.location`` or
``ssl.truststore.certificates``); JKS and PKCS12 stores are a start-up error naming the key.
Every problem is a ConfigFileError naming the worker file and the key.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kconnect.worker_config import ConfigFileError, WorkerConfig

from kconnect_rest.pem import load_cert_chain, pem_blocks

log = logging.getLogger(__name__)

HTTPS_PREFIX = "listeners.https."
"""The prefix of the https listeners' own SSL keys (Kafka's ``listeners.https.``)."""

PEM = "PEM"

_SUPPORTED_KEYS = frozenset(
    {
        "ssl.protocol",
        "ssl.enabled.protocols",
        "ssl.keystore.type",
        "ssl.keystore.location",
        "ssl.keystore.password",
        "ssl.keystore.key",
        "ssl.keystore.certificate.chain",
        "ssl.key.password",
        "ssl.truststore.type",
        "ssl.truststore.location",
        "ssl.truststore.password",
        "ssl.truststore.certificates",
        "ssl.endpoint.identification.algorithm",
        "ssl.client.auth",
    }
)

JAVA_ONLY_KEYS = {
    "ssl.provider": "OpenSSL, through Python's ssl module, is the TLS provider",
    "ssl.keymanager.algorithm": "OpenSSL picks the certificate from the PEM key store",
    "ssl.trustmanager.algorithm": "OpenSSL verifies peers with the PEM trust store",
    "ssl.secure.random.implementation": "OpenSSL seeds its own random generator",
}
"""Keys naming Java security classes: accepted, with a log line, and without effect."""

REFUSED_KEYS = {
    "ssl.cipher.suites": "Python's ssl module takes OpenSSL cipher names, not Java's, and cannot "
    "choose TLSv1.3 suites; leave it unset for OpenSSL's defaults",
    "ssl.engine.factory.class": "it names a Java class",
}
"""Keys kconnect cannot honour: setting one is a start-up error with this reason."""

SSL_KEYS = _SUPPORTED_KEYS | JAVA_ONLY_KEYS.keys() | REFUSED_KEYS.keys()
"""Every SSL key the REST listeners read (Kafka's SslConfigs a worker accepts, and ssl.client.auth)."""

_TLS_VERSIONS = {
    "TLSv1": ssl.TLSVersion.TLSv1,
    "TLSv1.1": ssl.TLSVersion.TLSv1_1,
    "TLSv1.2": ssl.TLSVersion.TLSv1_2,
    "TLSv1.3": ssl.TLSVersion.TLSv1_3,
}
_CLIENT_AUTH = {"none": ssl.CERT_NONE, "requested": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}


@dataclass(frozen=True)
class RestTlsSettings:
    """The SSL keys of the https listeners: ``listeners.https.ssl.*``, or the worker's ``ssl.*``."""

    source: str
    """The worker file, for messages."""
    prefix: str
    """``listeners.https.`` when the keys come from there, else empty (the worker's ``ssl.*``)."""
    values: Mapping[str, str]
    """The SSL keys without the prefix (``ssl.keystore.location``...)."""

    @classmethod
    def from_props(cls, props: Mapping[str, str], source: str = "<worker config>") -> RestTlsSettings:
        """Kafka's choice: any ``listeners.https.*`` key means only those; ConfigFileError for a key
        under ``listeners.https.`` that is not an SSL key."""
        prefixed = {k[len(HTTPS_PREFIX) :]: v for k, v in props.items() if k.startswith(HTTPS_PREFIX)}
        if not prefixed:
            return cls(source, "", {k: v for k, v in props.items() if k in SSL_KEYS})
        for name in sorted(prefixed):
            if name not in SSL_KEYS:
                raise ConfigFileError(
                    f"{source}: {HTTPS_PREFIX}{name}: unknown key: the https listeners take Kafka's "
                    "ssl.* keys (ssl.keystore.location, ssl.truststore.location, ssl.client.auth, ...)"
                )
        return cls(source, HTTPS_PREFIX, prefixed)

    @classmethod
    def of(cls, config: WorkerConfig) -> RestTlsSettings:
        """The settings of a worker's config."""
        return cls.from_props(config.props, config.source)

    def key(self, name: str) -> str:
        """The key as the user wrote it (``listeners.https.ssl.keystore.type`` or ``ssl.keystore.type``)."""
        return self.prefix + name

    def _get(self, name: str) -> str | None:
        value = self.values.get(name)
        return value if value is not None and value.strip() else None

    def _error(self, name: str, reason: str) -> ConfigFileError:
        return ConfigFileError(f"{self.source}: {self.key(name)}: {reason}")

    def server_context(self) -> ssl.SSLContext:
        """The https listeners' SSL context: key store, trust store for client certificates,
        ``ssl.client.auth`` and protocol versions. ConfigFileError naming the key when one is wrong."""
        self._check_refused_keys()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._set_versions(context)
        if not self._load_keystore(context):
            raise ConfigFileError(
                f"{self.source}: {self.key('ssl.keystore.location')}: an https listener needs a key store: "
                f"set {self.key('ssl.keystore.type')}=PEM and {self.key('ssl.keystore.location')} (a PEM "
                f"file with the private key and its certificate chain), or {self.key('ssl.keystore.key')} "
                f"and {self.key('ssl.keystore.certificate.chain')}"
            )
        client_auth = self._client_auth()
        context.verify_mode = client_auth
        if not self._load_truststore(context) and client_auth != ssl.CERT_NONE:
            context.load_default_certs(ssl.Purpose.CLIENT_AUTH)
        context.set_alpn_protocols(["http/1.1"])
        return context

    def client_context(self) -> ssl.SSLContext:
        """The context this worker's requests to other workers' https URLs use: the trust store (the
        system's CAs without one), the key store as client certificate when set, and host name
        checks unless ``ssl.endpoint.identification.algorithm`` is empty."""
        self._check_refused_keys()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        self._set_versions(context)
        if not self._load_truststore(context):
            context.load_default_certs(ssl.Purpose.SERVER_AUTH)
        self._load_keystore(context)
        algorithm = self.values.get("ssl.endpoint.identification.algorithm", "https").strip()
        if algorithm.lower() not in ("https", ""):
            raise self._error(
                "ssl.endpoint.identification.algorithm",
                f"Invalid value {algorithm}: expected https (check the host name) or empty (do not)",
            )
        context.check_hostname = algorithm != ""
        return context

    def _check_refused_keys(self) -> None:
        for name, reason in REFUSED_KEYS.items():
            if self._get(name) is not None:
                raise self._error(name, f"is not supported: {reason}")

    def log_keys_without_effect(self) -> None:
        """Log each Java-only key that is set (`JAVA_ONLY_KEYS`): accepted, never silently ignored."""
        for name, reason in JAVA_ONLY_KEYS.items():
            if self._get(name) is not None:
                log.info("%s has no effect on the REST listeners: %s", self.key(name), reason)

    def _client_auth(self) -> ssl.VerifyMode:
        value = self.values.get("ssl.client.auth", "none").strip() or "none"
        if value.lower() not in _CLIENT_AUTH:
            raise self._error(
                "ssl.client.auth",
                f"Invalid value {value} for configuration ssl.client.auth: "
                "String must be one of: required, requested, none",
            )
        return _CLIENT_AUTH[value.lower()]

    def _set_versions(self, context: ssl.SSLContext) -> None:
        """``ssl.protocol`` caps the versions (TLSv1.2 allows up to 1.2, TLS any) and
        ``ssl.enabled.protocols`` lists them; OpenSSL takes a range, so the list must have no gap."""
        protocol = self._get("ssl.protocol") or "TLSv1.3"
        if protocol != "TLS" and protocol not in _TLS_VERSIONS:
            raise self._error(
                "ssl.protocol",
                f"Invalid value {protocol}: kconnect supports TLS, {', '.join(_TLS_VERSIONS)}",
            )
        enabled_text = self._get("ssl.enabled.protocols") or "TLSv1.2,TLSv1.3"
        names = [name.strip() for name in enabled_text.split(",") if name.strip()]
        for name in names:
            if name not in _TLS_VERSIONS:
                raise self._error(
                    "ssl.enabled.protocols",
                    f"Invalid value {enabled_text}: {name} is not one of {', '.join(_TLS_VERSIONS)}",
                )
        order = list(_TLS_VERSIONS)
        cap = order.index(protocol) if protocol in order else len(order) - 1
        indexes = sorted({order.index(name) for name in names if order.index(name) <= cap})
        if not indexes:
            raise self._error(
                "ssl.enabled.protocols",
                f"Invalid value {enabled_text}: none of these is allowed by "
                f"{self.key('ssl.protocol')}={protocol}",
            )
        if indexes != list(range(indexes[0], indexes[-1] + 1)):
            raise self._error(
                "ssl.enabled.protocols",
                f"Invalid value {enabled_text}: Python's ssl module enables a range of versions; "
                "list every version between the lowest and the highest",
            )
        context.minimum_version = _TLS_VERSIONS[order[indexes[0]]]
        context.maximum_version = _TLS_VERSIONS[order[indexes[-1]]]

    def _check_pem_type(self, store: str) -> None:
        name = f"ssl.{store}.type"
        value = self._get(name)
        if value is None or value.upper() != PEM:
            shown = value if value is not None else "JKS (Kafka's default)"
            raise self._error(
                name,
                f"{shown} is not supported: kconnect's REST listeners read PEM {store}s only; "
                f"set {self.key(name)}=PEM and give the {store} as PEM",
            )

    def _load_keystore(self, context: ssl.SSLContext) -> bool:
        """Load the key store into `context`; False when none is configured (Kafka's rules)."""
        location = self._get("ssl.keystore.location")
        key = self._get("ssl.keystore.key")
        chain = self._get("ssl.keystore.certificate.chain")
        password = self._get("ssl.keystore.password")
        key_password = self.values.get("ssl.key.password")
        if key is None and chain is None and location is None:
            if password is not None:
                raise self._error(
                    "ssl.keystore.password",
                    "SSL key store is not specified, but key store password is specified.",
                )
            return False
        self._check_pem_type("keystore")
        if password is not None:
            raise self._error(
                "ssl.keystore.password",
                "SSL key store password cannot be specified with PEM format, "
                "only key password may be specified",
            )
        if key is not None and chain is None:
            raise self._error(
                "ssl.keystore.key", "SSL private key is specified, but certificate chain is not specified."
            )
        if chain is not None and key is None:
            raise self._error(
                "ssl.keystore.certificate.chain",
                "SSL certificate chain is specified, but private key is not specified",
            )
        if key is not None and location is not None:
            raise self._error(
                "ssl.keystore.key", "Both SSL key store location and separate private key are specified."
            )
        if location is not None:
            name, what = "ssl.keystore.location", f"Failed to load PEM SSL keystore {location}"
            text = self._read(name, location)
        else:
            name, what, text = "ssl.keystore.key", "Invalid PEM keystore configs", f"{key}\n{chain}"
        blocks = pem_blocks(text)
        keys = [block for block in blocks if block.is_private_key]
        certificates = [block for block in blocks if block.is_certificate]
        if len(keys) != 1:
            found = "none" if not keys else str(len(keys))
            raise self._error(name, f"{what}: expected one PEM private key, but found {found}")
        if not certificates:
            raise self._error(name, f"{what}: At least one certificate expected, but none found")
        if keys[0].is_encrypted and not key_password:
            raise self._error(
                name, f"{what}: the private key is encrypted; set {self.key('ssl.key.password')}"
            )
        try:
            load_cert_chain(context, keys[0], certificates, key_password or "")
        except ssl.SSLError as exc:
            raise self._error(
                name,
                f"{what}: {exc.reason or exc} (a wrong {self.key('ssl.key.password')}, or a private key "
                "that is not the first certificate's)",
            ) from exc
        return True

    def _load_truststore(self, context: ssl.SSLContext) -> bool:
        """Load the trust store into `context`; False when none is configured (Kafka's rules)."""
        location = self._get("ssl.truststore.location")
        certificates = self._get("ssl.truststore.certificates")
        password = self._get("ssl.truststore.password")
        if location is None and certificates is None:
            if password is not None:
                raise self._error(
                    "ssl.truststore.password",
                    "SSL trust store is not specified, but trust store password is specified.",
                )
            return False
        self._check_pem_type("truststore")
        if location is not None and certificates is not None:
            raise self._error(
                "ssl.truststore.certificates",
                "Both SSL trust store location and separate trust certificates are specified.",
            )
        if password is not None:
            raise self._error(
                "ssl.truststore.password", "SSL trust store password cannot be specified for PEM format."
            )
        if location is not None:
            name, what = "ssl.truststore.location", f"Failed to load PEM SSL truststore {location}"
            text = self._read(name, location)
        else:
            name, what, text = (
                "ssl.truststore.certificates",
                "Invalid PEM truststore configs",
                certificates or "",
            )
        trusted = [block.text for block in pem_blocks(text) if block.is_certificate]
        if not trusted:
            raise self._error(name, f"{what}: At least one certificate expected, but none found")
        try:
            context.load_verify_locations(cadata="".join(trusted))
        except ssl.SSLError as exc:
            raise self._error(name, f"{what}: {exc.reason or exc}") from exc
        return True

    def _read(self, name: str, path: str) -> str:
        try:
            return Path(path).read_text(encoding="ascii", errors="replace")
        except OSError as exc:
            raise self._error(name, f"cannot read {path}: {exc.strerror or exc}") from exc


def has_https_listener(config: WorkerConfig) -> bool:
    """Whether one of the worker's ``listeners`` is ``https://``."""
    return any(item.scheme == "https" for item in config.rest_listeners())


def uses_tls(config: WorkerConfig) -> bool:
    """Whether the worker's REST API speaks TLS: an https listener, or an advertised https URL."""
    return has_https_listener(config) or config.advertised_url().startswith("https://")


def client_verify(config: WorkerConfig) -> ssl.SSLContext | bool:
    """What this worker's HTTP clients verify https peers with (httpx's ``verify``).

    A worker whose REST speaks TLS uses `RestTlsSettings.client_context`; any other uses the
    system's CAs (it calls other workers over http).
    """
    return RestTlsSettings.of(config).client_context() if uses_tls(config) else True


def check(config: WorkerConfig) -> None:
    """Build every SSL context the worker's REST will need, so a bad key fails at start-up.

    Called by the worker once its config is read, before anything starts.
    """
    if not uses_tls(config):
        return
    settings = RestTlsSettings.of(config)
    if has_https_listener(config):
        settings.server_context()
    settings.client_context()
    settings.log_keys_without_effect()
